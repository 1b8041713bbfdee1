! Keyword and OPTIONAL arguments with PRESENT: Newton's method on a cubic, called with
! arguments by position and by keyword, with an optional tolerance, iteration limit and
! iteration count.
! adspec-test: cubic_roots(c:r8[4], x0:r8[3], roots:r8[3], iters:i4[3])
module newton_mod
  implicit none
contains
  subroutine newton(coef, x, tol, maxit, niter)
    real(8), intent(in) :: coef(4)
    real(8), intent(inout) :: x
    real(8), intent(in), optional :: tol
    integer, intent(in), optional :: maxit
    integer, intent(out), optional :: niter
    real(8) :: eps, f, df
    integer :: limit, it, done
    eps = 1.0d-12
    if (present(tol)) eps = tol
    limit = 50
    if (present(maxit)) limit = maxit
    done = limit
    do it = 1, limit
      f = ((coef(4) * x + coef(3)) * x + coef(2)) * x + coef(1)
      df = (3.0d0 * coef(4) * x + 2.0d0 * coef(3)) * x + coef(2)
      x = x - f / df
      if (abs(f) < eps) then
        done = it
        exit
      end if
    end do
    if (present(niter)) niter = done
  end subroutine newton

  real(8) function residual(coef, x, scale)
    real(8), intent(in) :: coef(4), x
    real(8), intent(in), optional :: scale
    residual = ((coef(4) * x + coef(3)) * x + coef(2)) * x + coef(1)
    if (present(scale)) residual = residual * scale
  end function residual
end module newton_mod

subroutine cubic_roots(c, x0, roots, iters)
  use newton_mod
  implicit none
  real(8), intent(in) :: c(4), x0(3)
  real(8), intent(out) :: roots(3)
  integer, intent(out) :: iters(3)
  real(8) :: coef(4)
  coef = c
  coef(1) = -3.0d0 * coef(1)      ! a sign change: one positive real root
  roots = x0
  iters(1) = 0
  call newton(coef, roots(1))
  call newton(coef, roots(2), maxit=4, niter=iters(2))
  call newton(x=roots(3), coef=coef, niter=iters(3), tol=1.0d-6)
  iters(1) = nint(1.0d6 * abs(residual(coef, roots(1), scale=1.0d3)))
end subroutine cubic_roots
