/* Pointer arithmetic, address-of, dereference, pointers to pointers. */
/* adspec-test: walk(a:r8[6], n:i4=6, out:r8[2]) */
static void swap(double *p, double *q)
{
    double t = *p;
    *p = *q;
    *q = t;
}

void walk(double *a, int n, double *out)
{
    double *p = a;
    double *end = a + n;
    double **pp = &p;
    double acc = 0.0;
    while (p < end) {
        acc += *p * 0.5;
        p++;
    }
    p = (double *)(a + 1);     /* a cast to a pointer type */
    **pp = **pp + acc;          /* a[1] */
    *(a + 2) = *(p + 1) * 2.0;
    swap(&a[0], a + n - 1);
    out[0] = acc;
    out[1] = (double)(end - a) + p[3];
    for (p = a + n - 1; p != a; p--)
        *p -= *(p - 1) * 0.1;
}
