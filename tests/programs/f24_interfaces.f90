! INTERFACE blocks: an explicit interface for an external procedure (matvec), a generic name
! whose two specifics are external procedures with arguments of different types (rescale),
! and a generic name over module procedures (dot). Power iteration for the dominant
! eigenvalue of a matrix.
! adspec-test: power_iter(a:r8[16], x:r8[4], n:i4=4, niter:i4=6, lambda:r8, count:i4)
module vec_ops
  implicit none
  interface dot
    module procedure dot_r8, dot_i4
  end interface
contains
  real(8) function dot_r8(x, y, n)
    integer, intent(in) :: n
    real(8), intent(in) :: x(n), y(n)
    dot_r8 = sum(x * y)
  end function dot_r8

  integer function dot_i4(k, l, n)
    integer, intent(in) :: n
    integer, intent(in) :: k(n), l(n)
    dot_i4 = sum(k * l)
  end function dot_i4
end module vec_ops

subroutine matvec(a, x, y, n)
  implicit none
  integer, intent(in) :: n
  real(8), intent(in) :: a(n, n), x(n)
  real(8), intent(out) :: y(n)
  integer :: i
  do i = 1, n
    y(i) = sum(a(i, :) * x)
  end do
end subroutine matvec

subroutine scale_r8(x, n, factor)
  implicit none
  integer, intent(in) :: n
  real(8), intent(inout) :: x(n)
  real(8), intent(in) :: factor
  x = x * factor
end subroutine scale_r8

subroutine scale_i4(k, n, factor)
  implicit none
  integer, intent(in) :: n
  integer, intent(inout) :: k(n)
  integer, intent(in) :: factor
  k = k * factor
end subroutine scale_i4

subroutine power_iter(a, x, n, niter, lambda, count)
  use vec_ops
  implicit none
  integer, intent(in) :: n, niter
  real(8), intent(in) :: a(n, n)
  real(8), intent(inout) :: x(n)
  real(8), intent(out) :: lambda
  integer, intent(out) :: count
  interface
    subroutine matvec(a, x, y, n)
      integer, intent(in) :: n
      real(8), intent(in) :: a(n, n), x(n)
      real(8), intent(out) :: y(n)
    end subroutine matvec
  end interface
  interface rescale
    subroutine scale_r8(x, n, factor)
      integer, intent(in) :: n
      real(8), intent(inout) :: x(n)
      real(8), intent(in) :: factor
    end subroutine scale_r8
    subroutine scale_i4(k, n, factor)
      integer, intent(in) :: n
      integer, intent(inout) :: k(n)
      integer, intent(in) :: factor
    end subroutine scale_i4
  end interface
  real(8) :: y(n)
  integer :: flags(n), it
  flags = 1
  lambda = 0.0d0
  do it = 1, niter
    call matvec(a, x, y, n)
    lambda = dot(x, y, n) / dot(x, x, n)
    call rescale(y, n, 1.0d0 / sqrt(dot(y, y, n)))
    x = y
    call rescale(flags, n, 2)
  end do
  count = dot(flags, flags, n)
end subroutine power_iter
