subroutine f(x, y)
  real(8) x, y
  integer it
  y = x
  it = 0
  do while (it < 5)
    y = 0.5d0 * (y + x / y)
    it = it + 1
  end do
end subroutine
