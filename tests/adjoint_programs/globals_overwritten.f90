! A callee overwrites a module variable and a COMMON member that the caller's backward sweep
! reads before the call (t = c*c); a passive function called in an expression resets one.
module m
  real(8) :: d
end module

subroutine g(x)
  use m
  real(8) x, c
  common /blk/ c
  d = c * x
  c = x * 3.0d0 + d
  c = sin(c) * x
end subroutine

function reset(k) result(v)
  integer, intent(in) :: k
  real(8) :: v, cc
  common /blk/ cc
  v = 1.0d0 * k
  cc = v / 2
end function

subroutine f(x, y, n)
  use m
  integer n
  real(8) x, y, t, c, reset
  common /blk/ c
  external reset
  c = x*x
  t = c*c
  call g(x)
  t = t * d
  call g(t)
  y = t + c*x
  if (n > 2) then
    t = t + reset(n)
  end if
  y = y + c * t
end subroutine
