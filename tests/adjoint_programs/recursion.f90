! A recursive procedure differentiated joint: it calls its own adjoint.
recursive subroutine pw(x, n, y)
  integer n
  real(8) x, y, t
  if (n .le. 0) then
    y = y + x
  else
    t = x*x
    call pw(t, n - 1, y)
    y = y*cos(x)
  end if
end subroutine
