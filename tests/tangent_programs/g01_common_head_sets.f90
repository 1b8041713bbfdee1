! The head sets active COMMON variables; a callee reads them (/blk_d/ carries the derivatives).
subroutine g(y)
  real(8) y, c, k
  common /blk/ c, k
  y = c * c + k * sin(c)
end subroutine

subroutine f(x, y)
  real(8) x, y, c, k
  common /blk/ c, k
  c = x
  k = 2.0d0
  call g(y)
  y = y * c
end subroutine
