/* Sequential reference of cu02_stencil.cu. */
/* adspec-test: run(u:r8[250], v:r8[250], n:i4=250) */
static double cell(const double *u, int n, int k)
{
    return k >= 0 && k < n ? u[k] : 0.0;
}

void run(double *u, double *v, int n)
{
    int g;
    for (g = 0; g < n; g++)
        v[g] = 0.1 * cell(u, n, g - 2) + 0.2 * cell(u, n, g - 1) + 0.4 * cell(u, n, g)
               + 0.2 * cell(u, n, g + 1) + 0.1 * cell(u, n, g + 2);
}
