! Paper fig. 12: diff-liveness and TBR (arrays are atoms).
subroutine fig12(a, b, x, z, ind1, ind2, i)
  real :: a(10), b(10), x, z(10)
  integer :: ind1(10), ind2(10), i
  real :: c
  integer :: n
  n = ind1(i)
  b(n) = sin(a(n)) - b(n)
  a(n) = a(n) + x
  c = a(n)*b(n)
  a(n) = a(n)*a(n+1)
  n = ind2(i+2)
  z(n) = z(n) + c
end subroutine fig12
