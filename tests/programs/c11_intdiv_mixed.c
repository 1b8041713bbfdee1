/* Integer division and remainder of negatives, mixed-mode arithmetic, casts,
 * the conditional operator, long integers. */
/* adspec-test: mixed(k:i4[4], x:r8, m:i4=-7, big:i8*) -> r8 */
double mixed(int *k, double x, int m, long long *big)
{
    int q = m / 2, r = m % 3;
    double d = m / 2;            /* integer division then conversion */
    double e = m / 2.0;          /* mixed-mode division */
    long long b = 1L;
    int i;
    for (i = 0; i < 20; i++)
        b *= 3;
    *big = b + (long long)k[0] * 1000000000LL;
    k[1] = k[1] * m / 2 + r;
    k[2] = (int)(x * 1000.0) - q;
    k[3] = k[3] > 2 ? k[3] / 2 : -k[3];
    x = x + (float)x + d * e + (double)(k[2] / 4) + 1 / 2 + 1.0 / 2;
    return x + (q < r ? q : r) + (x > 1.5 ? 1.0 : -1.0);
}
