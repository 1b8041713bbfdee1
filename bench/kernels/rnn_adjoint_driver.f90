! Times rnn and rnn_b (the adjoint); prints "primal s", "adjoint s" (each the best of 5) and
! "peak bytes" (the most the push/pop stack held).
program rnn_adjoint_driver
  use timing
  implicit none
  integer, parameter :: nh = 64, nx = 32, nt = 100, reps = 5
  integer(8), external :: adstack_peakbytes
  real(8) :: w(nh, nh), u(nh, nx), b(nh), x(nx, nt), h0(nh), h(nh), loss
  real(8) :: wb(nh, nh), ub(nh, nx), bb(nh), hb(nh), lossb
  real(8) :: best, start
  integer :: r
  call random_number(w)
  call random_number(u)
  call random_number(b)
  call random_number(x)
  call random_number(h0)
  w = (w - 0.5d0) * 0.2d0
  u = (u - 0.5d0) * 0.2d0
  best = huge(1.0d0)
  do r = 1, reps
    h = h0
    start = now()
    call rnn(w, u, b, x, h, loss, nh, nx, nt)
    best = min(best, now() - start)
  end do
  print '(a, es12.5)', 'primal ', best
  best = huge(1.0d0)
  do r = 1, reps
    h = h0
    hb = 0.0d0
    lossb = 1.0d0
    start = now()
    call rnn_b(w, wb, u, ub, b, bb, x, h, hb, loss, lossb, nh, nx, nt)
    best = min(best, now() - start)
  end do
  print '(a, es12.5)', 'adjoint ', best
  print '(a, i0)', 'peak ', adstack_peakbytes()
  print '(a, es12.5)', 'check ', loss + wb(1, 1) + ub(1, 1) + bb(1)
end program
