! PACK, CSHIFT and EOSHIFT (an active boundary, a passive one), and MAXLOC/MINLOC, which are
! integer (passive) and only choose elements
subroutine f(x, z, y, n)
  integer n
  real(8) x(n), z, y, w(n)
  w = cshift(x, 2) * eoshift(x, -1, z) + eoshift(x, 1, 5.0d0)
  y = sum(pack(w, w > 0.0d0)) + sum(pack(x, x < 100.0d0, w)) + w(maxloc(x, 1)) * x(minloc(w, 1))
end subroutine
