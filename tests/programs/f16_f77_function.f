C     F77 function with continuation lines, EXTERNAL and INTRINSIC
C     statements, a SAVE statement, F77 specific intrinsic names, a
C     labelled DO with a negative step.
C adspec-test: trapz(f:r8[9], n:i4=9, h:r8=0.125) -> r8
      DOUBLE PRECISION FUNCTION TRAPZ(F, N, H)
      IMPLICIT NONE
      INTEGER N
      DOUBLE PRECISION F(N), H
      EXTERNAL WEIGHT
      DOUBLE PRECISION WEIGHT
      INTRINSIC DSQRT
      INTEGER I
      DOUBLE PRECISION S, HALF
      SAVE HALF
      HALF = 0.5D0
      S = HALF * (F(1) + F(N))
      DO 30 I = N - 1, 2, -1
         S = S + WEIGHT(I, N) * F(I)
   30 CONTINUE
      TRAPZ = H * S + DSQRT(DABS(S)) * 1.0D-2 + DMAX1(F(1), F(2))
     &      - DMIN1(F(3), 0.9D0) + DBLE(IDINT(S)) + DSIGN(H, -S)
     &      + DMOD(S, 0.7D0)
      RETURN
      END

      DOUBLE PRECISION FUNCTION WEIGHT(I, N)
      INTEGER I, N
      WEIGHT = 1.0D0
      IF (MOD(I, 2) .EQ. 0) WEIGHT = 1.0D0 + 1.0D0 / N
      END
