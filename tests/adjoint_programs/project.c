/* A helper that overwrites a whole 2-vector output the caller reads afterwards
   (ADBench's reprojection: Tapenade pushes only proj[0]). */
static void project(const double *cam, const double *x, double *proj) {
    double p0 = cam[0] * x[0] + cam[1] * x[1];
    double p1 = cam[2] * x[0] * x[1] + cam[3];
    proj[0] = p0 / (1.0 + p1 * p1);
    proj[1] = p1 * cam[0];
}

void reproj(const double *cam, const double *pts, double *err, int n) {
    double proj[2];
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        project(cam, &pts[2 * i], proj);
        err[2 * i] = proj[0] * proj[1] - pts[2 * i];
        project(cam, &pts[2 * i + 1], proj);
        err[2 * i + 1] = proj[1] * proj[0] * s + sin(proj[0]);
        s = s + proj[1];
    }
}
