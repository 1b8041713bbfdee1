/* ADBench-style Gaussian mixture objective (isotropic components, dimension d <= 4). */
#include <math.h>

void center(int d, double *x, double *mu, double *xc) {
    for (int j = 0; j < d; j++) {
        xc[j] = x[j] - mu[j];
    }
}

void point_term(int d, int k, double *x, double *mu, double *alphas, double *lse) {
    double xc[4];
    double q, sumexp;
    sumexp = 0.0;
    for (int c = 0; c < k; c++) {
        center(d, x, &mu[c * d], xc);
        q = 0.0;
        for (int j = 0; j < d; j++) {
            q = q + xc[j] * xc[j];
        }
        sumexp = sumexp + exp(alphas[c] - 0.5 * q);
    }
    *lse = log(sumexp);
}

void gmm_objective(int d, int k, int n, double *x, double *mu, double *alphas, double *err) {
    double lse;
    *err = 0.0;
    for (int i = 0; i < n; i++) {
        point_term(d, k, &x[i * d], mu, alphas, &lse);
        *err = *err + lse;
    }
}
