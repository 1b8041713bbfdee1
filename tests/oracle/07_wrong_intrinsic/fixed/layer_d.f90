! Differentiation of activate in forward (tangent) mode:
!   RW status of diff variables: z:in a:out
subroutine activate_d(n, z, zd, a, ad)
   implicit none
   integer, intent(in) :: n
   real(8), intent(in) :: z(n)
   real(8), intent(in) :: zd(n)
   real(8), intent(out) :: a(n)
   real(8), intent(out) :: ad(n)
   integer :: i
   ad = 0.0d0
   do i = 1, n
      ad(i) = (1.0d0 - tanh(z(i))**2)*zd(i)
      a(i) = tanh(z(i))
   end do
end subroutine activate_d

! Differentiation of layer in forward (tangent) mode:
!   variations   of useful results: y r
!   with respect to varying inputs: w b
!   RW status of diff variables: w:in b:in y:out r:out
subroutine layer_d(n, w, wd, b, bd, x, y, yd, r, rd)
   implicit none
   integer, intent(in) :: n
   real(8), intent(in) :: w(n), b, x(n)
   real(8), intent(in) :: wd(n), bd
   real(8), intent(out) :: y, r
   real(8), intent(out) :: yd, rd
   real(8) :: z(n), a(n)
   real(8) :: zd(n), ad(n)
   integer :: i
   zd = 0.0d0
   ad = 0.0d0
   do i = 1, n
      zd(i) = x(i)*wd(i) + bd
      z(i) = w(i)*x(i) + b
   end do
   call activate_d(n, z, zd, a, ad)
   yd = 0.0d0
   y = 0.0d0
   rd = 0.0d0
   r = 0.0d0
   do i = 1, n
      yd = yd + ad(i)
      y = y + a(i)
      rd = rd + 2.0d0*w(i)*wd(i)
      r = r + w(i)*w(i)
   end do
   rd = 1.0d0/(2.0d0*sqrt(r))*rd
   r = sqrt(r)
end subroutine layer_d
