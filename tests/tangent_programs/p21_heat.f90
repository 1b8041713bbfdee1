subroutine f(u, unew, alpha, n)
  integer n, i
  real(8) u(n), unew(n), alpha
  real(8) r
  r = alpha * 0.25d0
  unew(1) = u(1)
  unew(n) = u(n)
  do i = 2, n - 1
    unew(i) = u(i) + r * (u(i + 1) - 2.0d0 * u(i) + u(i - 1))
  end do
end subroutine
