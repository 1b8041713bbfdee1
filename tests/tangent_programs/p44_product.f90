! PRODUCT: element i's partial is the product of the other elements, computed without
! dividing by x(i), so it is right where an element is zero (w(2) = 0 below)
subroutine f(x, y, n)
  integer n
  real(8) x(n), y, w(n)
  w = x - x(2)
  y = product(x) + 3.0d0*product(w) + product(x(1:n:2)) + product(w, mask=x > 0.8d0)
end subroutine
