subroutine f(a, x)
  real(8) a, x
  integer k
  x = 1.0d0
  do k = 1, 6
    x = x - (x * x * x - a) / (3.0d0 * x * x)
  end do
end subroutine
