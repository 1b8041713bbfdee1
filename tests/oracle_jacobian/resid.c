/* Residuals of a small curve fit, f_i(x) = x0 * exp(-x1 * t_i) + x2 * sin(t_i) - y_i, and their
   Jacobian written by hand, MINPACK's way: fjac[i + j*ldfjac] = d f_i / d x_j. */
#include <math.h>

void resid(int m, int n, const double *x, double *f)
{
    int i;
    for (i = 0; i < m; i++) {
        double t = 0.5 * (i + 1);
        f[i] = x[0] * exp(-x[1] * t) + x[2] * sin(t) - 1.0 / (1.0 + t);
    }
}

void jac(int m, int n, const double *x, double *fjac, int ldfjac)
{
    int i;
    for (i = 0; i < m; i++) {
        double t = 0.5 * (i + 1);
        double e = exp(-x[1] * t);
        fjac[i] = e;
        fjac[i + ldfjac] = -x[0] * t * e;
        fjac[i + 2 * ldfjac] = sin(t);
    }
}

/* The same Jacobian stored by rows, C's way: jac[i*n + j] (args file: [jacobian] layout = "rows") */
void jac_rows(int m, int n, const double *x, double *jac)
{
    int i;
    for (i = 0; i < m; i++) {
        double t = 0.5 * (i + 1);
        double e = exp(-x[1] * t);
        jac[i * n] = e;
        jac[i * n + 1] = -x[0] * t * e;
        jac[i * n + 2] = sin(t);
    }
}
