subroutine f(x, y)
  real(8) x, y
  real(8) a(3)
  a(1) = 1.5d0
  a(2) = x
  a(3) = x * a(1)
  y = a(1) * a(2) * a(3) + a(1)
end subroutine
