! Arrays, sections with strides, whole-array expressions, constructors, reductions.
! adspec-test: sections(a:r8[8], b:r8[8], s:r8, n:i4=8)
subroutine sections(a, b, s, n)
  implicit none
  integer :: n
  real(8) :: a(n), b(n), s
  real(8) :: w(4), c(8)
  integer :: idx(3)

  w = (/ 1.0d0, -2.0d0, 0.5d0, 3.0d0 /)
  idx = [1, 4, 7]
  c = 2.0d0 * a + b                 ! whole-array expression
  c(1:4) = c(1:4) * w
  c(5:8) = c(8:5:-1) + w(4:1:-1)
  a(1:n:2) = b(2:n:2) - a(1:n:2)
  b(2:) = b(:n-1) + 0.5d0 * c(2:)
  s = sum(c) + dot_product(a, b) + sum(a(idx)) + maxval(b) - minval(c(2:6))
  s = s + product(w) + sum(abs(c - a)) + size(c)
  a = a + c
end subroutine sections
