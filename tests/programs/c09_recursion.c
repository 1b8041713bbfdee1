/* Recursive functions, direct and through a helper. */
/* adspec-test: rec(x:r8, n:i4=6, fib:i4*) -> r8 */
static int ifib(int k)
{
    if (k < 2)
        return k;
    return ifib(k - 1) + ifib(k - 2);
}

static double power_rec(double b, int k)
{
    if (k == 0)
        return 1.0;
    else if (k % 2 == 0)
        return power_rec(b * b, k / 2);
    else
        return b * power_rec(b, k - 1);
}

static void descend(int k, double x, double *acc)
{
    if (k <= 0) return;
    *acc += x / k;
    descend(k - 1, x * 0.5, acc);
}

double rec(double x, int n, int *fib)
{
    double acc = 0.0;
    *fib = ifib(n);
    descend(n, x, &acc);
    return power_rec(x, n) + acc;
}
