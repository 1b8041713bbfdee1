c     DATA statements (repeat counts, an implied DO) and a statement
C     function: composite Gauss-Legendre quadrature of a polynomial
*     times an exponential on [a, b], in F77 fixed form laid out with
C     TAB characters.
C adspec-test: gquad(a:r8, b:r8, c:r8[3], res:r8, nsub:i4=4)
	SUBROUTINE GQUAD(A, B, C, RES, NSUB)
	IMPLICIT NONE
	INTEGER NSUB, NPT
	DOUBLE PRECISION A, B, C(3), RES
	DOUBLE PRECISION XG(5), WG(5), SCL(4), F, X, H, XL
	INTEGER I, K
c     nodes and weights of the 5-point rule
	DATA XG / -0.9061798459386640D0, -0.5384693101056831D0,
     &	0.0D0, 0.5384693101056831D0, 0.9061798459386640D0 /
	DATA (WG(I), I = 1, 5) / 0.2369268850561891D0,
	1  0.4786286704993665D0, 0.5688888888888889D0,
	2  0.4786286704993665D0, 0.2369268850561891D0 /
	DATA SCL / 2*1.0D0, 2*0.5D0 /, NPT / 5 /
*     the integrand, as a statement function
	F(X) = (C(1) + C(2)*X + C(3)*X**2)
     &       * EXP(-0.5D0*X)
	H = (B - A) / NSUB
	RES = 0.0D0
	DO 20 K = 1, NSUB
	   XL = A + (K - 1) * H
	   DO 10 I = 1, NPT
	      RES = RES + SCL(MOD(K - 1, 4) + 1) * WG(I) * 0.5D0 * H *
     &	     F(XL + 0.5D0 * H * (XG(I) + 1.0D0))
   10	   CONTINUE
   20	CONTINUE
	END
