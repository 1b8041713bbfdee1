subroutine f(a, x)
  real(8) a, x, dx
  integer it
  x = a
  dx = 1.0d0
  it = 0
  do while (abs(dx) > 1.0d-13 .and. it < 50)
    dx = (x * x - a) / (2.0d0 * x)
    x = x - dx
    it = it + 1
  end do
end subroutine
