/* A procedure called both ways: split ($AD NOCHECKPOINT: step_fwd, step_bwd) and joint (step_b). */
#include <math.h>

static void step(double x[3], double h) {
    double t = x[0] * x[1];
    x[0] = x[0] + h * sin(x[1]);
    x[1] = x[1] * x[2] - t;
    x[2] = x[2] + x[0] * x[0] * h;
}

void integ(double x[3], double h, int n) {
    int i;
    for (i = 0; i < n; i++) {
        // $AD NOCHECKPOINT
        step(x, h);
        step(x, 0.5 * h);
    }
}
