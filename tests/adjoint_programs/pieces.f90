! Pieces of code between the CHECKPOINT-START and CHECKPOINT-END directives (TAPENADE.md).
! relax: a time loop whose body is checkpointed; the piece ends at the end of the loop body.
subroutine relax(n, nt, u, c, e)
  implicit none
  integer, intent(in) :: n, nt
  real(8), intent(inout) :: u(n)
  real(8), intent(in) :: c
  real(8), intent(out) :: e
  real(8) :: w(n), t
  integer :: it, i, k
  e = 0
  do it = 1, nt
    !$AD CHECKPOINT-START
    do k = 1, 3
      do i = 2, n - 1
        w(i) = u(i) + c * (u(i - 1) - 2 * u(i) + u(i + 1))
      end do
      do i = 2, n - 1
        t = w(i)
        u(i) = t * cos(t) + u(i)
      end do
    end do
    if (u(1) > 0) then
      u(1) = sqrt(u(1) + u(2)**2)
    else
      u(1) = u(1) * u(2)
    end if
    !$AD CHECKPOINT-END
  end do
  !$AD CHECKPOINT-START
  t = 0
  do i = 1, n
    t = t + u(i)**2
  end do
  !$AD CHECKPOINT-END
  !$AD CHECKPOINT-START
  e = e + sin(t) * c
  t = t * 2
  !$AD CHECKPOINT-END
  e = e + t
end subroutine

! fval: a function with a piece that writes the function's value, two pieces back to back
real(8) function fval(x, y)
  implicit none
  real(8) :: x, y
  real(8) :: a
  a = x * y
  !$AD CHECKPOINT-START
  fval = sin(a) * x
  a = a * fval
  !$AD CHECKPOINT-END
  !$AD CHECKPOINT-START
  fval = fval + a * a
  !$AD CHECKPOINT-END
  fval = fval * y
end function
