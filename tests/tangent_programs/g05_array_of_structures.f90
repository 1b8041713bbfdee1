! An array of structures passed to a helper, a whole-structure copy, and a type defined
! inside the procedure.
module particles
  implicit none
  type particle
    integer :: tag
    real(8) :: pos(2)
    real(8) :: mass
  end type
end module

subroutine energy(ps, n, e)
  use particles
  integer n, i
  type(particle) ps(n)
  real(8) e
  e = 0.0d0
  do i = 1, n
    e = e + ps(i)%mass * (ps(i)%pos(1) ** 2 + ps(i)%pos(2) ** 2)
  end do
end subroutine

subroutine f(x, y, n)
  use particles
  integer n, i
  real(8) x(n), y
  type pair
    real(8) :: a, b
  end type
  type(particle) ps(3), first
  type(pair) pr
  do i = 1, 3
    ps(i)%tag = i
    ps(i)%mass = 1.0d0 + x(i)
    ps(i)%pos(1) = cos(x(i))
    ps(i)%pos(2) = x(i) * x(1)
  end do
  first = ps(1)
  ps(3) = first
  ps(3)%mass = 2.0d0
  call energy(ps, 3, y)
  pr%a = y
  pr%b = x(2) * pr%a
  y = pr%b + first%pos(2)
end subroutine
