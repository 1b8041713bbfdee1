! A procedure called both ways: split ($AD NOCHECKPOINT: step_fwd, step_bwd) and joint (step_b).
subroutine step(x, h)
  real(8) x(3), h, t
  t = x(1)*x(2)
  x(1) = x(1) + h*sin(x(2))
  x(2) = x(2)*x(3) - t
  x(3) = x(3) + x(1)*x(1)*h
end subroutine

subroutine integ(x, h, n)
  integer n, i
  real(8) x(3), h
  do i = 1, n
!$AD NOCHECKPOINT
    call step(x, h)
    call step(x, 0.5d0*h)
  end do
end subroutine
