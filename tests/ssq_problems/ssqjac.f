      SUBROUTINE SSQJAC(M, N, X, FJAC, LDFJAC, NPROB)
C     The Jacobian FJAC(i, j) = d FVEC(i) / d X(j) of the residuals of
C     SSQFCN (ssqfcn.f), written by hand from the formulas of each
C     problem. An NPROB out of 1..15 gives zeros.
      INTEGER M, N, LDFJAC, NPROB
      DOUBLE PRECISION X(N), FJAC(LDFJAC, N)
      INTEGER I, J, K, IVAR
      DOUBLE PRECISION ZERO, ONE, TWO, FOUR, FIVE, TEN, C29, C45
      DOUBLE PRECISION T, T1, T2, TH, S1, S2, D, DP, E, R2, TPI, U, V,
     *     W, PROD, DFLOAT
      DOUBLE PRECISION U2(11)
      DATA ZERO, ONE, TWO, FOUR, FIVE, TEN, C29, C45
     *     /0.0D0, 1.0D0, 2.0D0, 4.0D0, 5.0D0, 1.0D1, 2.9D1, 4.5D1/
      DATA U2 /4.0D0, 2.0D0, 1.0D0, 5.0D-1, 2.5D-1, 1.67D-1, 1.25D-1,
     *     1.0D-1, 8.33D-2, 7.14D-2, 6.25D-2/
      DFLOAT(IVAR) = IVAR
      DO 2 J = 1, N
         DO 1 I = 1, M
            FJAC(I, J) = ZERO
    1    CONTINUE
    2 CONTINUE
      GO TO (10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120, 130,
     *       140, 150), NPROB
      GO TO 900
C
C     linear function, full rank: delta(i, j) - 2/m
   10 CONTINUE
      T = TWO/DFLOAT(M)
      DO 12 J = 1, N
         DO 11 I = 1, M
            FJAC(I, J) = -T
   11    CONTINUE
         FJAC(J, J) = FJAC(J, J) + ONE
   12 CONTINUE
      GO TO 900
C
C     linear function, rank 1: i*j
   20 CONTINUE
      DO 22 J = 1, N
         DO 21 I = 1, M
            FJAC(I, J) = DFLOAT(I)*DFLOAT(J)
   21    CONTINUE
   22 CONTINUE
      GO TO 900
C
C     Rosenbrock
   30 CONTINUE
      FJAC(1, 1) = -TWO*TEN*X(1)
      FJAC(1, 2) = TEN
      FJAC(2, 1) = -ONE
      GO TO 900
C
C     helical valley: d atan(x2/x1) = (x1 dx2 - x2 dx1)/(x1**2 + x2**2)
   40 CONTINUE
      TPI = 8.0D0*ATAN(ONE)
      R2 = X(1)**2 + X(2)**2
      T = TEN*TEN/(TPI*R2)
      FJAC(1, 1) = T*X(2)
      FJAC(1, 2) = -T*X(1)
      FJAC(1, 3) = TEN
      FJAC(2, 1) = TEN*X(1)/SQRT(R2)
      FJAC(2, 2) = TEN*X(2)/SQRT(R2)
      FJAC(3, 3) = ONE
      GO TO 900
C
C     Powell singular
   50 CONTINUE
      FJAC(1, 1) = ONE
      FJAC(1, 2) = TEN
      FJAC(2, 3) = SQRT(FIVE)
      FJAC(2, 4) = -SQRT(FIVE)
      FJAC(3, 2) = TWO*(X(2) - TWO*X(3))
      FJAC(3, 3) = -FOUR*(X(2) - TWO*X(3))
      FJAC(4, 1) = TWO*SQRT(TEN)*(X(1) - X(4))
      FJAC(4, 4) = -TWO*SQRT(TEN)*(X(1) - X(4))
      GO TO 900
C
C     Freudenstein and Roth
   60 CONTINUE
      FJAC(1, 1) = ONE
      FJAC(1, 2) = X(2)*(TEN - 3.0D0*X(2)) - TWO
      FJAC(2, 1) = ONE
      FJAC(2, 2) = X(2)*(TWO + 3.0D0*X(2)) - 14.0D0
      GO TO 900
C
C     Bard: f = y - x1 - u/d, d = v x2 + w x3
   70 CONTINUE
      DO 71 I = 1, 15
         U = DFLOAT(I)
         V = DFLOAT(16 - I)
         W = DFLOAT(MIN(I, 16 - I))
         D = V*X(2) + W*X(3)
         FJAC(I, 1) = -ONE
         FJAC(I, 2) = U*V/D**2
         FJAC(I, 3) = U*W/D**2
   71 CONTINUE
      GO TO 900
