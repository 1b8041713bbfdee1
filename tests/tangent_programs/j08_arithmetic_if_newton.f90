! Newton steps counted with an arithmetic IF; the sign of the residual picks the step.
subroutine f(a, x)
  real(8) a, x, r
  integer k
  x = a
  k = 0
10 r = x*x - a*2.0d0
  k = k + 1
  if (k - 6) 20, 40, 40
20 if (r) 30, 40, 35
30 x = x + 0.1d0*a
  goto 10
35 x = x - r/(2.0d0*x)
  goto 10
40 x = x + r*0.5d0 + a*0.01d0
end subroutine
