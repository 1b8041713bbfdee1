! Scalar real(8) arithmetic, mixed-mode and integer division, math intrinsics.
! adspec-test: scalar_mix(x:r8, y:r8, n:i4=7) -> r8
function scalar_mix(x, y, n)
  implicit none
  real(8) :: x, y
  integer :: n
  real(8) :: scalar_mix
  ! locals
  real(8) :: t, u
  integer :: k, q

  q = n / 2                      ! integer division truncates
  k = mod(n, 3) - n / (-2)
  t = x * q + y / n              ! mixed-mode: integer promoted
  u = sqrt(x) + exp(-y) + log(x + y) - sin(x) * cos(y) + tan(0.3d0 * x)
  u = u + atan2(y, x) + tanh(x - y) + x ** 2 + y ** 0.5d0 + x ** k
  t = t + abs(-y) + sign(1.5d0, x - y) + min(x, y, 0.75d0) + max(x, y)
  t = t + dble(k) / 4 + real(q, 8) * 0.25d0 + mod(x * 10.0d0, 3.0d0)
  t = t + int(x * 10.0d0) + nint(y * 3.0d0) + floor(-x) + ceiling(y)
  scalar_mix = t * u - 1.0d-3 * (+x) + 2.5e0_8
end function scalar_mix
