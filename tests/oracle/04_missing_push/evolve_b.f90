! Differentiation of sweep in reverse (adjoint) mode:
!   RW status of diff variables: u:in-out c:incr
subroutine sweep_b(n, u, ub, c, cb)
   implicit none
   integer, intent(in) :: n
   real(8), intent(inout) :: u(n)
   real(8) :: ub(n)
   real(8), intent(in) :: c
   real(8) :: cb
   integer :: i
   integer(4) :: ad_from
   integer(4) :: ad_to
   integer(4) :: ad_stride
   real(8) :: tempb
   real(8) :: temp
   ad_from = 2
   ad_stride = 1
   do i = ad_from, n, ad_stride
      u(i) = u(i) + c*sin(u(i - 1))*u(i)
   end do
   ad_to = n
   do i = ad_to, ad_from, -ad_stride
      temp = sin(u(i - 1))
      tempb = u(i)*ub(i)
      cb = cb + temp*tempb
      ub(i - 1) = ub(i - 1) + cos(u(i - 1))*(c*tempb)
      ub(i) = ub(i) + c*temp*ub(i)
   end do
end subroutine sweep_b

! Differentiation of evolve in reverse (adjoint) mode:
!   gradient     of useful results: e
!   with respect to varying inputs: u c
!   RW status of diff variables: u:out c:out e:in-zero
subroutine evolve_b(n, u, ub, c, cb, e, eb)
   implicit none
   integer, intent(in) :: n
   real(8), intent(inout) :: u(n)
   real(8) :: ub(n)
   real(8), intent(in) :: c
   real(8) :: cb
   real(8), intent(out) :: e
   real(8) :: eb
   integer :: i
   integer(4) :: ad_from0
   integer(4) :: ad_to0
   integer(4) :: ad_stride0
   real(8) :: tempb0
   call pushreal8array(u, n)
   call sweep(n, u, c)
   call pushreal8array(u, n)
   call sweep(n, u, c)
   ad_from0 = 1
   ad_stride0 = 1
   do i = ad_from0, n, ad_stride0
   end do
   call pushinteger4(i - ad_stride0)
   call pushinteger4(ad_from0)
   call pushinteger4(ad_stride0)
   ub = 0.0d0
   cb = 0.0d0
   call popinteger4(ad_stride0)
   call popinteger4(ad_from0)
   call popinteger4(ad_to0)
   do i = ad_to0, ad_from0, -ad_stride0
      tempb0 = u(i)*eb
      ub(i) = ub(i) + tempb0 + tempb0
   end do
   eb = 0.0d0
   call popreal8array(u, n)
   call sweep_b(n, u, ub, c, cb)
   call popreal8array(u, n)
   call sweep_b(n, u, ub, c, cb)
end subroutine evolve_b
