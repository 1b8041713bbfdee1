/* Enum-named modes choosing a boundary condition and a time scheme (switch on an enum). */
/* adspec-test: heat(u:r8[8], work:r8[8], steps:i4=5) -> r8 */
enum boundary { DIRICHLET, NEUMANN, PERIODIC };
typedef enum { EXPLICIT = 1, HALF_STEP = 4, DAMPED } scheme;
enum { NPTS = 8, LAST = NPTS - 1 };

static void apply_boundary(double *u, enum boundary bc)
{
    switch (bc) {
    case DIRICHLET:
        u[0] = 0.0;
        u[LAST] = 0.0;
        break;
    case NEUMANN:
        u[0] = u[1];
        u[LAST] = u[LAST - 1];
        break;
    case PERIODIC:
    default:
        u[0] = u[LAST - 1];
        u[LAST] = u[1];
    }
}

static double step(double *u, double *work, scheme s)
{
    double nu = 0.2, change = 0.0;
    int i;
    if (s == HALF_STEP)
        nu = nu / 2;
    for (i = 1; i < LAST; i++)
        work[i] = u[i] + nu * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
    for (i = 1; i < LAST; i++) {
        if (s == DAMPED)
            work[i] = 0.9 * work[i] + 0.1 * u[i];
        change += work[i] - u[i];
        u[i] = work[i];
    }
    return change;
}

double heat(double *u, double *work, int steps)
{
    enum boundary bc = NEUMANN;
    scheme s;
    double total = 0.0;
    int k;
    for (k = 0; k < steps; k++) {
        s = k % 3 == 0 ? EXPLICIT : k % 3 == 1 ? HALF_STEP : DAMPED;
        bc = (enum boundary) (k % 3);
        apply_boundary(u, bc);
        total += step(u, work, s) * s;
    }
    return total + bc + NPTS;
}
