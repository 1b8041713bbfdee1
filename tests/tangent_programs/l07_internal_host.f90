! Internal procedures (CONTAINS in a subroutine) reading and writing active variables of
! their host by host association: an argument, a local array and a local scalar
subroutine f(x, y, n)
  integer n, i
  real(8) x(n), y, w, acc(3)
  w = 2.0d0
  acc = 0.0d0
  y = 0
  do i = 1, n
    y = y + g(x(i))
    call gather(i)
  end do
  call scale(y)
  y = y + acc(1)*acc(2) - acc(3)
contains
  real(8) function g(t)
    real(8) t
    g = w*sin(t)*t
  end function
  subroutine gather(k)
    integer k
    acc(mod(k, 3) + 1) = acc(mod(k, 3) + 1) + x(k)*w
    w = w + 0.1d0*x(k)
  end subroutine
  subroutine scale(z)
    real(8) z
    z = z*w + x(1)
  end subroutine
end subroutine
