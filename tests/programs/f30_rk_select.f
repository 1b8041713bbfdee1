*     Explicit Runge-Kutta integration of a damped oscillator. The
c     method is chosen by name (SELECT CASE on a character selector,
C     with a range of names) and the RK4 Butcher tableau is given by
c     DATA with repeat counts and a nested implied DO.
C adspec-test: rkint(y:r8[2], h:r8=0.05, nstep:i4=10, imeth:i4, damp:r8=0.3)
	SUBROUTINE RKINT(Y, H, NSTEP, IMETH, DAMP)
	IMPLICIT NONE
	INTEGER NSTEP, IMETH, I, J, S, ISTEP, L
	DOUBLE PRECISION Y(2), H, DAMP
	DOUBLE PRECISION A4(4,4), B4(4), AA(4,4), BB(4), K(2,4), YS(2)
	CHARACTER*8 NAME, NAMES(3)*5
	DATA ((A4(I,J), I = 1, 4), J = 1, 4) / 0.0D0, 0.5D0, 4*0.0D0,
     &	0.5D0, 4*0.0D0, 1.0D0, 4*0.0D0 /
	DATA B4 / 0.1666666666666667D0, 2*0.3333333333333333D0,
	1  0.1666666666666667D0 /
	DATA NAMES / 'euler', 'heun', 'rk4' /
	NAME = NAMES(MOD(IMETH - 1, 3) + 1)
	AA = 0.0D0
	BB = 0.0D0
	SELECT CASE (NAME)
	CASE ('euler')
	   S = 1
	   BB(1) = 1.0D0
	CASE ('h':'hz')
C        Heun's method (explicit trapezoid)
	   S = 2
	   AA(2,1) = 1.0D0
	   BB(1) = 0.5D0
	   BB(2) = 0.5D0
	CASE DEFAULT
	   S = 4
	   DO 6 J = 1, 4
	      BB(J) = B4(J)
	      DO 5 I = 1, 4
	         AA(I,J) = A4(I,J)
    5	      CONTINUE
    6	   CONTINUE
	END SELECT
	DO 40 ISTEP = 1, NSTEP
	   DO 30 L = 1, S
	      DO 20 I = 1, 2
	         YS(I) = Y(I)
	         DO 10 J = 1, L - 1
	            YS(I) = YS(I) + H * AA(L,J) * K(I,J)
   10	         CONTINUE
   20	      CONTINUE
	      K(1,L) = YS(2)
	      K(2,L) = -YS(1)
     &	         - DAMP * YS(2)
   30	   CONTINUE
	   DO 35 L = 1, S
	      Y(1) = Y(1) + H * BB(L) * K(1,L)
	      Y(2) = Y(2) + H * BB(L) * K(2,L)
   35	   CONTINUE
   40	CONTINUE
	IMETH = S
	END
