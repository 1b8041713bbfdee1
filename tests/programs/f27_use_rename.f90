! A module PRIVATE by default with PUBLIC statements, used with ONLY lists and renames (of
! variables and of a module procedure): the elastic energy of a chain of springs.
! adspec-test: chain_energy(x:r8[6], k:r8=2.5, e:r8, n:i4=6)
module spring_chain
  implicit none
  private
  public :: stiffness, spring_energy, nlinks
  public :: rest_length
  real(8) :: stiffness = 1.0d0
  real(8) :: rest_length = 0.1d0
  integer :: nlinks = 0
  real(8) :: half = 0.5d0
contains
  real(8) function stretch(a, b)
    real(8), intent(in) :: a, b
    stretch = abs(b - a) - rest_length
  end function stretch

  real(8) function spring_energy(a, b)
    real(8), intent(in) :: a, b
    spring_energy = half * stiffness * stretch(a, b)**2
    nlinks = nlinks + 1
  end function spring_energy
end module spring_chain

module chain_driver
  use spring_chain, only: link_energy => spring_energy
  implicit none
  private
  public :: total_energy
contains
  real(8) function total_energy(x, n)
    integer, intent(in) :: n
    real(8), intent(in) :: x(n)
    integer :: i
    total_energy = 0.0d0
    do i = 1, n - 1
      total_energy = total_energy + link_energy(x(i), x(i + 1))
    end do
  end function total_energy
end module chain_driver

subroutine chain_energy(x, k, e, n)
  use chain_driver, only: total_energy
  use spring_chain, only: kspring => stiffness, nlinks, l0 => rest_length
  implicit none
  integer, intent(in) :: n
  real(8), intent(in) :: x(n), k
  real(8), intent(out) :: e
  kspring = k
  l0 = 0.05d0
  nlinks = 0
  e = total_energy(x, n) + 1.0d-3 * nlinks
end subroutine chain_energy
