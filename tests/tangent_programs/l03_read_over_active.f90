! A READ overwrites variables whose values depend on x, in one branch: their derivative is zero
! after it (it is reset, being read after the branch), and the .msg says the READ cuts it
subroutine f(x, y, n)
  integer n
  real(8) x, y, t, a(3)
  character(len=40) line
  line = '1.5, 2.5'
  t = x*x
  a = x*[1.0d0, 2.0d0, 3.0d0]
  if (n > 0) read(line, *) t, a(2)
  y = t*x + a(1)*a(2)*a(3)
end subroutine
