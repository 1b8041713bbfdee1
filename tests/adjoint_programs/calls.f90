! Calls in adjoint mode: subroutines, functions in expressions, a passive helper, expression
! and passive actual arguments, an index that a later call changes.
subroutine sq(x, y)
  real(8) x, y
  y = y + x*x
  x = sin(x)
end subroutine

real(8) function poly(x, c)
  real(8) x, c
  poly = c*x*x + exp(x)
end function

subroutine pick(k, n)
  integer k, n
  k = mod(k*7 + 3, n) + 1
end subroutine

subroutine zero(t)
  real(8) t
  t = 0
end subroutine

subroutine f(a, n, b, y)
  integer n, k, i
  real(8) a(n), b, y, t, poly
  k = 1
  t = a(1)*b
  call sq(t, y)
  y = y*t + poly(b, 2.5d0)*poly(t*b, a(2))
  do i = 1, n
    call sq(a(k), y)
    y = y + a(k)*b
    call pick(k, n)
  end do
  call sq(2*b + a(2), y)
  call zero(t)
  t = t + a(3)
  y = y + t*t
end subroutine
