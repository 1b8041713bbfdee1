! DOT_PRODUCT and MATMUL: the product rule, each argument's derivative in turn
subroutine f(a, v, y, w, n)
  integer n
  real(8) a(n, n), v(n), y, w(n), b(n, n)
  b = matmul(a, transpose(a))
  w = matmul(b, v) + matmul(v, a)
  y = dot_product(v, w) + dot_product(v, matmul(a, v))
end subroutine
