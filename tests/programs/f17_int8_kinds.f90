! integer(8) and kind-suffixed literals, integer arithmetic (power, modulo, division
! of negatives), SAVE, and conversions between kinds.
! adspec-test: kinds(k:i8[3], x:r8, m:i4=-7) -> i8
function kinds(k, x, m)
  implicit none
  integer(8) :: k(3), kinds
  real(8) :: x
  integer(4) :: m
  integer(8) :: big
  integer, save :: calls = 0
  real(4) :: xs

  calls = calls + 1
  big = 3_8 ** 20 + k(1) * 1000000000_8
  k(2) = k(2) * m / 2 + mod(m, 3) + modulo(m, 3)
  k(3) = big / 7_8 - int(x * 1.0d3, 8)
  xs = real(x, 4)
  x = x + dble(xs) + real(m / 4, 8) + (-m) / 4 + 2 ** 10
  kinds = big - k(2) * k(3) + calls
end function kinds
