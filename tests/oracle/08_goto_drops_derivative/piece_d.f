C Differentiation of sqr in forward (tangent) mode:
C   RW status of diff variables: a:in b:out
      subroutine sqr_d(a, ad, b, bd)
         real(8) :: a, b
         real(8) :: ad, bd
         bd = 2.0d0*a*ad
         b = a*a
      end subroutine sqr_d

C Differentiation of piece in forward (tangent) mode:
C   variations   of useful results: f
C   with respect to varying inputs: x p
C   RW status of diff variables: x:in p:in f:out
      subroutine piece_d(n, x, xd, p, pd, f, fd)
         integer :: n, i
         real(8) :: x(n), p, f, t
         real(8) :: xd(n), pd, fd, td
         fd = 0.0d0
         f = 0.0d0
         do 20 i = 1, n
            if (x(i) > 1.0d0) then
               go to 10
            end if
            call sqr_d(x(i), xd(i), t, td)
            fd = fd + (t*pd + p*td)
            f = f + p*t
            go to 20
            fd = fd + ((1.0d0 + log(x(i)))*pd + p*(1.0d0/x(i)*xd(i)))
10          f = f + p*(1.0d0 + log(x(i)))
20          continue
      end subroutine piece_d
