subroutine f(x, n, y)
  integer n
  real(8) x, y
  integer i
  y = x
  do i = 1, n
    y = y * x / dble(i) + dble(n) * x
  end do
end subroutine
