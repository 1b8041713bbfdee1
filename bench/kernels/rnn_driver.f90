! Times rnn, rnn_d, rnn_dv (8 directions) and 8 runs of rnn_d; prints "name seconds" lines,
! each the best of 5 repetitions.
program rnn_driver
  use timing
  use diffsizes
  implicit none
  integer, parameter :: nh = 64, nx = 32, nt = 100, reps = 5
  real(8) :: w(nh, nh), u(nh, nx), b(nh), x(nx, nt), h0(nh), h(nh), loss
  real(8) :: wd(nh, nh), ud(nh, nx), bd(nh), hd(nh), lossd
  real(8) :: wdv(nbdirsmax, nh, nh), udv(nbdirsmax, nh, nx), bdv(nbdirsmax, nh), hdv(nbdirsmax, nh), lossdv(nbdirsmax)
  real(8) :: best, start, check
  integer :: r, k
  call random_number(w)
  call random_number(u)
  call random_number(b)
  call random_number(x)
  call random_number(h0)
  w = (w - 0.5d0) * 0.2d0
  u = (u - 0.5d0) * 0.2d0
  check = 0.0d0
  best = huge(1.0d0)
  do r = 1, reps
    h = h0
    start = now()
    call rnn(w, u, b, x, h, loss, nh, nx, nt)
    best = min(best, now() - start)
  end do
  check = check + loss
  print '(a, es12.5)', 'primal ', best
  best = huge(1.0d0)
  do r = 1, reps
    h = h0
    wd = 1.0d0
    ud = 1.0d0
    bd = 1.0d0
    start = now()
    call rnn_d(w, wd, u, ud, b, bd, x, h, hd, loss, lossd, nh, nx, nt)
    best = min(best, now() - start)
  end do
  check = check + lossd
  print '(a, es12.5)', 'tangent ', best
  best = huge(1.0d0)
  do r = 1, reps
    start = now()
    do k = 1, nbdirsmax
      h = h0
      wd = 1.0d0 / k
      ud = 1.0d0
      bd = 1.0d0
      call rnn_d(w, wd, u, ud, b, bd, x, h, hd, loss, lossd, nh, nx, nt)
    end do
    best = min(best, now() - start)
  end do
  check = check + lossd
  print '(a, es12.5)', 'tangent8 ', best
  best = huge(1.0d0)
  do r = 1, reps
    h = h0
    do k = 1, nbdirsmax
      wdv(k, :, :) = 1.0d0 / k
    end do
    udv = 1.0d0
    bdv = 1.0d0
    start = now()
    call rnn_dv(w, wdv, u, udv, b, bdv, x, h, hdv, loss, lossdv, nh, nx, nt, nbdirsmax)
    best = min(best, now() - start)
  end do
  check = check + lossdv(nbdirsmax)
  print '(a, es12.5)', 'vector8 ', best
  print '(a, es12.5)', 'check ', check
end program
