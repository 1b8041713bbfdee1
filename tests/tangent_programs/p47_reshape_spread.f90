! RESHAPE (with an active pad and an ORDER) and SPREAD: data movement, the derivative moves the
! same way
subroutine f(x, p, y)
  real(8) x(6), p(2), y, a(2, 3), b(3, 2), c(3, 4)
  a = reshape(x, [2, 3])
  b = reshape(x(1:4), [3, 2], pad=p, order=[2, 1])
  c = spread(x(1:3), 2, 4) * spread(p(1) * x(4:6), 2, 4)
  y = sum(a * transpose(b)) + sum(c) + sum(reshape(a, [3, 2]) * b)
end subroutine
