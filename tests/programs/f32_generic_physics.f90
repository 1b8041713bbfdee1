! Particles in a box: a module with PRIVATE/PUBLIC statements and a generic name over module
! procedures (scalar and array specifics), pair forces computed with a masked FORALL,
! reflecting walls with WHERE / ELSEWHERE (mask), a keyword argument to an intrinsic.
! adspec-test: particles(x:r8[5], v:r8[5], n:i4=5, nstep:i4=8, dt:r8=0.02, ekin:r8)
module box_physics
  implicit none
  private
  public :: energy, wall
  real(8), parameter :: wall = 2.0d0
  interface energy
    module procedure energy_one, energy_all
  end interface energy
contains
  real(8) function energy_one(v)
    real(8), intent(in) :: v
    energy_one = 0.5d0 * v * v
  end function energy_one

  real(8) function energy_all(v, n)
    integer, intent(in) :: n
    real(8), intent(in) :: v(n)
    energy_all = 0.5d0 * sum(v * v)
  end function energy_all
end module box_physics

subroutine particles(x, v, n, nstep, dt, ekin)
  use box_physics
  implicit none
  integer, intent(in) :: n, nstep
  real(8), intent(inout) :: x(n), v(n)
  real(8), intent(in) :: dt
  real(8), intent(out) :: ekin
  real(8) :: f(n, n), acc(n)
  integer :: i, j, step
  do step = 1, nstep
    f = 0.0d0
    forall (i = 1:n, j = 1:n, i /= j)
      f(i, j) = (x(i) - x(j)) / (abs(x(i) - x(j))**3 + 0.1d0)
    end forall
    acc = sum(f, dim=2)
    v = v + dt * acc
    x = x + dt * v
    where (x > wall)
      x = 2.0d0 * wall - x
      v = -v
    elsewhere (x < -wall)
      x = -2.0d0 * wall - x
      v = -v
    end where
  end do
  ekin = energy(v, n) + energy(v(1))
end subroutine particles
