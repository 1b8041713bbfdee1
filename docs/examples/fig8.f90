! Paper fig. 8 and 13 (sections 4.5 and 4.10): two calls of foo, where only x, y, z and t
! have a derivative. foo overwrites a and x: a checkpointed call must restore them.
function foo(a, x, t)
  real(8) :: foo, a, x, t
  foo = sin(a*x)*t
  a = 2*a
  x = x*t
end function foo

subroutine top(a, x, z, t, y, b, c)
  real(8) :: a, x, z, t, y, b, c
  real(8) :: foo
  y = foo(a, x, 2.5d0)
  b = foo(c, z, t)
end subroutine top
