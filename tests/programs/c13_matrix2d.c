/* Two-dimensional C arrays a[i][j]: locals, a 2-D parameter, matrix products. */
/* adspec-test: matops(m:r8[9], v:r8[3], t:r8*) */
static void matvec(double a[3][3], const double *x, double *y)
{
    int i, j;
    for (i = 0; i < 3; i++) {
        y[i] = 0.0;
        for (j = 0; j < 3; j++)
            y[i] += a[i][j] * x[j];
    }
}

void matops(double *m, double *v, double *t)
{
    double a[3][3], p[3][3];
    double mv[3];
    int i, j, k;
    for (i = 0; i < 3; i++)
        for (j = 0; j < 3; j++)
            a[i][j] = m[3 * i + j];
    for (i = 0; i < 3; i++)
        for (j = 2; j >= 0; j--) {
            p[i][j] = 0.0;
            for (k = 0; k < 3; k++)
                p[i][j] += a[i][k] * a[j][k];
        }
    matvec(p, v, mv);
    *t = 0.0;
    for (i = 0; i < 3; i++) {
        *t += mv[i] * v[i] + p[1][i] - (i - 1);
        m[3 * i + i] = p[i][i] / (1.0 + *t);
    }
}