C
C     Kowalik and Osborne: f = y - x1 t1/t2
   80 CONTINUE
      DO 81 I = 1, 11
         T1 = U2(I)*(U2(I) + X(2))
         T2 = U2(I)*(U2(I) + X(3)) + X(4)
         FJAC(I, 1) = -T1/T2
         FJAC(I, 2) = -X(1)*U2(I)/T2
         FJAC(I, 3) = X(1)*T1*U2(I)/T2**2
         FJAC(I, 4) = X(1)*T1/T2**2
   81 CONTINUE
      GO TO 900
C
C     Meyer: f = x1 e - y, e = exp(x2/(t + x3))
   90 CONTINUE
      DO 91 I = 1, 16
         T = C45 + FIVE*DFLOAT(I)
         E = EXP(X(2)/(T + X(3)))
         FJAC(I, 1) = E
         FJAC(I, 2) = X(1)*E/(T + X(3))
         FJAC(I, 3) = -X(1)*E*X(2)/(T + X(3))**2
   91 CONTINUE
      GO TO 900
C
C     Watson: d/dx_j = (j-1) t**(j-2) - 2 s2 t**(j-1), s2 the sum
C     of x_j t**(j-1); DP = t**(j-2), D = t**(j-1)
  100 CONTINUE
      DO 103 I = 1, 29
         T = DFLOAT(I)/C29
         S2 = ZERO
         D = ONE
         DO 101 J = 1, N
            S2 = S2 + D*X(J)
            D = T*D
  101    CONTINUE
         DP = ZERO
         D = ONE
         DO 102 J = 1, N
            FJAC(I, J) = DFLOAT(J - 1)*DP - TWO*S2*D
            DP = D
            D = T*D
  102    CONTINUE
  103 CONTINUE
      FJAC(30, 1) = ONE
      FJAC(31, 1) = -TWO*X(1)
      FJAC(31, 2) = ONE
      GO TO 900
C
C     Box three-dimensional
  110 CONTINUE
      DO 111 I = 1, M
         T = DFLOAT(I)/TEN
         FJAC(I, 1) = -T*EXP(-T*X(1))
         FJAC(I, 2) = T*EXP(-T*X(2))
         FJAC(I, 3) = EXP(-TEN*T) - EXP(-T)
  111 CONTINUE
      GO TO 900
C
C     Jennrich and Sampson
  120 CONTINUE
      DO 121 I = 1, M
         FJAC(I, 1) = -DFLOAT(I)*EXP(DFLOAT(I)*X(1))
         FJAC(I, 2) = -DFLOAT(I)*EXP(DFLOAT(I)*X(2))
  121 CONTINUE
      GO TO 900
C
C     Brown and Dennis: f = t1**2 + t2**2
  130 CONTINUE
      DO 131 I = 1, M
         T = DFLOAT(I)/FIVE
         T1 = X(1) + T*X(2) - EXP(T)
         T2 = X(3) + SIN(T)*X(4) - COS(T)
         FJAC(I, 1) = TWO*T1
         FJAC(I, 2) = TWO*T1*T
         FJAC(I, 3) = TWO*T2
         FJAC(I, 4) = TWO*T2*SIN(T)
  131 CONTINUE
      GO TO 900
C
C     Chebyquad: with y = 2x - 1, T_(i+1) = 2y T_i - T_(i-1) gives
C     dT_(i+1)/dx = 4 T_i + 2y dT_i/dx - dT_(i-1)/dx; S2 = dT_i/dx
  140 CONTINUE
      DO 142 J = 1, N
         T1 = ONE
         T2 = TWO*X(J) - ONE
         T = TWO*T2
         S1 = ZERO
         S2 = TWO
         DO 141 I = 1, M
            FJAC(I, J) = S2/DFLOAT(N)
            TH = FOUR*T2 + T*S2 - S1
            S1 = S2
            S2 = TH
            TH = T*T2 - T1
            T1 = T2
            T2 = TH
  141    CONTINUE
  142 CONTINUE
      GO TO 900
C
C     Brown almost-linear: 1 + delta(i, j) above the last row, the
C     product of the other x_k in it
  150 CONTINUE
      DO 153 J = 1, N
         DO 151 I = 1, N - 1
            FJAC(I, J) = ONE
  151    CONTINUE
         IF (J .LT. N) FJAC(J, J) = TWO
         PROD = ONE
         DO 152 K = 1, N
            IF (K .NE. J) PROD = PROD*X(K)
  152    CONTINUE
         FJAC(N, J) = PROD
  153 CONTINUE
C
  900 CONTINUE
      RETURN
      END
