! Paper fig. 11 (section 4.8): one basic block whose adjoint statements share
! sub-expressions; res is not active outside it.
subroutine fig11(g, z, w, v, tau, i, j)
  integer :: i, j
  real(8) :: g(5, 5), z(5), w(5, 5), v(5), tau, res
  res = (tau-w(i,j))*g(i,j)*(z(j)-2.0)/v(j)
  g(i,j) = res*v(j)
end subroutine fig11
