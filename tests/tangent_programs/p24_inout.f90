subroutine f(x, n)
  integer n, i
  real(8) x(n)
  do i = 2, n
    x(i) = x(i) * x(i - 1) + cos(x(i))
  end do
  x(1) = x(1) * x(n)
end subroutine
