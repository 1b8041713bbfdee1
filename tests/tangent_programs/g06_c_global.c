/* Active file-scope variables: the head sets one that a helper reads, a helper sets one that
   the head reads; their derivatives are file-scope variables of the tangent file. */
double gain;
double acc;
int calls;

static void scale_into(double *u, int n) {
    int i;
    for (i = 0; i < n; i++) {
        acc = acc + gain * u[i] * u[i];
    }
    calls = calls + 1;
}

void f(double *x, double *y, int n) {
    gain = x[0] * x[1];
    acc = 1.0;
    scale_into(x, n);
    *y = acc * gain + x[2];
}
