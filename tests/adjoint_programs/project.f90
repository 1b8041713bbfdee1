! A helper that overwrites a whole array output (length 3) that the caller reads afterwards.
subroutine rotate(c, x, y)
  real(8) c(2), x(3), y(3)
  y(1) = c(1)*x(1) - c(2)*x(2)
  y(2) = c(2)*x(1) + c(1)*x(2)*x(3)
  y(3) = x(3)*x(3)
end subroutine

subroutine chain(c, x, f, n)
  integer n, i
  real(8) c(2), x(3), f, w(3)
  f = 0
  do i = 1, n
    call rotate(c, x, w)
    f = f + w(1)*w(2)*w(3)
    call rotate(c, w, x)
    f = f + sin(x(1))*w(3)
  end do
end subroutine
