C     Fixed-form Fortran 90: an explicit INTERFACE for an external
c     tridiagonal solver, WHERE / ELSEWHERE and FORALL on arrays, and
*     constants from an INCLUDE file. Implicit (backward Euler)
C     diffusion of a concentration profile with a reaction term.
C adspec-test: diffuse(c:r8[8], n:i4=8, nstep:i4=4, d:r8=0.7, total:r8)
	SUBROUTINE DIFFUSE(C, N, NSTEP, D, TOTAL)
	IMPLICIT NONE
      INCLUDE 'f2x_consts.inc'
	INTEGER N, NSTEP, I, STEP
	DOUBLE PRECISION C(N), D, TOTAL
	DOUBLE PRECISION SUB(N), DIAG(N), SUP(N), RHS(N)
	INTERFACE
	   SUBROUTINE THOMAS(A, B, C, R, X, N)
	   INTEGER N
	   DOUBLE PRECISION A(N), B(N), C(N), R(N), X(N)
	   END SUBROUTINE THOMAS
	END INTERFACE
	DO 10 STEP = 1, NSTEP
	   FORALL (I = 1:N)
	      SUB(I) = -D
	      SUP(I) = -D
	      DIAG(I) = 1.0D0 + 2.0D0 * D
	   END FORALL
	   RHS = C
	   CALL THOMAS(SUB, DIAG, SUP, RHS, C, N)
	   WHERE (C .LT. 0.5D0)
	      C = 0.5D0 * C
	   ELSEWHERE
	      C = C * (1.0D0 + 1.0D-2 *
     &	      SIN(PI * C / RGAS))
	   END WHERE
   10	CONTINUE
	TOTAL = SUM(C)
	END

C     Thomas algorithm for a tridiagonal system: sub-diagonal A,
c     diagonal B, super-diagonal C, right-hand side R, solution X.
	SUBROUTINE THOMAS(A, B, C, R, X, N)
	IMPLICIT NONE
	INTEGER N, I
	DOUBLE PRECISION A(N), B(N), C(N), R(N), X(N)
	DOUBLE PRECISION CP(N), RP(N), M
	CP(1) = C(1) / B(1)
	RP(1) = R(1) / B(1)
	DO 20 I = 2, N
	   M = B(I) - A(I) * CP(I - 1)
	   CP(I) = C(I) / M
	   RP(I) = (R(I) - A(I) * RP(I - 1))
	1        / M
   20	CONTINUE
	X(N) = RP(N)
	DO 30 I = N - 1, 1, -1
	   X(I) = RP(I) - CP(I) * X(I + 1)
   30	CONTINUE
	END
