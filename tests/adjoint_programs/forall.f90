! FORALL in adjoint mode: independent iterations become DO loops (a mask, two indices with a
! stride, two assignments where the second reads what the first wrote, an index named like a
! variable of the procedure, whose value the FORALL leaves alone).
subroutine f(x, y, n)
  integer n, i, j
  real(8) x(n), y(n), a(n, n), s
  i = 2
  forall (i = 1:n, j = 1:n:2, x(i) > 1) a(i, j) = x(i)*y(j)
  forall (j = 1:n, x(j) <= 1) a(j, :) = x(j)**2
  forall (j = 2:n:2) a(j, j) = 0
  forall (i = 2:n)
    y(i) = x(i - 1)**2 * y(i)
    x(i) = y(i) + sin(x(i))
  end forall
  s = 0
  do j = 1, n, 2
    s = s + sum(a(:, j)) * i
  end do
  y(1) = s + y(1)
end subroutine
