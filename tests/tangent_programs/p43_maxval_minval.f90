! MAXVAL and MINVAL of an array, a section, an expression, under a mask: the derivative is the one of the
! first extreme element (a tie is warned about as a non-differentiable point)
subroutine f(x, y, n)
  integer n
  real(8) x(n), y, spread_
  spread_ = maxval(x) - minval(x)
  y = spread_ * maxval(x(2:n)) + minval(x*x + 1.0d0) / maxval(sin(x(1:n-1)) + 2.0d0*x(2:n)) &
      + maxval(x, mask=x < 1.0d0) * minval(x(1:n-1), mask=x(2:n) > 0.7d0)
end subroutine
