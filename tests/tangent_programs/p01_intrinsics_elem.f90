subroutine f(x, y)
  real(8) x, y
  real(8) a, b, c
  a = sqrt(x) + exp(x) - log(x) * log10(x)
  b = sin(x) * cos(x) + tan(0.5d0 * x)
  c = a / b
  y = c * c + a
end subroutine
