! Active calls with keyword arguments, out of the dummy order: the differentiated calls pass the
! values and derivatives in the dummy order (the callees are in the program)
subroutine g(a, b, c, s)
  real(8) a, b, c, s
  c = a*sin(b)*s
end subroutine

function h(u, v)
  real(8) h, u, v
  h = u*u/v
end function

subroutine f(x, z, y)
  real(8) x, z, y, t
  interface
    subroutine g(a, b, c, s)
      real(8) a, b, c, s
    end subroutine
    function h(u, v)
      real(8) h, u, v
    end function
  end interface
  call g(x, c=t, s=2.0d0, b=z*z)
  y = t + h(v=z + 3.0d0, u=x*t)
end subroutine
