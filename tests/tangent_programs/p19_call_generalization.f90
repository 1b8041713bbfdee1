subroutine g(u, v)
  real(8) u, v
  v = u * exp(u)
end subroutine

subroutine f(x, y)
  real(8) x, y, t, s
  call g(x, t)
  call g(2.0d0, s)
  y = t * s
end subroutine
