subroutine f(a, b, c, y)
  real(8) a, b, c, y
  y = ((a + b) / (a - 2.0d0 * c)) / (1.0d0 + (b * c) / (a * a + 1.0d0)) - a / b / c
  y = -y * (y - a) / (-(b + 3.0d0))
end subroutine
