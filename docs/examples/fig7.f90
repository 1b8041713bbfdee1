! Paper fig. 7 (section 4.4): a loop and a test, tangent and adjoint.
subroutine fig7(a, b, c, n, m)
  integer :: n, m, i
  real :: a, b(1000), c
  do i = 3*n*m, 1000
    a = a - 2*b(i)
    if (a > 0) then
      c = c*a
    end if
  end do
end subroutine fig7
