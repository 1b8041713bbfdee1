C     Piecewise cost: quadratic below 1, logarithmic above, weighted by P.
      SUBROUTINE SQR(A, B)
      DOUBLE PRECISION A, B
      B = A * A
      END

      SUBROUTINE PIECE(N, X, P, F)
      INTEGER N, I
      DOUBLE PRECISION X(N), P, F, T
      F = 0.0D0
      DO 20 I = 1, N
         IF (X(I) .GT. 1.0D0) GOTO 10
         CALL SQR(X(I), T)
         F = F + P * T
         GOTO 20
   10    F = F + P * (1.0D0 + LOG(X(I)))
   20 CONTINUE
      END
