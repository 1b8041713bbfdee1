! External procedures with assumed-shape dummies, declared to the caller by an interface
! block: the differentiated caller needs an explicit interface for foo_d and norm_d too
subroutine smooth(x, y)
  real(8), intent(in) :: x(:)
  real(8), intent(inout) :: y(:)
  integer i
  do i = 2, size(x) - 1
    y(i) = y(i) + 0.25d0*(x(i-1) + 2*x(i) + x(i+1))*y(i)
  end do
end subroutine

function energy(v) result(e)
  real(8), intent(in) :: v(:)
  real(8) :: e
  e = sum(v*v)
end function

subroutine f(x, y, s, n)
  integer n
  real(8) x(n), y(n), s
  interface
    subroutine smooth(x, y)
      real(8), intent(in) :: x(:)
      real(8), intent(inout) :: y(:)
    end subroutine
    function energy(v) result(e)
      real(8), intent(in) :: v(:)
      real(8) :: e
    end function
  end interface
  call smooth(x, y)
  s = energy(y(2:n)) + s*energy(x)
end subroutine
