! Control diff-liveness: a test that guards a derivative makes what it reads diff-live.
subroutine ctl(x, y, z, k)
  real(8) :: x, y, z
  integer :: k, m, p
  m = k*2
  p = k + 1
  if (m > 3) then
    y = y * x
  end if
  if (p > 2) then
    z = 1.0d0
  end if
  do while (m > 0)
    y = y + x
    m = m - 1
  end do
end subroutine ctl
