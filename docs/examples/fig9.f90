! Paper fig. 9: activity. Independents a, b, c; dependents d, e.
subroutine fig9(a, b, c, d, e)
  real :: a, b, c, d, e
  real :: x
  x = a*b
  a = 5.0
  d = a*c
  e = a/x
  e = floor(e)
end subroutine fig9
