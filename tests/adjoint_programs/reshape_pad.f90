! RESHAPE with pad= and order= in adjoint mode: pad repeated several times, an order of rank 3,
! a source longer than the result, and a RESHAPE summed whole (its adjoint a scalar).
subroutine f(x, p, y)
  real(8) x(5), p(2), y, r(2, 3, 2), s(2, 2)
  integer k
  r = reshape(x, [2, 3, 2], pad=p, order=[3, 1, 2])
  s = reshape(x, [2, 2], p, [2, 1])
  y = sum(r * r * reshape([(1.0d0 * k, k = 1, 12)], [2, 3, 2])) + sum(s**3) + sum(reshape(p, [3], pad=x(1:1))) * x(2)
end subroutine
