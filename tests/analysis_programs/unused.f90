subroutine unused(x, y, w)
  real(8) :: x, y, w
  y = 2.0d0 * x
end subroutine unused
