! Paper fig. 6 (section 4.3): one assignment, its tangent and its adjoint.
subroutine fig6(a, b, x, i, j)
  integer :: i, j
  real(8) :: a(5), b(5), x
  a(i) = x*b(j) + cos(a(i))
end subroutine fig6
