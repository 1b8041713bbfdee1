! a helper that overwrites only a section w(k:k+m-1) of its assumed-size array, which the
! caller reads afterwards; called with -nocheckpoint, its P_fwd saves that section at its exit
subroutine bend(w, k, m, a)
  integer k, m, i
  real(8) w(*), a
  do i = k, k + m - 1
    w(i) = a * sin(w(i)) + w(i) * w(i)
  end do
end subroutine

subroutine band(u, x, y, n)
  integer n, j
  real(8) u(n), x(2), y
  call bend(u, 3, 3, x(2))
  call bend(u(2), 1, 2, x(1))
  y = 0.0d0
  do j = 1, n
    y = y + u(j) * u(j) * x(2)
  end do
end subroutine
