! Differentiation of spring in reverse (adjoint) mode:
!   RW status of diff variables: a:incr b:incr k:incr s:in-zero
subroutine spring_b(a, ab, b, bb, k, kb, s, sb)
   implicit none
   real(8), intent(in) :: a, b, k
   real(8) :: ab, bb, kb
   real(8), intent(out) :: s
   real(8) :: sb
   real(8) :: tempb
   real(8) :: temp
   temp = b - a - 1.0d0
   kb = kb + 0.5d0*(temp**2*sb)
   tempb = 2.0d0*temp*(0.5d0*k*sb)
   bb = bb + tempb
   ab = ab - tempb
   sb = 0.0d0
end subroutine spring_b

! Differentiation of chain_energy in reverse (adjoint) mode:
!   gradient     of useful results: e
!   with respect to varying inputs: x k
!   RW status of diff variables: x:incr k:out e:in-zero
subroutine chain_energy_b(n, x, xb, k, kb, e, eb)
   implicit none
   integer, intent(in) :: n
   real(8), intent(in) :: x(n), k
   real(8) :: xb(n), kb
   real(8), intent(out) :: e
   real(8) :: eb
   real(8) :: s
   real(8) :: sb
   integer :: i
   real(8) :: xb0
   integer(4) :: ad_from
   integer(4) :: ad_to
   integer(4) :: ad_stride
   ad_from = 1
   ad_stride = 1
   do i = ad_from, n - 1, ad_stride
      call pushinteger4(i)
   end do
   call pushinteger4(i - ad_stride)
   call pushinteger4(ad_from)
   call pushinteger4(ad_stride)
   kb = 0.0d0
   sb = 0.0d0
   call popinteger4(ad_stride)
   call popinteger4(ad_from)
   call popinteger4(ad_to)
   do i = ad_to, ad_from, -ad_stride
      sb = sb + eb
      call popinteger4(i)
      xb0 = 0.0d0
      call spring_b(x(i), xb(i), x(i + 1), xb0, k, kb, s, sb)
      xb(i + 1) = xb(i + 1) + xb0
   end do
   eb = 0.0d0
end subroutine chain_energy_b
