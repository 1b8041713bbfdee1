! Logical and character variables: .and./.or./.not./.eqv./.neqv., concatenation,
! substrings, len_trim, ichar, character comparison; numeric outputs only.
! adspec-test: flags(x:r8[4], on:l4, code:i4)
subroutine flags(x, on, code)
  implicit none
  real(8) :: x(4)
  logical :: on
  integer :: code
  logical :: big(4), any_big, mixed
  character(len=8) :: word
  character(len=3) :: tag
  integer :: i

  tag = 'abc'
  word = tag // '-xy'
  do i = 1, 4
    big(i) = x(i) > 1.0d0
  end do
  any_big = big(1) .or. big(2) .or. big(3) .or. big(4)
  mixed = (big(1) .eqv. big(2)) .neqv. .not. big(3)
  if (any_big .and. .not. mixed) then
    x = x * 2.0d0
  else if (mixed .or. on) then
    x(1) = -x(1)
  else
    x(4) = 0.0d0
  end if
  code = len_trim(word) * 100 + ichar(word(2:2))
  if (word(1:3) == 'abc' .and. tag /= 'abd') code = code + 1
  if (on) code = -code
  on = .not. on .and. .true.
end subroutine flags
