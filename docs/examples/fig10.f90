! Paper fig. 10 (section 4.7): tangent and vector tangent of g, which calls a function f.
function f(u)
  real :: f, u
  f = u*u
end function f

subroutine g(x, y)
  real :: x, y(*)
  real :: f
  external f
  x = x + y(2)
  x = x*x
  y(10) = x*f(y(9))
end subroutine g
