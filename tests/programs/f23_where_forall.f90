! WHERE / ELSEWHERE (mask) / ELSEWHERE and FORALL: one Jacobi smoothing sweep of a 2-D field
! written with FORALL (a plain one and one with a mask), then a ratio limiter with WHERE.
! adspec-test: smooth_limit(u:r8[25], r:r8[25], n:i4=5, lo:r8=0.9, hi:r8=1.1, s:r8)
subroutine smooth_limit(u, r, n, lo, hi, s)
  implicit none
  integer, intent(in) :: n
  real(8), intent(inout) :: u(n, n)
  real(8), intent(out) :: r(n, n), s
  real(8), intent(in) :: lo, hi
  real(8) :: v(n, n), phi(n, n)
  integer :: i, j
  v = u
  forall (i = 2:n - 1, j = 2:n - 1)
    v(i, j) = 0.25d0 * (u(i - 1, j) + u(i + 1, j) + u(i, j - 1) + u(i, j + 1))
  end forall
  ! the diagonal relaxes halfway only
  forall (i = 1:n, j = 1:n, i == j)
    v(i, j) = 0.5d0 * (v(i, j) + u(i, j))
  end forall
  r = v / u
  where (r < lo)
    phi = lo
    r = lo - 0.1d0 * (lo - r)
  elsewhere (r > hi)
    phi = hi
  elsewhere
    phi = r
  end where
  where (phi > 1.0d0) u = u * phi
  s = sum(u) + sum(r)
end subroutine smooth_limit
