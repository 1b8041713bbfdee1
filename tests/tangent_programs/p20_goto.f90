subroutine f(x, y)
  real(8) x, y
  integer k
  y = x
  k = 0
10 continue
  y = y * x - 0.1d0
  k = k + 1
  if (k < 3) goto 10
  if (y > 100.0d0) goto 20
  y = y + 1.0d0
20 continue
  y = y * y
end subroutine
