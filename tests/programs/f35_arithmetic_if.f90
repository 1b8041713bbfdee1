! Arithmetic IF on reals and integers, a backward jump counted down, a computed GOTO
! whose index comes from the data.
! adspec-test: walk(a:r8[5], n:i4=5, steps:i4) -> r8
function walk(a, n, steps) result(r)
  integer n, steps, i, k
  real(8) a(n), r
  r = 0.0d0
  i = 0
  k = 0
10 i = i + 1
  if (a(i) - 1.0d0) 20, 30, 40
20 r = r + a(i)
  go to 50
30 r = r - 1.0d0
  go to 50
40 r = r * a(i)
50 k = k + 1
  if (k - steps) 60, 70, 70
60 if (i - n) 10, 70, 70
70 continue
  goto (80, 90, 80, 90, 80), mod(k, 5) + 1
  r = -r
80 r = r + 1.0d0
90 continue
end function
