! Array constructors with implied DO loops (one nested): Chebyshev nodes and barycentric
! weights, the interpolation of samples at three points, and a small table.
! adspec-test: cheb_interp(f:r8[6], xs:r8[3], ys:r8[3], n:i4=6, tab:r8[12])
subroutine cheb_interp(f, xs, ys, n, tab)
  implicit none
  integer, intent(in) :: n
  real(8), intent(in) :: f(n), xs(3)
  real(8), intent(out) :: ys(3), tab(12)
  real(8), parameter :: pi = 3.141592653589793d0
  real(8) :: nodes(n), w(n), num, den, d
  integer :: i, j, k
  nodes = (/ (cos((2 * i - 1) * pi / (2 * n)), i = 1, n) /)
  w = (/ ((-1)**(i - 1) * sin((2 * i - 1) * pi / (2 * n)), i = 1, n) /)
  do k = 1, 3
    num = 0.0d0
    den = 0.0d0
    do j = 1, n
      d = 2.0d0 * xs(k) - 2.0d0 - nodes(j) + 1.0d-3
      num = num + w(j) * f(j) / d
      den = den + w(j) / d
    end do
    ys(k) = num / den
  end do
  tab = (/ ((dble(i) * nodes(j), i = 1, 2), j = 1, 6) /)
  tab(1:4) = (/ 1.0d0, (ys(i), i = 1, 3) /)
  tab(9:12) = (/ (sum(w(1:i)), i = 3, 6) /)
end subroutine cheb_interp
