! OPTIONAL arguments left out of active calls: the arguments after them, their derivatives and
! a function's result argument go by keyword (r_d(..., shift=a, shiftd=ad, r=result))
module optional_args
contains
  real(8) function r(c, x, scale, shift)
    real(8), intent(in) :: c, x
    real(8), intent(in), optional :: scale, shift
    r = c*x*x
    if (present(scale)) r = r*scale
    if (present(shift)) r = r + shift
  end function

  subroutine step(x, y, rate, count)
    real(8), intent(in) :: x
    real(8), intent(inout) :: y
    real(8), intent(in), optional :: rate
    integer, intent(out), optional :: count
    if (present(rate)) then
      y = y + rate*sin(x)
    else
      y = y + cos(x)*y
    end if
    if (present(count)) count = 1
  end subroutine
end module

subroutine f(x, y)
  use optional_args
  real(8) x, y
  integer k
  y = r(2.0d0, x, shift=x*x) + r(1.0d0, x) + r(x, x, scale=x)
  call step(x, y)
  call step(x, y, count=k)
  call step(x, y, y*0.5d0)
end subroutine
