! Explicit nonlinear relaxation: each sweep updates u in place, left to right.
subroutine sweep(n, u, c)
  implicit none
  integer, intent(in) :: n
  real(8), intent(inout) :: u(n)
  real(8), intent(in) :: c
  integer :: i
  do i = 2, n
    u(i) = u(i) + c * sin(u(i - 1)) * u(i)
  end do
end subroutine sweep

subroutine evolve(n, u, c, e)
  implicit none
  integer, intent(in) :: n
  real(8), intent(inout) :: u(n)
  real(8), intent(in) :: c
  real(8), intent(out) :: e
  integer :: i
  call sweep(n, u, c)
  call sweep(n, u, c)
  e = 0.0d0
  do i = 1, n
    e = e + u(i) * u(i)
  end do
end subroutine evolve
