C     An INCLUDE line for shared constants, statement functions,
c     CHARACTER*N lengths per name, and formatted I/O statements
*     (OPEN, WRITE with a FORMAT label, CLOSE, PRINT) around a
C     leapfrog integration of a nonlinear pendulum.
C adspec-test: pendulum(theta:r8, omega:r8, plen:r8=1.5, nstep:i4=20, energy:r8)
	SUBROUTINE PENDULUM(THETA, OMEGA, PLEN, NSTEP, ENERGY)
	IMPLICIT NONE
      INCLUDE 'f2x_consts.inc'
	INTEGER NSTEP, I
	DOUBLE PRECISION THETA, OMEGA, PLEN, ENERGY, DT, ACC, T, W, EKIN
	CHARACTER*8 METHOD, TAG*16
C     statement functions: angular acceleration and kinetic energy
	ACC(T) = -(GRAV / PLEN) * SIN(T)
	EKIN(W) = 0.5D0 * (PLEN * W)**2
	METHOD = 'leapfrog'
	TAG = 'pendulum ' // METHOD(1:4)
	DT = 2.0D0 * PI /
     &     (40.0D0 * SQRT(GRAV / PLEN))
	OPEN (UNIT=21, STATUS='SCRATCH', FORM='FORMATTED')
	DO 10 I = 1, NSTEP
	   OMEGA = OMEGA + 0.5D0 * DT * ACC(THETA)
	   THETA = THETA + DT * OMEGA
	   OMEGA = OMEGA + 0.5D0 * DT * ACC(THETA)
	   WRITE (21, 100) I, THETA, OMEGA
   10 CONTINUE
  100 FORMAT (1X, I4, 2F12.6)
	CLOSE (21)
	ENERGY = EKIN(OMEGA) + GRAV * PLEN
	1   * (1.0D0 - COS(THETA))
	PRINT *, TAG, ENERGY
	END
