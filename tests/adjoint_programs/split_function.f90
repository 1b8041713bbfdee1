! A function called in split mode ($AD NOCHECKPOINT on its header): g_fwd returns the value,
! g_bwd takes the value's adjoint last; the function's RESULT is declared apart.
!$AD NOCHECKPOINT
function g(x, a) result(r)
  real(8) :: x, a
  real(8) :: r
  real(8) :: t
  t = sin(x) * a
  r = t * t + x
  r = r * cos(r)
end function

subroutine f(x, y, n)
  integer :: n, i
  real(8) :: x(n), y, g
  do i = 1, n
    y = g(x(i), y) * x(i) + y
  end do
  y = y + g(y, x(1)) * 2
end subroutine
