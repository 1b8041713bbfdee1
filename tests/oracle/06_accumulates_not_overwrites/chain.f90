! Potential energy of a chain of springs of stiffness k and rest length 1.
subroutine spring(a, b, k, s)
  implicit none
  real(8), intent(in) :: a, b, k
  real(8), intent(out) :: s
  s = 0.5d0 * k * (b - a - 1.0d0)**2
end subroutine spring

subroutine chain_energy(n, x, k, e)
  implicit none
  integer, intent(in) :: n
  real(8), intent(in) :: x(n), k
  real(8), intent(out) :: e
  real(8) :: s
  integer :: i
  e = 0.0d0
  do i = 1, n - 1
    call spring(x(i), x(i + 1), k, s)
    e = e + s
  end do
end subroutine chain_energy
