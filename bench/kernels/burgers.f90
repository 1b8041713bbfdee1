! 1-D viscous Burgers equation, explicit finite differences, fixed boundary values:
! nsteps steps of u_t + u u_x = nu u_xx on n points.
subroutine burgers(u, nu, n, nsteps, dt, dx)
  integer n, nsteps
  real(8) u(n), nu, dt, dx
  real(8) unew(n)
  integer i, step
  do step = 1, nsteps
    do i = 2, n - 1
      unew(i) = u(i) + dt * (nu * (u(i+1) - 2.0d0*u(i) + u(i-1)) / (dx*dx) &
                - u(i) * (u(i+1) - u(i-1)) / (2.0d0*dx))
    end do
    do i = 2, n - 1
      u(i) = unew(i)
    end do
  end do
end subroutine
