! Times burgers, burgers_d, burgers_dv (8 directions) and 8 runs of burgers_d; prints
! "name seconds" lines, each the best of 5 repetitions.
program burgers_driver
  use timing
  use diffsizes
  implicit none
  integer, parameter :: n = 2000, nsteps = 200, reps = 5
  real(8) :: u0(n), u(n), ud(n), udv(nbdirsmax, n), nu, nud, nudv(nbdirsmax), dt, dx, best, start, check
  integer :: r, k, i
  dx = 1.0d0 / n
  nu = 0.01d0
  dt = 0.2d0 * dx * dx / nu
  do i = 1, n
    u0(i) = sin(3.0d0 * i * dx) + 0.5d0
  end do
  check = 0.0d0
  best = huge(1.0d0)
  do r = 1, reps
    u = u0
    start = now()
    call burgers(u, nu, n, nsteps, dt, dx)
    best = min(best, now() - start)
  end do
  check = check + u(n / 2)
  print '(a, es12.5)', 'primal ', best
  best = huge(1.0d0)
  do r = 1, reps
    u = u0
    ud = 1.0d0
    nud = 1.0d0
    start = now()
    call burgers_d(u, ud, nu, nud, n, nsteps, dt, dx)
    best = min(best, now() - start)
  end do
  check = check + ud(n / 2)
  print '(a, es12.5)', 'tangent ', best
  best = huge(1.0d0)
  do r = 1, reps
    start = now()
    do k = 1, nbdirsmax
      u = u0
      ud = 1.0d0 / k
      nud = 1.0d0
      call burgers_d(u, ud, nu, nud, n, nsteps, dt, dx)
    end do
    best = min(best, now() - start)
  end do
  check = check + ud(n / 2)
  print '(a, es12.5)', 'tangent8 ', best
  best = huge(1.0d0)
  do r = 1, reps
    u = u0
    do k = 1, nbdirsmax
      udv(k, :) = 1.0d0 / k
    end do
    nudv = 1.0d0
    start = now()
    call burgers_dv(u, udv, nu, nudv, n, nsteps, dt, dx, nbdirsmax)
    best = min(best, now() - start)
  end do
  check = check + udv(nbdirsmax, n / 2)
  print '(a, es12.5)', 'vector8 ', best
  print '(a, es12.5)', 'check ', check
end program
