! One explicit time step of the 1-D heat equation, with a cost function.
! The bundled example of adspec's README.
module heat_params
  implicit none
  real(8), parameter :: alpha = 0.25d0
end module heat_params

subroutine heat_step(u, n, cost)
  use heat_params
  implicit none
  integer, intent(in) :: n
  real(8), intent(inout) :: u(n)
  real(8), intent(out) :: cost
  real(8) :: unew(n)
  integer :: i
  ! interior points: second-order centred difference
  do i = 2, n - 1
    unew(i) = u(i) + alpha * (u(i - 1) - 2.0d0 * u(i) + u(i + 1))
  end do
  unew(1) = u(1)
  unew(n) = u(n)
  u = unew
  cost = 0.0d0
  do i = 1, n
    cost = cost + sin(u(i))**2
  end do
end subroutine heat_step
