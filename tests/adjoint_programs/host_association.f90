! Internal subroutines reading and overwriting active variables of their host (a local
! scalar the host reads before the call, a local array, an argument), called in a loop.
subroutine f(x, y, n)
  integer n, i
  real(8) x(n), y, w, acc(3), t
  w = x(1)
  acc = 0.0d0
  y = 0
  do i = 1, n
    t = w*w
    call gather(i)
    y = y + t*w
  end do
  call scale(y)
  y = y + acc(1)*acc(2) - acc(3)*w
contains
  subroutine gather(k)
    integer k
    acc(mod(k, 3) + 1) = acc(mod(k, 3) + 1) + x(k)*w
    w = sin(w) + 0.1d0*x(k)
  end subroutine
  subroutine scale(v)
    real(8) v
    v = v*cos(w) - x(2)*w
  end subroutine
end subroutine
