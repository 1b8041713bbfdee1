subroutine rhs(y, k, lam)
  real(8) y(2), k(2), lam
  k(1) = y(2)
  k(2) = -lam * sin(y(1))
end subroutine

subroutine f(y, lam, h)
  real(8) y(2), lam, h
  real(8) k1(2), k2(2), ymid(2)
  call rhs(y, k1, lam)
  ymid = y + 0.5d0 * h * k1
  call rhs(ymid, k2, lam)
  y = y + h * k2
end subroutine
