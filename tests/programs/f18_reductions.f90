! More array intrinsics: maxloc/minloc, count, any/all, merge, matmul with vectors,
! array constructors with expressions, 2-D sections and lbound/ubound.
! adspec-test: reduce(a:r8[4,3], v:r8[4], out:r8[5], idx:i4[2])
subroutine reduce(a, v, out, idx)
  implicit none
  real(8) :: a(4, 3), v(4), out(5)
  integer :: idx(2)
  real(8) :: col(3), row(4)
  integer :: loc(1)

  col = matmul(v, a)
  row = sum(a, dim=2)
  loc = maxloc(v)
  idx(1) = loc(1) + count(a > 1.0d0)
  loc = minloc(row)
  idx(2) = loc(1) * 10 + ubound(a, 2) - lbound(a, 1)
  out = (/ maxval(col), minval(row), sum(a(2:3, 1:2)), &
           merge(1.0d0, -1.0d0, any(v > 1.4d0)), &
           merge(2.0d0, 0.0d0, all(a(:, 1) > 0.0d0)) /)
  out(1:4) = out(1:4) + v * col(1)
  a(:, 2) = a(:, 3) - row
end subroutine reduce
