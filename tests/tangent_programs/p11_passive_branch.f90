subroutine f(x, y, n)
  integer n, i
  real(8) x(n), y, t
  y = 0.0d0
  do i = 1, n
    if (mod(i, 2) == 0) then
      t = 1.0d0
    else
      t = x(i) * x(i)
    end if
    y = y + t * x(i)
  end do
end subroutine
