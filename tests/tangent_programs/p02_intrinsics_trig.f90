subroutine f(x, z, y)
  real(8) x, z, y
  real(8) s
  s = asin(0.5d0 * x) + acos(0.4d0 * x) + atan(x)
  s = s + atan2(z, x) + atan2(x, 2.0d0)
  y = s * sinh(x) + cosh(z) - tanh(x * z)
end subroutine
