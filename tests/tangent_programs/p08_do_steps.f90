subroutine f(x, y, n)
  integer n, i
  real(8) x(n), y
  y = 1.0d0
  do i = 1, n, 2
    y = y * x(i) + 1.0d0
  end do
  do i = n, 1, -1
    y = sin(y) + x(i)
  end do
  do i = n, 2, -3
    y = y * x(i - 1)
  end do
end subroutine
