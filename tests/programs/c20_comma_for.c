/* The comma operator: two-index loops (reversal, symmetric sums), a comma in an expression. */
/* adspec-test: twoends(a:r8[9], b:r8[9], n:i4=9) -> r8 */
static double swap_reverse(double *v, int n)
{
    int i, j;
    double t, moved = 0.0;
    for (i = 0, j = n - 1; i < j; i++, j--) {
        t = v[i], v[i] = v[j], v[j] = t;
        moved += t;
    }
    return moved;
}

double twoends(double *a, double *b, int n)
{
    int lo, hi, steps;
    double s = 0.0, w;
    for (lo = 0, hi = n - 1, steps = 0; lo <= hi; ++lo, --hi, steps += 1) {
        w = (lo == hi) ? 0.5 : 1.0;
        s += w * (a[lo] * b[hi] + a[hi] * b[lo]);
    }
    s += swap_reverse(b, n);
    /* the left operand runs first, the value is the right one */
    w = (lo = 2, a[lo] + a[lo + 1]);
    return s + w * steps;
}
