! Derived types in a module: scalar and array components, arrays of derived types.
module shapes
  implicit none
  type point
    real(8) :: x, y
  end type point
  type polygon
    integer :: n
    type(point) :: v(4)
    real(8) :: weight
  end type polygon
end module shapes

! adspec-test: polyarea(xs:r8[4], ys:r8[4], area:r8, cx:r8[2])
subroutine polyarea(xs, ys, area, cx)
  use shapes
  implicit none
  real(8) :: xs(4), ys(4), area, cx(2)
  type(polygon) :: p
  type(point) :: pts(4), c
  integer :: i, j

  p%n = 4
  p%weight = 0.5d0
  do i = 1, 4
    pts(i)%x = xs(i) + i
    pts(i)%y = ys(i) * i
    p%v(i) = pts(i)
  end do
  area = 0.0d0
  c%x = 0.0d0
  c%y = 0.0d0
  do i = 1, p%n
    j = mod(i, p%n) + 1
    area = area + p%v(i)%x * p%v(j)%y - p%v(j)%x * p%v(i)%y
    c%x = c%x + pts(i)%x / p%n
    c%y = c%y + pts(i)%y / p%n
  end do
  area = p%weight * area
  cx(1) = c%x
  cx(2) = c%y
end subroutine polyarea
