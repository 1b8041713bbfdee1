! NORM2 of a vector and a section, HYPOT of two scalars (both warn about their point of
! non-differentiability, 0)
subroutine f(x, z, y, n)
  integer n
  real(8) x(n), z, y, r
  r = hypot(x(1), z)
  y = norm2(x) * r + norm2(x(2:n) * z) + hypot(r, 2.0d0)
end subroutine
