! Wall-clock seconds, for the drivers of bench/bench_runtime.py.
module timing
  implicit none
contains
  real(8) function now()
    integer(8) :: count, rate
    call system_clock(count, rate)
    now = real(count, 8) / real(rate, 8)
  end function
end module
