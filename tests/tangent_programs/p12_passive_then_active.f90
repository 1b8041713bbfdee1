subroutine f(x, y, z)
  real(8) x, y, z
  real(8) t
  t = x * 2.0d0
  z = t * t
  t = 0.0d0
  z = z + t
  t = 3.0d0
  t = t + x
  y = 0.0d0
  y = y + t * z
  y = y + sin(t)
end subroutine
