! A derived type with real and integer components passed to a helper; a type with a nested
! array-of-structures component and an array component (T -> T_D holds only the reals).
module shapes
  implicit none
  type point
    real(8) :: x, y
    integer :: id
  end type
  type cloud
    type(point) :: p(3)
    real(8) :: w(3)
    integer :: n
  end type
end module

subroutine norm2(p, r)
  use shapes
  type(point) p
  real(8) r
  r = sqrt(p%x * p%x + p%y * p%y)
end subroutine

subroutine f(x, y)
  use shapes
  real(8) x, y
  type(point) q
  type(cloud) c
  integer i
  q%x = x
  q%y = 2.0d0 * x
  q%id = 1
  call norm2(q, y)
  c%n = 3
  do i = 1, c%n
    c%w(i) = x * i
    c%p(i)%x = sin(x) * c%w(i)
  end do
  y = y + c%p(2)%x * c%w(3)
end subroutine
