      SUBROUTINE SSQFCN(M, N, X, FVEC, NPROB)
C     The residuals FVEC(1..M) at X(1..N) of the nonlinear least
C     squares test problem NPROB, in the style of the classic test
C     collections (Fortran 77: the problem picked by a computed GO TO,
C     constants from DATA, DFLOAT a statement function):
C        1 linear function, full rank     9 Meyer (N=3, M=16)
C        2 linear function, rank 1       10 Watson (M=31)
C        3 Rosenbrock (N=M=2)            11 Box 3-D (N=3)
C        4 helical valley (N=M=3)        12 Jennrich-Sampson (N=2)
C        5 Powell singular (N=M=4)       13 Brown-Dennis (N=4)
C        6 Freudenstein-Roth (N=M=2)     14 Chebyquad
C        7 Bard (N=3, M=15)              15 Brown almost-linear (M=N)
C        8 Kowalik-Osborne (N=4, M=11)
C     An NPROB out of 1..15 leaves FVEC as it is.
      INTEGER M, N, NPROB
      DOUBLE PRECISION X(N), FVEC(M)
      INTEGER I, J, IVAR
      DOUBLE PRECISION ZERO, HALF, ONE, TWO, FIVE, TEN, C13, C14, C29,
     *     C45
      DOUBLE PRECISION SUM, S1, S2, T, T1, T2, TH, D, TPI, R, THETA,
     *     PROD, DFLOAT
      DOUBLE PRECISION Y1(15), Y2(11), U2(11), Y3(16)
      DATA ZERO, HALF, ONE, TWO, FIVE, TEN, C13, C14, C29, C45
     *     /0.0D0, 5.0D-1, 1.0D0, 2.0D0, 5.0D0, 1.0D1, 1.3D1, 1.4D1,
     *      2.9D1, 4.5D1/
      DATA Y1 /1.4D-1, 1.8D-1, 2.2D-1, 2.5D-1, 2.9D-1, 3.2D-1, 3.5D-1,
     *     3.9D-1, 3.7D-1, 5.8D-1, 7.3D-1, 9.6D-1, 1.34D0, 2.1D0,
     *     4.39D0/
      DATA Y2 /1.957D-1, 1.947D-1, 1.735D-1, 1.6D-1, 8.44D-2, 6.27D-2,
     *     4.56D-2, 3.42D-2, 3.23D-2, 2.35D-2, 2.46D-2/
      DATA U2 /4.0D0, 2.0D0, 1.0D0, 5.0D-1, 2.5D-1, 1.67D-1, 1.25D-1,
     *     1.0D-1, 8.33D-2, 7.14D-2, 6.25D-2/
      DATA Y3 /3.478D4, 2.861D4, 2.365D4, 1.963D4, 1.637D4, 1.372D4,
     *     1.154D4, 9.744D3, 8.261D3, 7.03D3, 6.005D3, 5.147D3,
     *     4.427D3, 3.82D3, 3.307D3, 2.872D3/
      DFLOAT(IVAR) = IVAR
      GO TO (10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120, 130,
     *       140, 150), NPROB
      GO TO 900
C
C     linear function, full rank
   10 CONTINUE
      SUM = ZERO
      DO 11 J = 1, N
         SUM = SUM + X(J)
   11 CONTINUE
      T = TWO*SUM/DFLOAT(M) + ONE
      DO 12 I = 1, M
         FVEC(I) = -T
         IF (I .LE. N) FVEC(I) = FVEC(I) + X(I)
   12 CONTINUE
      GO TO 900
C
C     linear function, rank 1
   20 CONTINUE
      SUM = ZERO
      DO 21 J = 1, N
         SUM = SUM + DFLOAT(J)*X(J)
   21 CONTINUE
      DO 22 I = 1, M
         FVEC(I) = DFLOAT(I)*SUM - ONE
   22 CONTINUE
      GO TO 900
C
C     Rosenbrock
   30 CONTINUE
      FVEC(1) = TEN*(X(2) - X(1)**2)
      FVEC(2) = ONE - X(1)
      GO TO 900
C
C     helical valley
   40 CONTINUE
      TPI = 8.0D0*ATAN(ONE)
      THETA = SIGN(0.25D0, X(2))
      IF (X(1) .GT. ZERO) THETA = ATAN(X(2)/X(1))/TPI
      IF (X(1) .LT. ZERO) THETA = ATAN(X(2)/X(1))/TPI + HALF
      R = SQRT(X(1)**2 + X(2)**2)
      FVEC(1) = TEN*(X(3) - TEN*THETA)
      FVEC(2) = TEN*(R - ONE)
      FVEC(3) = X(3)
      GO TO 900
