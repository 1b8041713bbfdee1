/* Global variables: scalars, initialized arrays, static globals, used by several functions. */
/* adspec-test: accumulate(x:r8[4], n:i4=4) -> r8 */
double coeffs[4] = {1.0, -0.5, 0.25, 2.0};
double total;
static int ncalls = 0;
int global_n;

static void add_term(double v, int i)
{
    total += coeffs[i % 4] * v;
    ncalls++;
}

double accumulate(double *x, int n)
{
    int i;
    total = 0.0;
    global_n = n;
    for (i = 0; i < global_n; i++)
        add_term(x[i] * x[i], i);
    coeffs[0] = total;
    x[0] = coeffs[0] + coeffs[3];
    return total + ncalls;
}
