/* A switch choosing a slope limiter per cell, with shared labels, fall-through and break. */
/* adspec-test: limited(u:r8[8], kind:i4[6], out:r8[6]) -> r8 */
static double minmod(double a, double b)
{
    if (a * b <= 0.0)
        return 0.0;
    return (a > 0.0) == (a < b) ? a : b;
}

static double slope(int kind, double a, double b)
{
    double s = 0.0;
    switch (kind % 6) {
    case 0:
        /* first order: no slope */
        break;
    case 1:
    case 2:
        s = minmod(a, b);
        break;
    case 3:
        s = 0.5 * (a + b);   /* central, then limited by minmod below */
    case 4:
        s = minmod(s, 2.0 * minmod(a, b));
        break;
    default:
        s = -1.0;
    }
    return s;
}

double limited(double *u, int *kind, double *out)
{
    double total = 0.0;
    int i, skipped = 0;
    for (i = 1; i < 7; i++) {
        double a = u[i] - u[i - 1], b = u[i + 1] - u[i];
        switch ((kind[i - 1] + i) & 7) {
        case 7:
            skipped = skipped + 1;
            continue;        /* continue belongs to the for loop */
        case 6:
            while (a > 1.0) {
                a = a * 0.5;
                if (a < 1.5)
                    break;   /* leaves the while only */
            }
        default:
            out[i - 1] = u[i] + 0.5 * slope(kind[i - 1] * i, a, b);
        }
        total += out[i - 1];
    }
    return total + skipped;
}
