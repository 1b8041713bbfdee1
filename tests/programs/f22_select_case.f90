! SELECT CASE on integer ranges and on a character selector: the heat flux through the faces
! of a 1-D bar made of cells of several materials, with a named face-interpolation scheme.
! adspec-test: heat_flux(t:r8[8], mat:i4[8], flux:r8[7], n:i4=8, total:r8)
module schemes
  implicit none
contains
  real(8) function conductivity(m, temp)
    integer, intent(in) :: m
    real(8), intent(in) :: temp
    select case (m)
    case (1)
      conductivity = 401.0d0 - 0.05d0 * temp          ! copper
    case (2:3)
      conductivity = 237.0d0 + 0.01d0 * m * temp      ! aluminium alloys
    case (4:)
      conductivity = 16.0d0 * (1.0d0 + 1.0d-3 * temp) ! steels
    case default
      conductivity = 1.0d0
    end select
  end function conductivity

  real(8) function face_value(scheme, left, right)
    character(len=*), intent(in) :: scheme
    real(8), intent(in) :: left, right
    select case (scheme)
    case ('upwind')
      face_value = left
    case ('central', 'centred')
      face_value = 0.5d0 * (left + right)
    case ('a':'c')
      face_value = 2.0d0 * left * right / (left + right)   ! harmonic mean ('blend')
    case default
      face_value = min(left, right)
    end select
  end function face_value
end module schemes

subroutine heat_flux(t, mat, flux, n, total)
  use schemes
  implicit none
  integer, intent(in) :: n
  integer, intent(in) :: mat(n)
  real(8), intent(in) :: t(n)
  real(8), intent(out) :: flux(n - 1), total
  character(len=8) :: scheme
  real(8) :: k_face
  integer :: i
  total = 0.0d0
  do i = 1, n - 1
    select case (mod(i, 4))
    case (0)
      scheme = 'upwind'
    case (1)
      scheme = 'central'
    case (2)
      scheme = 'blend'
    case default
      scheme = 'minimum'
    end select
    k_face = face_value(scheme, conductivity(mat(i), t(i)), conductivity(mat(i + 1), t(i + 1)))
    flux(i) = -k_face * (t(i + 1) - t(i))
    total = total + abs(flux(i))
  end do
end subroutine heat_flux
