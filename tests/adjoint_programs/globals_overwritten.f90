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

real(8) function reset(k)
  integer k
  real(8) c
  common /blk/ c
  c = 0.5d0 * k
  reset = 1.0d0 * k
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
