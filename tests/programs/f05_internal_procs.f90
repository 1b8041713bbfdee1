! Internal procedures (CONTAINS) using host variables, assumed-shape dummies,
! keyword arguments and an internal function.
! adspec-test: host(a:r8[5], n:i4=5, res:r8)
subroutine host(a, n, res)
  implicit none
  integer :: n
  real(8) :: a(n), res
  real(8) :: scale

  scale = 2.0d0
  call rescale(a, factor=scale)
  res = norm2sq(a) + weighted(a(2:4))
contains
  subroutine rescale(v, factor)
    real(8), intent(inout) :: v(:)
    real(8), intent(in) :: factor
    integer :: i
    do i = 1, size(v)
      v(i) = v(i) * factor + scale * 0.1d0
    end do
  end subroutine rescale

  real(8) function norm2sq(v)
    real(8), intent(in) :: v(:)
    norm2sq = sum(v * v)
  end function norm2sq

  function weighted(v) result(w)
    real(8), intent(in) :: v(:)
    real(8) :: w
    w = v(1) - 2.0d0 * v(2) + 3.0d0 * v(3) / scale
  end function weighted
end subroutine host
