! One dense layer with a tanh activation, and the norm of its weights.
subroutine activate(n, z, a)
  implicit none
  integer, intent(in) :: n
  real(8), intent(in) :: z(n)
  real(8), intent(out) :: a(n)
  integer :: i
  do i = 1, n
    a(i) = tanh(z(i))
  end do
end subroutine activate

subroutine layer(n, w, b, x, y, r)
  implicit none
  integer, intent(in) :: n
  real(8), intent(in) :: w(n), b, x(n)
  real(8), intent(out) :: y, r
  real(8) :: z(n), a(n)
  integer :: i
  do i = 1, n
    z(i) = w(i) * x(i) + b
  end do
  call activate(n, z, a)
  y = 0.0d0
  r = 0.0d0
  do i = 1, n
    y = y + a(i)
    r = r + w(i) * w(i)
  end do
  r = sqrt(r)
end subroutine layer
