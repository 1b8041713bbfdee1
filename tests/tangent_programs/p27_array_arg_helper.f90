subroutine axpy(n, alpha, x, y)
  integer n, i
  real(8) alpha, x(n), y(n)
  do i = 1, n
    y(i) = y(i) + alpha * x(i)
  end do
end subroutine

subroutine f(x, y, a, n)
  integer n
  real(8) x(n), y(n), a
  call axpy(n, a, x, y)
  call axpy(n, 2.0d0, x, y)
end subroutine
