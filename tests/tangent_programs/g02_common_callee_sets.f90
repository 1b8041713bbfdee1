! Callees set and update an active COMMON array; the head reads it. The block also holds
! an integer and a scalar the head sets and a callee updates.
subroutine setup(x, n)
  integer n, i
  real(8) x(n)
  real(8) w(4), s
  integer m
  common /state/ w, s, m
  m = n
  do i = 1, n
    w(i) = sin(x(i)) * x(1)
  end do
end subroutine

subroutine accumulate()
  integer i
  real(8) w(4), s
  integer m
  common /state/ w, s, m
  do i = 1, m
    s = s + w(i) * w(i)
  end do
end subroutine

subroutine f(x, y, n)
  integer n
  real(8) x(n), y
  real(8) w(4), s
  integer m
  common /state/ w, s, m
  s = x(2) * x(2)
  call setup(x, n)
  call accumulate()
  y = s * w(2) + x(3)
end subroutine
