! A module with a parameter, module variables and a module procedure, used by the head.
module physics
  implicit none
  real(8), parameter :: g = 9.81d0
  integer, parameter :: nstep = 4
  real(8) :: damping = 0.1d0
  real(8) :: total_energy
contains
  subroutine step(x, v, dt)
    real(8), intent(inout) :: x, v
    real(8), intent(in) :: dt
    v = v - dt * (g * x + damping * v)
    x = x + dt * v
    total_energy = total_energy + 0.5d0 * v * v + 0.5d0 * g * x * x
  end subroutine step
end module physics

! adspec-test: simulate(x:r8, v:r8, dt:r8=0.05, e:r8)
subroutine simulate(x, v, dt, e)
  use physics
  implicit none
  real(8) :: x, v, dt, e
  integer :: i
  total_energy = 0.0d0
  damping = damping * 2.0d0
  do i = 1, nstep
    call step(x, v, dt)
  end do
  e = total_energy / nstep
end subroutine simulate
