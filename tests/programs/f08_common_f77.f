C     F77 style: COMMON blocks, labelled DO loops ending on CONTINUE,
C     assumed-size dummies, DOUBLE PRECISION, comments between
C     declarations.
C adspec-test: relax(x:r8[6], n:i4=6, niter:i4=3, r:r8)
      SUBROUTINE RELAX(X, N, NITER, R)
      IMPLICIT NONE
      INTEGER N, NITER
      DOUBLE PRECISION X(*), R
C     the shared coefficients
      DOUBLE PRECISION OMEGA, HIST(3)
      INTEGER COUNT
      COMMON /COEF/ OMEGA, HIST, COUNT
C     locals
      INTEGER I, IT
      DOUBLE PRECISION OLD
      OMEGA = 0.6D0
      COUNT = 0
      DO 20 IT = 1, NITER
         R = 0.0D0
C$AD II-LOOP
         DO 10 I = 2, N - 1
            OLD = X(I)
            X(I) = (1.0D0 - OMEGA) * X(I)
     &           + OMEGA * 0.5D0 * (X(I - 1) + X(I + 1))
            R = R + (X(I) - OLD)**2
   10    CONTINUE
         HIST(IT) = R
         CALL BUMP()
   20 CONTINUE
      R = R + HIST(1) + HIST(2) * COUNT
      END

      SUBROUTINE BUMP()
      DOUBLE PRECISION OMEGA, HIST(3)
      INTEGER COUNT
      COMMON /COEF/ OMEGA, HIST, COUNT
      COUNT = COUNT + 1
      OMEGA = OMEGA * 1.1D0
      RETURN
      END
