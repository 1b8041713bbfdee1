subroutine decay(u, k, du)
  real(8) u, k, du
  du = -k * u * u
end subroutine

subroutine f(u0, k, u, nsteps)
  integer nsteps, s
  real(8) u0, k, u, du, h
  h = 0.1d0
  u = u0
  do s = 1, nsteps
    call decay(u, k, du)
    u = u + h * du
  end do
end subroutine
