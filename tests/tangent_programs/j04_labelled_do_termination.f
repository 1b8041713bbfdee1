C     DO loops ended by labelled active assignments, a GOTO to each label.
      SUBROUTINE F(X, Y, N)
      INTEGER N, I, J
      DOUBLE PRECISION X(N), Y, T
      Y = 1.0D0
      DO 20 I = 1, N
         T = X(I)
         IF (I .EQ. N) GO TO 20
         DO 10 J = 1, 3
            IF (J .EQ. I) GO TO 10
            T = T*X(J) + 0.1D0
   10    Y = Y + T*X(I)
   20 Y = Y*0.5D0 + X(I)*T
      END
