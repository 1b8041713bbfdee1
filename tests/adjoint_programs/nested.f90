! A call inside a loop inside a call inside a loop.
subroutine inner(a, n, s)
  integer n, i
  real(8) a(n), s
  do i = 1, n
    s = s + sin(a(i))*s
    a(i) = a(i)*s
  end do
end subroutine

subroutine mid(a, n, s)
  integer n
  real(8) a(n), s
  call inner(a, n, s)
  s = s*s
end subroutine

subroutine top(a, n, s)
  integer n, k
  real(8) a(n), s
  do k = 1, 2
    call mid(a, n, s)
  end do
end subroutine
