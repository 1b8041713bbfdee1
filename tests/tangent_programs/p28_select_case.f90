subroutine f(x, y, k)
  integer k
  real(8) x, y
  select case (k)
  case (1)
    y = x * x
  case (2, 3)
    y = sin(x) * x
  case default
    y = 0.0d0
  end select
  y = y + x
end subroutine
