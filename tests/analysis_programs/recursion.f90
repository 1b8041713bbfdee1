! Direct and mutual recursion, and loops nested 4 deep.
recursive subroutine down(x, y, n)
  real(8) :: x, y
  integer :: n
  if (n > 0) then
    y = y + sin(x)
    call down(x, y, n - 1)
  else
    y = y * x
  end if
end subroutine down

recursive subroutine ping(u, v, n)
  real(8) :: u, v
  integer :: n
  if (n > 0) then
    call pong(v, u, n - 1)
  end if
  u = u + 1.0d0
end subroutine ping

recursive subroutine pong(p, q, n)
  real(8) :: p, q
  integer :: n
  p = p * q
  call ping(p, q, n)
end subroutine pong

subroutine nest4(a, s, n)
  real(8) :: a(n), s, t
  integer :: n, i, j, k, l
  t = 0.0d0
  do i = 1, n
    do j = 1, n
      do k = 1, n
        do l = 1, n
          t = t + a(l) * a(k)
        end do
      end do
    end do
  end do
  s = t
end subroutine nest4

subroutine top(x, y, u, v, a, s, n)
  real(8) :: x, y, u, v, a(n), s
  integer :: n
  call down(x, y, n)
  call ping(u, v, n)
  call nest4(a, s, n)
end subroutine top
