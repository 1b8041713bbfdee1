! A function returning a derived type (a module procedure, so that its interface is explicit),
! called as a whole right-hand side and nested in expressions (split out to a result temporary);
! q%im is a constant where z%im is varied (same formal), c is a passive structure (dummy zero).
module complexes
  implicit none
  type cplx
    real(8) :: re, im
  end type
contains
  function cmul(a, b) result(r)
    type(cplx), intent(in) :: a, b
    type(cplx) :: r
    r%re = a%re * b%re - a%im * b%im
    r%im = a%re * b%im + a%im * b%re
  end function

  function cnorm(a) result(s)
    type(cplx), intent(in) :: a
    real(8) :: s
    s = sqrt(a%re * a%re + a%im * a%im)
  end function
end module

subroutine f(x, y)
  use complexes
  real(8) x(2), y
  type(cplx) p, q, z, c
  p%re = x(1)
  p%im = x(2)
  q%re = x(1) * x(2)
  q%im = 0.5d0
  z = cmul(p, q)
  y = cnorm(cmul(p, z)) * x(1)
  y = y + cnorm(z) + 2.0d0 * cnorm(cmul(z, q))
  c%re = 0.25d0
  c%im = -1.5d0
  y = y + cnorm(cmul(c, p))
end subroutine
