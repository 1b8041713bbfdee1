! Formatted I/O statements kept as passive statements: OPEN, WRITE with a FORMAT label,
! REWIND, CLOSE and PRINT (list-directed and with a FORMAT label) around an explicit 1-D
! heat equation solver.
! adspec-test: heat_explicit(u:r8[10], n:i4=10, nstep:i4=15, alpha:r8=0.4, umax:r8)
subroutine heat_explicit(u, n, nstep, alpha, umax)
  implicit none
  integer, intent(in) :: n, nstep
  real(8), intent(inout) :: u(n)
  real(8), intent(in) :: alpha
  real(8), intent(out) :: umax
  real(8) :: unew(n)
  integer :: i, step, unit_out
  unit_out = 31
  open(unit=unit_out, status='scratch', form='formatted', action='readwrite')
  write(unit_out, 100) 0, u(1), u(n)
  do step = 1, nstep
    unew(1) = u(1)
    unew(n) = u(n)
    do i = 2, n - 1
      unew(i) = u(i) + alpha * (u(i - 1) - 2.0d0 * u(i) + u(i + 1))
    end do
    u = unew
    if (mod(step, 5) == 0) write(unit_out, 100) step, u(1), u(n / 2)
  end do
100 format(1x, 'step', i5, 2(1x, es14.6))
  rewind(unit_out)
  close(unit_out)
  umax = maxval(u)
  print 200, umax
200 format(' max temperature: ', f10.5)
  print *, 'steps', nstep
end subroutine heat_explicit
