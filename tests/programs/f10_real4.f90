! Single-precision arithmetic only (no transcendental intrinsics), real(4) arrays.
! adspec-test: horner4(c:r4[5], x:r4, y:r4[3]) -> r4
real(4) function horner4(c, x, y)
  implicit none
  real(4) :: c(5), x, y(3)
  real :: acc, h
  integer :: i

  acc = 0.0
  do i = 5, 1, -1
    acc = acc * x + c(i)
  end do
  h = 0.5e0 * x
  y(1) = acc / (1.0 + h * h)
  y(2) = abs(acc - 2.5) + min(h, 0.7) * max(x, 1.1e0)
  y(3) = sum(c(2:4)) * 1.25 - real(3, 4) / 7.0
  y = y + 1.0e-2 * y(3)
  horner4 = acc + y(1) * y(2) - sign(0.25, h - 0.6)
end function horner4
