C     A computed GOTO choosing among active statements, its index running
C     from 0 to 4: out of range (0 and 4) it falls through.
      SUBROUTINE F(X, Y)
      DOUBLE PRECISION X(2), Y
      INTEGER K
      Y = 0.0D0
      DO 50 K = 0, 4
      GO TO (10, 20, 30), K
      Y = Y + X(1)*X(2)
      GO TO 50
   10 Y = Y + SIN(X(1))
      GO TO 50
   20 Y = Y*X(2) + X(1)
   30 Y = Y + EXP(X(2)*0.1D0)
   50 CONTINUE
      END
