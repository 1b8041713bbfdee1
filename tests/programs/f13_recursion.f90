! Recursive functions and a recursive subroutine.
! adspec-test: rec(n:i4=6, x:r8, fib:i4) -> r8
function rec(n, x, fib)
  implicit none
  integer :: n, fib
  real(8) :: x, rec
  real(8) :: acc

  fib = ifib(n)
  acc = 0.0d0
  call descend(n, x, acc)
  rec = power_rec(x, n) + acc
contains
  recursive integer function ifib(k) result(f)
    integer, intent(in) :: k
    if (k < 2) then
      f = k
    else
      f = ifib(k - 1) + ifib(k - 2)
    end if
  end function ifib

  recursive function power_rec(b, k) result(p)
    real(8), intent(in) :: b
    integer, intent(in) :: k
    real(8) :: p
    if (k == 0) then
      p = 1.0d0
    else if (mod(k, 2) == 0) then
      p = power_rec(b * b, k / 2)
    else
      p = b * power_rec(b, k - 1)
    end if
  end function power_rec
end function rec

recursive subroutine descend(k, x, acc)
  implicit none
  integer :: k
  real(8) :: x, acc
  if (k <= 0) return
  acc = acc + x / k
  call descend(k - 1, x * 0.5d0, acc)
end subroutine descend
