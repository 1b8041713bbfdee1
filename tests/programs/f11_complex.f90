! Complex(8) arrays and arithmetic: literals, conjg, aimag, real, cmplx, abs.
! adspec-test: cplx(z:c8[3], w:c8, r:r8)
subroutine cplx(z, w, r)
  implicit none
  complex(8) :: z(3), w
  real(8) :: r
  complex(8) :: acc, i1
  integer :: k

  i1 = (0.0d0, 1.0d0)
  acc = (1.0d0, -0.5d0)
  do k = 1, 3
    acc = acc * z(k) + conjg(z(k)) * i1
  end do
  w = w * acc / (1.0d0 + abs(acc))
  z = z + cmplx(real(acc), 2.0d0 * aimag(acc), kind=8)
  r = real(w) * aimag(w) + abs(z(2)) + real(z(1) * conjg(z(3)))
  z(3) = z(3) ** 2 - sqrt(z(1))
end subroutine cplx
