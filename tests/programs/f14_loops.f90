! Loop forms: DO with positive and negative steps, DO WHILE, DO without control
! with EXIT, CYCLE, nested loops.
! adspec-test: loops(a:r8[10], n:i4=10, s:r8, cnt:i4)
subroutine loops(a, n, s, cnt)
  implicit none
  integer :: n, cnt
  real(8) :: a(n), s
  integer :: i, j, k

  s = 0.0d0
  cnt = 0
  do i = 1, n, 3
    s = s + a(i)
  end do
  do i = n, 1, -2
    if (a(i) > 1.2d0) cycle
    s = s - 0.5d0 * a(i)
    cnt = cnt + 1
  end do
  k = 0
  do while (k < n .and. s < 100.0d0)
    k = k + 1
    s = s * 1.05d0 + a(k) / k
  end do
  j = n
  do
    j = j - 1
    if (j < 3) exit
    a(j) = a(j) + a(j + 1) * 0.25d0
    do i = 1, j, 4
      if (i == 5) exit
      cnt = cnt + i
    end do
  end do
  s = s + j + k
end subroutine loops
