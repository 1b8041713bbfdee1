/* ADBench-style reprojection error: 2-D points stored as (u, v) pairs, radial distortion,
   one weight for the whole residual. */
void distort(int m, double *kappa, double *p, double *q) {
    double r2, s;
    for (int i = 0; i < 2 * m; i += 2) {
        r2 = p[i] * p[i] + p[i + 1] * p[i + 1];
        s = 1.0 + kappa[0] * r2 + kappa[1] * r2 * r2;
        q[i] = p[i] * s;
        q[i + 1] = p[i + 1] * s;
    }
}

void ba_objective(int m, double *kappa, double *p, double *obs, double *w, double *err) {
    double q[8];
    distort(m, kappa, p, q);
    *err = 0.0;
    for (int i = 0; i < 2 * m; i++) {
        *err = *err + *w * (q[i] - obs[i]) * (q[i] - obs[i]);
    }
}
