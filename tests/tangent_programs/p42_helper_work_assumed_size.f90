! a helper whose assumed-size work array holds active values inside it only: the caller's
! work is passive at the call, so smooth_d takes its derivative as an argument ("Plus diff
! mem management of"), which the caller gives zeroed (smooth_d does not know its size)
subroutine smooth(u, work, n, k)
  integer n, i
  real(8) u(n), work(*), k
  do i = 1, n
    work(i) = k * u(i)
  end do
  do i = 2, n - 1
    u(i) = u(i) + 0.5d0 * (work(i - 1) - 2.0d0 * work(i) + work(i + 1))
  end do
end subroutine

subroutine diffuse(u, k, y, n)
  integer n, i
  real(8) u(n), k, y, work(8)
  call smooth(u, work, n, k)
  y = 0.0d0
  do i = 1, n
    y = y + u(i) * u(i)
  end do
end subroutine
