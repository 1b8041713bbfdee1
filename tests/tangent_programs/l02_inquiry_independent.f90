! A head independent that only inquiry functions look at (size, lbound): its derivative is
! zero, and the .msg says so (as Tapenade)
subroutine f(x, z, y, n)
  integer n
  real(8) x(n), z, y
  y = z*size(x) + z*z*lbound(x, 1)
end subroutine
