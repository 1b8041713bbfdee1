! Jumps out of a DO loop and over active statements inside it, to active targets.
subroutine f(x, y, n)
  integer n, i
  real(8) x(n), y
  y = 0.0d0
  do i = 1, n
    if (x(i) > 1.3d0) goto 20
    if (i == 2) goto 10
    y = y + x(i)**2
10  y = y * x(i) + 0.25d0
  end do
  y = y + 1.0d0
  goto 30
20 y = y - x(1)*x(n)
30 y = sqrt(y*y + 1.0d0)
end subroutine
