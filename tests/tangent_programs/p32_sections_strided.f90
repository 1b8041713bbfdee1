subroutine f(b, x, a, n)
  integer n
  real(8) b(n), x, a(n)
  a(:) = 2.0d0 * b(:) + x
  a(2:n) = a(2:n) * a(1:n-1)
  a(1:n:2) = sqrt(a(1:n:2)) * x
  a(n:1:-3) = a(n:1:-3) + b(1:n:3)
end subroutine
