subroutine sq(u, v)
  real(8) u, v
  v = u * u + sin(u)
end subroutine

subroutine f(x, y)
  real(8) x, y, t
  call sq(x, t)
  call sq(t, y)
  y = y + x
end subroutine
