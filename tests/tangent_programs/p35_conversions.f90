subroutine f(x, z, y)
  real(8) x, z, y
  integer k
  k = int(3.0d0 * x)
  y = x * dble(k) + aint(2.0d0 * z) * z + dble(nint(x)) + floor(x * z) * x
  y = y + dim(x, 0.5d0 * z) + modulo(5.0d0 * x, z) + real(x * z, 8)
end subroutine
