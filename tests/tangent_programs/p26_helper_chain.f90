subroutine inner(a, b)
  real(8) a, b
  b = a * a
end subroutine

subroutine outer(a, b)
  real(8) a, b, t
  call inner(a, t)
  b = t + a
end subroutine

subroutine f(x, y)
  real(8) x, y, t
  call outer(x, t)
  call outer(t, y)
end subroutine
