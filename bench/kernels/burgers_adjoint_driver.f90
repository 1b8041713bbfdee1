! Times burgers and burgers_b (the adjoint); prints "primal s", "adjoint s" (each the best of
! 5) and "peak bytes" (the most the push/pop stack held).
program burgers_adjoint_driver
  use timing
  implicit none
  integer, parameter :: n = 2000, nsteps = 200, reps = 5
  integer(8), external :: adstack_peakbytes
  real(8) :: u0(n), u(n), ub(n), nu, nub, dt, dx, best, start
  integer :: r, i
  dx = 1.0d0 / n
  nu = 0.01d0
  dt = 0.2d0 * dx * dx / nu
  do i = 1, n
    u0(i) = sin(3.0d0 * i * dx) + 0.5d0
  end do
  best = huge(1.0d0)
  do r = 1, reps
    u = u0
    start = now()
    call burgers(u, nu, n, nsteps, dt, dx)
    best = min(best, now() - start)
  end do
  print '(a, es12.5)', 'primal ', best
  best = huge(1.0d0)
  do r = 1, reps
    u = u0
    ub = 1.0d0
    start = now()
    call burgers_b(u, ub, nu, nub, n, nsteps, dt, dx)
    best = min(best, now() - start)
  end do
  print '(a, es12.5)', 'adjoint ', best
  print '(a, i0)', 'peak ', adstack_peakbytes()
  print '(a, es12.5)', 'check ', u(n / 2) + nub + ub(n / 2)
end program
