subroutine f(x, z, y)
  real(8) x, z, y
  y = merge(x * x, z / x, x > z) + merge(2.0d0, sin(z), z > 5.0d0)
end subroutine
