subroutine f(x, z, y)
  real(8) x, z, y
  real(8) a, b
  a = abs(x - 1.1d0) + sign(x * z, z - 0.9d0) + sign(2.0d0, x)
  b = min(x, z) * max(x, 0.3d0 * z) + max(x, z, 1.2d0)
  y = a * b + mod(3.0d0 * x, z) + mod(x, 0.37d0)
end subroutine
