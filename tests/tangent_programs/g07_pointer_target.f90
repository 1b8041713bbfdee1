! An active pointer to an active target: p => a gives pd => ad, and p(i), pd(i) are the
! value and derivative of the same memory; a pointer to a row of a local array.
subroutine f(x, y, n)
  integer n, i
  real(8), target :: x(n)
  real(8) y
  real(8), target :: buf(2, 3)
  real(8), pointer :: p(:), q(:)
  p => x
  q => null()
  do i = 1, n
    buf(1, i) = p(i) * p(i)
    buf(2, i) = sin(x(i))
  end do
  q => buf(2, :)
  y = 0.0d0
  do i = 1, n
    y = y + q(i) * buf(1, i)
  end do
end subroutine
