! An active module variable of a derived type defined in another module, and an active
! module array: world_diff USEs geo_diff for vec_d; g_d reads what f_d sets.
module geo
  implicit none
  type vec
    real(8) :: a, b
  end type
end module

module world
  use geo
  implicit none
  type(vec) :: origin
  real(8) :: w(3)
end module

subroutine f(x, y)
  use world
  real(8) x, y
  origin%a = x
  origin%b = x * x
  w = x
  call g(y)
end subroutine

subroutine g(y)
  use world
  real(8) y
  y = origin%a * origin%b + sum(w)
end subroutine
