/* $AD directive comments before a call and before loops. */
/* adspec-test: smooth(u:r8[6], n:i4=6, e:r8*) */
#include <math.h>

static void energy(const double *v, int n, double *e)
{
    int i;
    for (i = 0; i < n; i++)
        *e += v[i] * v[i];
    if (*e > 1.0e3)
        return;
    *e = sqrt(*e);
}

void smooth(double *u, int n, double *e)
{
    double tmp[6];
    int i;
    *e = 0.0;
    /* $AD II-LOOP */
    for (i = 1; i < n - 1; i++)
        tmp[i] = 0.25 * u[i - 1] + 0.5 * u[i] + 0.25 * u[i + 1];
    tmp[0] = u[0];
    tmp[n - 1] = u[n - 1];
    /* $AD NOCHECKPOINT */
    energy(tmp, n, e);
    // $AD II-LOOP
    for (i = 0; i < n; i++)
        u[i] = tmp[i] - *e / n;
}
