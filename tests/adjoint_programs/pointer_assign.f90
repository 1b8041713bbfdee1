! Fortran pointer assignment in adjoint mode: pb => xb moves with p => x in the forward sweep;
! x is an independent and a dependent, so the adjoint of x that comes in must not be reset
! through pb; q is associated with null() first, then with a row of a local array.
subroutine f(x, y, n)
  integer n, i
  real(8), target :: x(n)
  real(8) y
  real(8), target :: rows(2, 4)
  real(8), pointer :: p(:), q(:)
  q => null()
  p => x
  do i = 1, n
    rows(1, i) = p(i) * x(i)
    rows(2, i) = cos(p(i))
  end do
  q => rows(2, :)
  y = 0
  do i = 1, n
    y = y + q(i) * rows(1, i)
    p(i) = p(i) * y
  end do
end subroutine
