! $AD directive comments before a call and before loops.
! adspec-test: smooth(u:r8[6], n:i4=6, e:r8)
subroutine smooth(u, n, e)
  implicit none
  integer :: n
  real(8) :: u(n), e
  real(8) :: tmp(n)
  integer :: i

  e = 0.0d0
  !$AD II-LOOP
  do i = 2, n - 1
    tmp(i) = 0.25d0 * u(i - 1) + 0.5d0 * u(i) + 0.25d0 * u(i + 1)
  end do
  tmp(1) = u(1)
  tmp(n) = u(n)
  !$AD NOCHECKPOINT
  call energy(tmp, n, e)
  !$AD II-LOOP
  do i = 1, n
    u(i) = tmp(i) - e / n
  end do
end subroutine smooth

subroutine energy(v, n, e)
  implicit none
  integer :: n
  real(8) :: v(n), e
  integer :: i
  do i = 1, n
    e = e + v(i) ** 2
  end do
  if (e > 1.0d3) return
  e = sqrt(e)
end subroutine energy
