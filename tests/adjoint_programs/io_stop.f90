! I/O and STOP in adjoint mode: the READ overwrites t, whose old value the adjoint of an earlier
! statement reads (pushed before the READ, popped after), and a(2) inside a loop; the WRITE
! stays in the forward sweep; STOP ends the run where the original stops.
subroutine f(x, y, n)
  integer n, i
  real(8) x, y, t, a(3)
  character(len=40) line
  line = '1.5, 2.5'
  t = x*x
  a = x*[1.0d0, 2.0d0, 3.0d0]
  y = t*sin(x)
  do i = 1, n
    read(line, *) t, a(2)
    y = y + t*x*a(2) + a(1)*a(3)
    a(2) = a(2)*x
    t = t*y
  end do
  write(*, *) 'y =', y
  if (n < 0) stop 'negative n'
  y = y*t
end subroutine
