! z = z + w*h, walking w along its rows (the inner index j in w's slow dimension).
subroutine matvec(w, h, z, n)
  integer :: n, i, j
  real(8) :: w(n, n), h(n), z(n)
  do i = 1, n
    do j = 1, n
      z(i) = z(i) + w(i, j)*h(j)
    end do
  end do
end subroutine matvec
