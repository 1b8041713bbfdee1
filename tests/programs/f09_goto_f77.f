C     Unstructured F77: GOTO, labels, CONTINUE, a backward GOTO loop,
C     an early RETURN, WRITE and STOP on a branch never taken.
C adspec-test: newton(a:r8, x:r8, iters:i4)
      SUBROUTINE NEWTON(A, X, ITERS)
      IMPLICIT NONE
      DOUBLE PRECISION A, X, F, DF
      INTEGER ITERS
      IF (A .LT. 0.0D0) THEN
         WRITE(*, *) 'NEWTON: negative argument ', A
         STOP 1
      ENDIF
      ITERS = 0
      X = A + 1.0D0
  100 CONTINUE
      F = X*X - A
      DF = 2.0D0*X
      IF (ABS(F) .LT. 1.0D-12) GOTO 200
      X = X - F/DF
      ITERS = ITERS + 1
      IF (ITERS .GE. 50) GOTO 300
      GOTO 100
  200 CONTINUE
      X = X + 0.0D0*ITERS
      RETURN
  300 X = -1.0D0
      END
