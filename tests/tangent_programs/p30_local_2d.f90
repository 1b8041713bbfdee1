subroutine f(x, y, n)
  integer n, i, j
  real(8) x(n), y
  real(8) a(n, n)
  do j = 1, n
    do i = 1, n
      a(i, j) = x(i) * x(j) + dble(i - j)
    end do
  end do
  y = 0.0d0
  do j = 1, n
    y = y + a(j, j) * a(1, j)
  end do
end subroutine
