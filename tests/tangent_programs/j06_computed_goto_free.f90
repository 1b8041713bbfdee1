! Computed GOTOs without the comma: backward twice then forward, and an index (m - 1 = 0)
! out of range that falls through.
subroutine f(x, y, m)
  integer m, k
  real(8) x, y
  k = 0
  y = x
10 y = y * x + 1.0d0
  k = k + 1
  goto (10, 10, 20) k
20 goto (30, 40), m - 1
  y = y / x
  goto 50
30 y = y * y
40 y = cos(y) + y
50 y = y * x
end subroutine
