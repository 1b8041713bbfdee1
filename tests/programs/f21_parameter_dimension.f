C     F77 PARAMETER and DIMENSION statements, implicit typing, a
C     2-D array with a lower bound of 0, and nested labelled loops.
C adspec-test: smooth(u:r8[12], s:r8)
      SUBROUTINE SMOOTH(U, S)
      INTEGER NX, NY
      PARAMETER (NX = 4, NY = NX - 1)
      DOUBLE PRECISION U, S, W, HALF
      DIMENSION U(NX, 0:NY - 1), W(0:NX + 1)
      PARAMETER (HALF = 0.5D0)
      SAVE W
      S = 0.0D0
      DO 20 J = 0, NY - 1
         W(0) = U(1, J)
         W(NX + 1) = U(NX, J)
         DO 10 I = 1, NX
            W(I) = U(I, J)
   10    CONTINUE
         DO 15 I = 1, NX
            U(I, J) = HALF * W(I) + 0.25D0 * (W(I - 1) + W(I + 1))
            S = S + U(I, J) * (I + J)
   15    CONTINUE
   20 CONTINUE
      END
