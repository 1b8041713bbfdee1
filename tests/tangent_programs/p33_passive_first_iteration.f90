subroutine f(x, y, n)
  integer n, i
  real(8) x(n), y, t
  t = 1.0d0
  y = 0.0d0
  do i = 1, n
    y = y + t * x(i)
    t = x(i) * x(i)
  end do
end subroutine
