/* A recursive function called inside an expression of its own body. */
#include <math.h>

double rsum(double x, int n) {
    double r = x;
    if (n > 0) {
        r = x * rsum(sin(x), n - 1) + r * r;
    }
    return r;
}
