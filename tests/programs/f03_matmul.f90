! Two-dimensional arrays, matmul, transpose, nested loops with negative steps.
! adspec-test: matops(m:r8[3,3], v:r8[3], r:r8[3,3], t:r8)
subroutine matops(m, v, r, t)
  implicit none
  real(8), intent(in) :: m(3, 3), v(3)
  real(8), intent(out) :: r(3, 3)
  real(8), intent(inout) :: t
  real(8) :: mv(3), tmp(3, 3)
  integer :: i, j

  tmp = transpose(m)
  r = matmul(m, tmp)
  mv = matmul(m, v)
  do j = 3, 1, -1
    do i = 1, 3
      r(i, j) = r(i, j) + mv(i) * v(j) - real(i - j, 8)
    end do
  end do
  t = t + sum(r(2, :)) + sum(r(:, 3)) + dot_product(mv, v)
  r(1:2, 2:3) = r(1:2, 2:3) / t
end subroutine matops
