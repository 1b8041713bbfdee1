! Fortran callers of the adspec runtime: CALL PUSHREAL8(x) and the rest link with the
! entry points of backends/runtime/adStack.c. Prints "ok fortran" or the failed checks.
program stack_check
  use iso_c_binding, only: c_ptr, c_loc, c_associated
  implicit none
  integer, parameter :: n = 4000
  real(8), target :: x, a(7), b(7)
  type(c_ptr) :: p
  complex(8) :: z, zz(3)
  complex(4) :: w, ww(2)
  real(4) :: y, f(3), g(3)
  integer :: i, k, cc, m(5), mm(5)
  integer(8) :: j, l(2), ll(2)
  logical :: t
  character :: ch, s(4), ss(4)
  integer(8), external :: adstack_totalbytes, adstack_peakbytes, adstack_currentbytes
  logical, external :: adstack_isempty
  integer :: failures = 0

  do i = 1, n
    x = 1.5d0 * i
    a = [(x + k, k = 1, 7)]
    f = [(real(i - k, 4), k = 1, 3)]
    m = [(i * k, k = 1, 5)]
    l = [int(i, 8) * 3000000000_8, -int(i, 8)]
    s = ['a', 'b', achar(mod(i, 26) + 65), 'd']
    call pushreal8(x)
    call pushcontrol1b(mod(i, 2))
    call pushreal4(real(i, 4) / 8)
    call pushcontrol2b(mod(i, 4))
    call pushinteger4(-i)
    call pushcontrol3b(mod(i, 8))
    call pushinteger8(int(i, 8) * 1000000007_8)
    call pushcontrol8b(mod(i, 256))
    call pushboolean(mod(i, 3) == 0)
    call pushcharacter(achar(mod(i, 26) + 97))
    call pushreal8array(a, 7)
    call pushreal4array(f, 3)
    call pushinteger4array(m, 5)
    call pushinteger8array(l, 2)
    call pushcharacterarray(s, 4)
  end do
  ! per iteration: 8+4+4+8+1 + 56+12+20+16+4 bytes and 1+2+3+8+1 bits
  call check(adstack_totalbytes() == n * 133_8 + (n * 15_8 / 32) * 4, 'traffic')
  call check(adstack_peakbytes() == adstack_totalbytes(), 'peak')
  call check(adstack_currentbytes() == adstack_totalbytes(), 'current')
  call lookreal8array(b, 0)
  call adstack_resetlook()
  call adstack_startrepeat()
  call popcharacterarray(ss, 4)
  call popinteger8array(ll, 2)
  call adstack_resetrepeat()
  call adstack_endrepeat()
  do i = n, 1, -1
    call popcharacterarray(ss, 4)
    call check(all(ss == ['a', 'b', achar(mod(i, 26) + 65), 'd']), 'character array')
    call popinteger8array(ll, 2)
    call check(all(ll == [int(i, 8) * 3000000000_8, -int(i, 8)]), 'integer8 array')
    call popinteger4array(mm, 5)
    call check(all(mm == [(i * k, k = 1, 5)]), 'integer4 array')
    call popreal4array(g, 3)
    call check(all(g == [(real(i - k, 4), k = 1, 3)]), 'real4 array')
    call lookreal8array(b, 7)
    call popreal8array(a, 7)
    call check(all(a == [(1.5d0 * i + k, k = 1, 7)]) .and. all(a == b), 'real8 array')
    call popcharacter(ch)
    call check(ch == achar(mod(i, 26) + 97), 'character')
    call popboolean(t)
    call check(t .eqv. (mod(i, 3) == 0), 'boolean')
    call popcontrol8b(cc)
    call check(cc == mod(i, 256), 'control8b')
    call popinteger8(j)
    call check(j == int(i, 8) * 1000000007_8, 'integer8')
    call popcontrol3b(cc)
    call check(cc == mod(i, 8), 'control3b')
    call popinteger4(k)
    call check(k == -i, 'integer4')
    call popcontrol2b(cc)
    call check(cc == mod(i, 4), 'control2b')
    call popreal4(y)
    call check(y == real(i, 4) / 8, 'real4')
    call popcontrol1b(cc)
    call check(cc == mod(i, 2), 'control1b')
    call popreal8(x)
    call check(x == 1.5d0 * i, 'real8')
  end do
  ! complex values: 16 and 8 bytes
  call pushcomplex16(cmplx(1.5d0, -2.5d0, 8))
  call pushcomplex16array([(cmplx(k, -k, 8), k = 1, 3)], 3)
  call pushcomplex8(cmplx(0.5, 4.0))
  call pushcomplex8array([cmplx(1.0, 2.0), cmplx(3.0, 4.0)], 2)
  call check(adstack_totalbytes() == n * 133_8 + (n * 15_8 / 32) * 4 + 16 + 48 + 8 + 16, 'complex traffic')
  call popcomplex8array(ww, 2)
  call check(all(ww == [cmplx(1.0, 2.0), cmplx(3.0, 4.0)]), 'complex8 array')
  call popcomplex8(w)
  call check(w == cmplx(0.5, 4.0), 'complex8')
  call lookcomplex16array(zz, 3)
  call popcomplex16array(zz, 3)
  call check(all(zz == [(cmplx(k, -k, 8), k = 1, 3)]), 'complex16 array')
  call popcomplex16(z)
  call check(z == cmplx(1.5d0, -2.5d0, 8), 'complex16')
  ! a pointer, as Tapenade's Fortran saves one: CALL PUSHPOINTER8(C_LOC(a))
  call pushpointer8(c_loc(a))
  call pushpointer8(c_loc(b))
  call poppointer8(p)
  call check(c_associated(p, c_loc(b)), 'pointer b')
  call poppointer8(p)
  call check(c_associated(p, c_loc(a)), 'pointer a')
  call check(adstack_isempty(), 'empty at the end')
  call check(adstack_currentbytes() == 0_8, 'nothing in use')
  call adstack_showstack('end of check')
  if (failures == 0) print '(a)', 'ok fortran'
  if (failures /= 0) stop 1

contains

  subroutine check(cond, what)
    logical, intent(in) :: cond
    character(*), intent(in) :: what
    if (.not. cond) then
      failures = failures + 1
      if (failures < 10) print '(2a)', 'FAILED ', what
    end if
  end subroutine check

end program stack_check
