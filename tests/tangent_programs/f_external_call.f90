subroutine f(x, y)
  real(8) x, y, t
  external g
  t = x * x
  call g(t, y)
  y = y * x
end subroutine
