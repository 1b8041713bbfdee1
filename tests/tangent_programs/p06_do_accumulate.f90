subroutine f(x, y, n)
  integer n, i
  real(8) x(n), y, p
  y = 0.0d0
  p = 1.0d0
  do i = 1, n
    y = y + x(i) * x(i)
    p = p * x(i)
  end do
  y = y + p
end subroutine
