subroutine f(b, x, y, n)
  integer n
  real(8) b(n), x, y
  real(8) a(n)
  a(:) = 2.0d0 * b(:) + x
  a(2:n) = a(2:n) * a(1:n-1)
  y = sum(a)
end subroutine
