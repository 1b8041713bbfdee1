! The 10-line program with three GOTOs: each GOTO targets an active assignment.
subroutine f(x, y)
  real(8) x, y
  y = x
  if (x > 0.0d0) goto 10
  y = y * x
10 y = y * x + sin(y)
  if (y > 100.0d0) goto 30
  goto 20
20 y = y * y
30 y = y + x
end subroutine
