/* Prototypes before definitions, static and void functions, outputs through
 * pointers, calls nested in expressions, calls as statements. */
/* adspec-test: model(p:r8[3], x:r8, y:r8*) -> r8 */
#include <math.h>

static double sq(double v);
void update(double *state, double dt, int steps);
double model(double *p, double x, double *y);

static double sq(double v)
{
    return v * v;
}

void update(double *state, double dt, int steps)
{
    int s;
    for (s = 0; s < steps; s++) {
        state[0] += dt * state[1];
        state[1] -= dt * (sq(state[0]) + state[2] * state[1]);
    }
}

double model(double *p, double x, double *y)
{
    double r;
    update(p, 0.1 * x, 3);
    r = sq(p[0]) + sq(sq(p[1])) + exp(-sq(x));
    *y = r * sq(x) - p[2];
    return r;
}
