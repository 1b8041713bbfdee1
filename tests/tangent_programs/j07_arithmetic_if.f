C     Arithmetic IFs: on an integer, on a real that is exactly zero once,
C     and on an active real; each branch lands on an active statement.
      SUBROUTINE F(X, Y, N)
      INTEGER N, I
      DOUBLE PRECISION X(N), Y, D
      Y = 0.0D0
      DO 40 I = 1, N
         D = DBLE(I - 2)
         IF (D) 11, 12, 13
   11    Y = Y + X(I)**2
         GO TO 20
   12    Y = Y*X(I)
         GO TO 20
   13    Y = Y - SIN(X(I))
   20    IF (X(I) - 1.0D0) 21, 22, 23
   21    Y = Y*1.5D0 + X(1)
         GO TO 40
   22    Y = 0.0D0
         GO TO 40
   23    Y = Y + X(I)*X(1)
   40 CONTINUE
      IF (N - 4) 50, 60, 50
   50 Y = -Y
   60 Y = Y*X(N)
      END
