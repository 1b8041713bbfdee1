! A passive function called in an expression overwrites an active COMMON variable whose
! derivative is read later (after the merge of the branches): its derivative must be reset
! there (gd = 0), as after a call statement.
real(8) function reset_count(k)
  integer k
  real(8) g
  common /state/ g
  g = 1.5d0 * k
  reset_count = 2.0d0 * k
end function

subroutine f(x, y, n)
  real(8) x, y, t, reset_count
  integer n
  real(8) g
  common /state/ g
  external reset_count
  g = x * x
  t = 1.0d0
  if (n > 2) then
    t = reset_count(n) + 1.0d0
  end if
  y = g * x * t
end subroutine
