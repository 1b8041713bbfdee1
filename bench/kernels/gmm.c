/* Log-likelihood of n points of dimension d under a mixture of k Gaussians with diagonal
   covariance: means mu[k*d], log weights logw[k], standard deviations sigma[k*d]. */
#include <math.h>

void gmm(double *x, double *mu, double *logw, double *sigma, double *ll, int n, int d, int k) {
  int i, j, c;
  double s, q, z, best;
  *ll = 0.0;
  for (i = 0; i < n; i++) {
    s = 0.0;
    for (c = 0; c < k; c++) {
      q = logw[c];
      for (j = 0; j < d; j++) {
        z = (x[i*d + j] - mu[c*d + j]) / sigma[c*d + j];
        q = q - 0.5 * z * z - log(sigma[c*d + j]);
      }
      s = s + exp(q);
    }
    *ll = *ll + log(s);
  }
}
