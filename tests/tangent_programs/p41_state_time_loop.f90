! an in-place state, updated in a time loop by a helper: state and hist hold active values
! but are no independent nor dependent, so evolve_d takes their derivatives as arguments
! ("Plus diff mem management of"): evolve_d zeroes that of state (explicit shape), the
! caller that of hist (assumed size: evolve_d does not know its size)
subroutine step(state, n, a, b)
  integer n, i
  real(8) state(n), a, b
  do i = 1, n
    state(i) = state(i) * a + sin(b * state(i))
  end do
end subroutine

subroutine evolve(x, state, hist, n, y)
  integer n, t, i
  real(8) x(2), state(n), hist(*), y
  do t = 1, 5
    call step(state, n, x(1), x(2))
    do i = 1, n
      hist(i) = hist(i) + 0.5d0 * state(i)
    end do
  end do
  y = 0.0d0
  do i = 1, n
    y = y + state(i) * hist(i)
  end do
end subroutine
