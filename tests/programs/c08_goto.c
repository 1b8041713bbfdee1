/* goto and labels: a Newton iteration written with jumps, an early return. */
/* adspec-test: newton(a:r8, x:r8*, iters:i4*) -> i4 */
int newton(double a, double *x, int *iters)
{
    double f, df;
    if (a < 0.0)
        return -1;
    *iters = 0;
    *x = a + 1.0;
again:
    f = *x * *x - a;
    df = 2.0 * *x;
    if (f < 1e-12 && f > -1e-12)
        goto done;
    *x = *x - f / df;
    ++*iters;
    if (*iters >= 50)
        goto fail;
    goto again;
done:
    return 0;
fail:
    *x = -1.0;
    return 1;
}
