! SAVE locals of called procedures (issue 16): a passive counter (tick, called by relax in an
! expression) that relax's derivatives read, an active state s read before it is written at every
! call of a loop of calls, an array of state; relax is called joint from inner (itself checkpointed
! in a loop) and split ($AD NOCHECKPOINT) from the head. Each rerun of a call must find the state
! as that call saw it, and the adjoint of s goes from each call back to the previous one.
function tick() result(k)
  integer :: k
  integer, save :: count = 0
  count = count + 1
  k = count
end function

subroutine relax(x, y)
  real(8) x, y
  real(8), save :: s = 0.5d0
  real(8), save :: hist(3) = (/ 1.0d0, 2.0d0, 3.0d0 /)
  integer tick, k, j
  external tick
  k = tick()
  j = mod(k, 3) + 1
  y = y + s * x * k + hist(j) * y
  hist(j) = hist(j) * x
  s = cos(s) * x + s
end subroutine

subroutine inner(x, y)
  real(8) x, y, t
  call relax(x, y)
  t = y * 0.5d0
  call relax(t, y)
end subroutine

subroutine run(x, y, n)
  integer n, i
  real(8) x(n), y
  y = 1.0d0
  do i = 1, n
    call inner(x(i), y)
  end do
!$AD NOCHECKPOINT
  call relax(x(1), y)
end subroutine
