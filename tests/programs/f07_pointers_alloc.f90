! Fortran pointers (=> target, to scalars and array sections) and allocatables.
! adspec-test: ptrs(a:r8[6], n:i4=6, s:r8)
subroutine ptrs(a, n, s)
  implicit none
  integer :: n
  real(8), target :: a(n)
  real(8) :: s
  real(8), pointer :: p(:), q
  real(8), allocatable, target :: work(:)
  real(8), allocatable :: grid(:, :)
  real(8), target :: t
  integer :: i

  allocate(work(n), grid(2, 0:2))
  p => a(2:n:2)
  p = p * 3.0d0
  t = 1.5d0
  q => t
  q = q + a(1)
  if (associated(q)) s = q
  work = a * 2.0d0
  do i = 0, 2
    grid(1, i) = work(i + 1)
    grid(2, i) = work(n - i) - s
  end do
  s = s + sum(grid) + sum(work(1:3))
  p => null()
  p => work
  a = a + p
  deallocate(work)
  deallocate(grid)
end subroutine ptrs
