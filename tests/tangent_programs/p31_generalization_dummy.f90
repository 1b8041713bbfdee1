subroutine g2(u, w, v)
  real(8) u, w, v
  v = u * w + sin(u) * w
end subroutine

subroutine f(x, y)
  real(8) x, y, t, s, c
  c = 0.7d0
  call g2(x, x, t)
  call g2(c, x, s)
  y = t * s
end subroutine
