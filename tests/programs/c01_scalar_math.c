/* By-value doubles, math library calls, mixed int/double arithmetic. */
/* adspec-test: scalar_math(x:r8, y:r8, n:i4=5) -> r8 */
#include <math.h>

double scalar_math(double x, double y, int n)
{
    double t, u;
    int q = n / 2;           /* integer division */
    int r = n % 3;
    t = x * q + y / n;       /* int promoted to double */
    u = sqrt(x) + exp(-y) + log(x + y) - sin(x) * cos(y) + tan(0.3 * x);
    u += atan2(y, x) + tanh(x - y) + pow(x, 2.5) + fabs(y - x);
    t += fmin(x, y) + fmax(x, 0.75) + fmod(x * 10.0, 3.0) + floor(-x) + ceil(y);
    t = t + (double)r / 4 + (int)(x * 10.0) + 1.5e-3 * -x + +y;
    return t * u - 2.0;
}
