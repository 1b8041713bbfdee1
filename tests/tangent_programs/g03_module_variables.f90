module physics
  implicit none
  real(8) :: scale, offset
  integer :: nsteps
contains
  subroutine set_scale(x)
    real(8) x
    scale = x * x
    offset = 1.0d0
  end subroutine

  function damped(u) result(v)
    real(8) u, v
    v = scale * sin(u) + offset
  end function
end module

subroutine f(x, y)
  use physics
  real(8) x, y
  call set_scale(x)
  y = damped(x) * scale
end subroutine
