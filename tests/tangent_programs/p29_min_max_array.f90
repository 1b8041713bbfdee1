subroutine f(x, y, n)
  integer n, i
  real(8) x(n), y, m
  m = x(1)
  y = 0.0d0
  do i = 2, n
    m = max(m, x(i))
    y = y + min(x(i), 1.0d0) * m
  end do
end subroutine
