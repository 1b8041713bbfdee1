C     Sequence association (F77): array elements passed where the dummy is an array, the
C     callee reaching every element from there on; a passive array element passed to a
C     dummy that is active at another call site gets a zeroed derivative array
      SUBROUTINE AXPY(N, A, X, Y)
      INTEGER N, I
      DOUBLE PRECISION A, X(N), Y(N)
      DO 10 I = 1, N
        Y(I) = Y(I) + A*X(I)
   10 CONTINUE
      END

      SUBROUTINE SCAL(N, A, X)
      INTEGER N, I
      DOUBLE PRECISION A, X(*)
      DO 20 I = 1, N
        X(I) = A*X(I)*X(I)
   20 CONTINUE
      END

      SUBROUTINE F(X, Y, S, M)
      INTEGER M, I
      DOUBLE PRECISION X(M, 3), Y(M, 3), S, C(10), T
      DO 5 I = 1, 10
        C(I) = 0.1D0*I
    5 CONTINUE
      CALL AXPY(M, S, X(1, 2), Y(1, 1))
      CALL AXPY(2*M, 0.5D0, X, Y(1, 2))
      CALL AXPY(M, 2.0D0, C(2), Y(1, 1))
      CALL SCAL(M - 1, S, Y(2, 3))
      T = 0.0D0
      DO 30 I = 1, M
        T = T + Y(I, 1)*Y(I, 2)*Y(I, 3)
   30 CONTINUE
      S = T + C(3)
      END
