subroutine f(b, c, a, y, n)
  integer n
  real(8) b(n), c(n), a(n), y
  a = b * c + sin(b)
  y = sum(a * a)
end subroutine
