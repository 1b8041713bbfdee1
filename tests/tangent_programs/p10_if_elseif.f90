subroutine f(x, z, y)
  real(8) x, z, y
  if (x > 1.2d0) then
    y = x * z
  else if (x > 0.8d0) then
    y = x + z * z
  else if (z < 0.7d0) then
    y = exp(x)
  else
    y = x / z
  end if
  if (z > 1.0d0) y = y * 2.0d0 + x
end subroutine
