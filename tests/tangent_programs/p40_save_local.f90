! a SAVE local carries a value, and its derivative, from one call to the next
subroutine acc(x, y)
  real(8) x, y
  real(8), save :: s = 1.0d0
  y = s * x
  s = s * sin(x) + x
end subroutine

subroutine twice(x1, x2, y)
  real(8) x1, x2, y, y1
  call acc(x1, y1)
  call acc(x2, y)
  y = y + y1
end subroutine
