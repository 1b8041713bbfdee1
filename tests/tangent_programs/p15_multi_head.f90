subroutine f(a, b, y, z)
  real(8) a, b, y, z
  real(8) t
  t = a * b
  y = t + sin(a)
  z = t * t - exp(b)
end subroutine