C
C     Powell singular
   50 CONTINUE
      FVEC(1) = X(1) + TEN*X(2)
      FVEC(2) = SQRT(FIVE)*(X(3) - X(4))
      FVEC(3) = (X(2) - TWO*X(3))**2
      FVEC(4) = SQRT(TEN)*(X(1) - X(4))**2
      GO TO 900
C
C     Freudenstein and Roth
   60 CONTINUE
      FVEC(1) = -C13 + X(1) + ((FIVE - X(2))*X(2) - TWO)*X(2)
      FVEC(2) = -C29 + X(1) + ((ONE + X(2))*X(2) - C14)*X(2)
      GO TO 900
C
C     Bard: u = i, v = 16 - i, w = min(u, v)
   70 CONTINUE
      DO 71 I = 1, 15
         D = DFLOAT(16-I)*X(2) + DFLOAT(MIN(I, 16-I))*X(3)
         FVEC(I) = Y1(I) - (X(1) + DFLOAT(I)/D)
   71 CONTINUE
      GO TO 900
C
C     Kowalik and Osborne
   80 CONTINUE
      DO 81 I = 1, 11
         T1 = U2(I)*(U2(I) + X(2))
         T2 = U2(I)*(U2(I) + X(3)) + X(4)
         FVEC(I) = Y2(I) - X(1)*T1/T2
   81 CONTINUE
      GO TO 900
C
C     Meyer: t = 45 + 5 i
   90 CONTINUE
      DO 91 I = 1, 16
         T = C45 + FIVE*DFLOAT(I)
         FVEC(I) = X(1)*EXP(X(2)/(T + X(3))) - Y3(I)
   91 CONTINUE
      GO TO 900
C
C     Watson: t = i/29, D runs through the powers of t
  100 CONTINUE
      DO 103 I = 1, 29
         T = DFLOAT(I)/C29
         S1 = ZERO
         D = ONE
         DO 101 J = 2, N
            S1 = S1 + DFLOAT(J-1)*D*X(J)
            D = T*D
  101    CONTINUE
         S2 = ZERO
         D = ONE
         DO 102 J = 1, N
            S2 = S2 + D*X(J)
            D = T*D
  102    CONTINUE
         FVEC(I) = S1 - S2**2 - ONE
  103 CONTINUE
      FVEC(30) = X(1)
      FVEC(31) = X(2) - X(1)**2 - ONE
      GO TO 900
C
C     Box three-dimensional: t = i/10
  110 CONTINUE
      DO 111 I = 1, M
         T = DFLOAT(I)/TEN
         FVEC(I) = EXP(-T*X(1)) - EXP(-T*X(2))
     *           - X(3)*(EXP(-T) - EXP(-TEN*T))
  111 CONTINUE
      GO TO 900
C
C     Jennrich and Sampson
  120 CONTINUE
      DO 121 I = 1, M
         FVEC(I) = TWO + TWO*DFLOAT(I) - EXP(DFLOAT(I)*X(1))
     *           - EXP(DFLOAT(I)*X(2))
  121 CONTINUE
      GO TO 900
C
C     Brown and Dennis: t = i/5
  130 CONTINUE
      DO 131 I = 1, M
         T = DFLOAT(I)/FIVE
         T1 = X(1) + T*X(2) - EXP(T)
         T2 = X(3) + SIN(T)*X(4) - COS(T)
         FVEC(I) = T1**2 + T2**2
  131 CONTINUE
      GO TO 900
C
C     Chebyquad: the shifted Chebyshev polynomials T*_i(x) = T_i(2x-1)
C     by their recurrence, averaged over the X(j), less their integral
C     over [0, 1] (-1/(i*i-1) for even i, 0 for odd i)
  140 CONTINUE
      DO 141 I = 1, M
         FVEC(I) = ZERO
  141 CONTINUE
      DO 143 J = 1, N
         T1 = ONE
         T2 = TWO*X(J) - ONE
         T = TWO*T2
         DO 142 I = 1, M
            FVEC(I) = FVEC(I) + T2
            TH = T*T2 - T1
            T1 = T2
            T2 = TH
  142    CONTINUE
  143 CONTINUE
      DO 144 I = 1, M
         FVEC(I) = FVEC(I)/DFLOAT(N)
         IF (MOD(I, 2) .EQ. 0) FVEC(I) = FVEC(I) + ONE/DFLOAT(I*I-1)
  144 CONTINUE
      GO TO 900
C
C     Brown almost-linear
  150 CONTINUE
      SUM = -DFLOAT(N+1)
      PROD = ONE
      DO 151 J = 1, N
         SUM = SUM + X(J)
         PROD = X(J)*PROD
  151 CONTINUE
      DO 152 I = 1, N - 1
         FVEC(I) = X(I) + SUM
  152 CONTINUE
      FVEC(N) = PROD - ONE
C
  900 CONTINUE
      RETURN
      END
