subroutine f(x, y, n)
  integer n, i
  real(8) x(n), y
  y = 0.0d0
  do i = 1, n
    if (i == 2) cycle
    y = y + x(i) ** 2
    if (i >= 4) exit
  end do
end subroutine
