subroutine f(x, y, n)
  integer n, i
  real(8) x(n), y
  real(8), allocatable :: t(:)
  allocate(t(n))
  do i = 1, n
    t(i) = x(i) * x(i)
  end do
  y = t(1) + t(n)
  deallocate(t)
end subroutine
