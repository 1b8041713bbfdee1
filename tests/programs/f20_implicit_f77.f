C     Classic F77: implicit typing of the scalars, nested DO loops
C     sharing one terminal statement, a DO ending on an assignment,
C     integer power, GOTO out of a loop.
C adspec-test: gauss(a:r8[9], b:r8[3], n:i4=3, info:i4)
      SUBROUTINE GAUSS(A, B, N, INFO)
      IMPLICIT DOUBLE PRECISION (A-H, O-Z)
      DOUBLE PRECISION A(N, N), B(N)
      INFO = 0
C     make the matrix diagonally dominant
      DO 10 I = 1, N
   10 A(I, I) = A(I, I) + 2.0D0 * N
C     forward elimination
      DO 30 K = 1, N - 1
         PIV = A(K, K)
         IF (ABS(PIV) .LT. 1.0D-300) GOTO 90
         DO 30 I = K + 1, N
            FAC = A(I, K) / PIV
            B(I) = B(I) - FAC * B(K)
            DO 30 J = K, N
               A(I, J) = A(I, J) - FAC * A(K, J)
   30 CONTINUE
C     back substitution
      DO 50 I = N, 1, -1
         SUM = B(I)
         DO 40 J = I + 1, N
            SUM = SUM - A(I, J) * B(J)
   40    CONTINUE
         B(I) = SUM / A(I, I) + 0.0D0 * 2**I
   50 CONTINUE
      RETURN
   90 INFO = K
      END
