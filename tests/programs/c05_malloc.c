/* Heap arrays with malloc/free, sizeof, casts. */
/* adspec-test: heap(a:r8[5], n:i4=5) -> r8 */
#include <stdlib.h>

double heap(double *a, int n)
{
    double *work;
    int *perm;
    double s = 0.0;
    int i;
    work = (double *)malloc(n * sizeof(double));
    perm = (int *)malloc(n * sizeof(int));
    for (i = 0; i < n; i++) {
        work[i] = a[i] * a[i];
        perm[i] = (i * 3) % n;
    }
    for (i = 0; i < n; i++) {
        a[i] = work[perm[i]] - a[i];
        s += work[i] / (i + 1);
    }
    free(perm);
    free(work);
    return s + (double)sizeof(double);
}
