subroutine f(a, v, w, n, m)
  integer n, m, i, j
  real(8) a(n, m), v(m), w(n)
  do i = 1, n
    w(i) = 0.0d0
    do j = 1, m
      w(i) = w(i) + a(i, j) * v(j)
    end do
    w(i) = tanh(w(i))
  end do
end subroutine
