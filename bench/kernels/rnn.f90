! An Elman recurrent cell unrolled over a sequence: h <- tanh(W h + U x_t + b), then the
! loss is the sum of squares of the last state.
subroutine rnn(w, u, b, x, h, loss, nh, nx, nt)
  integer nh, nx, nt
  real(8) w(nh, nh), u(nh, nx), b(nh), x(nx, nt), h(nh), loss
  real(8) a(nh)
  integer i, j, t
  do t = 1, nt
    do i = 1, nh
      a(i) = b(i)
      do j = 1, nh
        a(i) = a(i) + w(i, j) * h(j)
      end do
      do j = 1, nx
        a(i) = a(i) + u(i, j) * x(j, t)
      end do
    end do
    do i = 1, nh
      h(i) = tanh(a(i))
    end do
  end do
  loss = 0.0d0
  do i = 1, nh
    loss = loss + h(i) * h(i)
  end do
end subroutine
