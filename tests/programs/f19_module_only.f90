! Two modules: USE with ONLY, module arrays, module procedures calling each other,
! a module function used in an expression, an allocatable module array.
module grid_data
  implicit none
  integer, parameter :: npts = 5
  real(8) :: xs(npts)
  real(8), allocatable :: weights(:)
end module grid_data

module grid_ops
  use grid_data, only: npts, xs, weights
  implicit none
contains
  subroutine setup(x0, h)
    real(8), intent(in) :: x0, h
    integer :: i
    if (.not. allocated(weights)) allocate(weights(npts))
    do i = 1, npts
      xs(i) = x0 + (i - 1) * h
      weights(i) = 1.0d0 / i
    end do
  end subroutine setup

  real(8) function quad(f)
    real(8), intent(in) :: f(npts)
    quad = sum(weights * f) + xs(npts) - xs(1)
  end function quad
end module grid_ops

! adspec-test: integrate(x0:r8, h:r8=0.25, vals:r8[5], q:r8)
subroutine integrate(x0, h, vals, q)
  use grid_ops, only: setup, quad
  use grid_data
  implicit none
  real(8) :: x0, h, vals(5), q
  call setup(x0, h)
  vals = vals * xs
  q = quad(vals) + quad(xs * xs)
  deallocate(weights)
end subroutine integrate
