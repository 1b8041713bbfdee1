C     A loop made of a backward GOTO with a counter; its target is active.
      SUBROUTINE F(X, Y)
      DOUBLE PRECISION X, Y
      INTEGER K
      Y = X
      K = 0
   10 Y = Y*X + 0.5D0*SIN(Y)
      K = K + 1
      IF (K .LT. 4) GOTO 10
      Y = Y*Y
      END
