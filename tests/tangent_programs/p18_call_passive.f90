subroutine coef(k, c)
  integer k
  real(8) c
  c = 1.0d0 / dble(k + 1)
end subroutine

subroutine f(x, y)
  real(8) x, y, c
  call coef(2, c)
  y = c * x * x
end subroutine
