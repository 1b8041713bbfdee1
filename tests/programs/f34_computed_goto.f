C     A problem selector in the style of the classic test collections:
C     computed GOTO (with and without the comma, an out-of-range index
C     falling through), arithmetic IF on an integer and on a real, a
C     labelled DO termination on an assignment.
C adspec-test: select(x:r8[3], f:r8[3], nprob:i4=2) -> r8
      DOUBLE PRECISION FUNCTION SELECT(X, F, NPROB)
      INTEGER NPROB, I, K
      DOUBLE PRECISION X(3), F(3), S
      S = 0.0D0
      DO 5 K = 0, 4
      GO TO (10, 20, 30), NPROB + K - 1
      S = S + 100.0D0
      GO TO 40
   10 F(1) = X(1)*X(2)
      GO TO 40
   20 F(2) = X(2) + X(3)**2
      GOTO (40,10) K
      GO TO 40
   30 IF (X(1) - X(3)) 31, 32, 33
   31 S = S - 1.0D0
   32 S = S + 0.5D0
   33 F(3) = X(3)
   40 CONTINUE
      IF (K - 2) 41, 42, 42
   41 S = S + 1.0D0
   42 CONTINUE
    5 CONTINUE
      DO 50 I = 1, 3
      IF (I .EQ. 2) GO TO 50
      F(I) = F(I) + S
   50 S = S + F(I)*0.25D0
      SELECT = S
      END
