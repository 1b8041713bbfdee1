subroutine f(x, z, y)
  real(8) x, z, y
  integer k
  k = 3
  y = x**2 + x**3 * z + x**(-2) + x**k
  y = y + x**2.5d0 + x**z + 2.0d0**x + (x * z)**0.5d0
end subroutine
