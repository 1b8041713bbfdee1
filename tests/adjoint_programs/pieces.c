/* A piece of C code between the CHECKPOINT-START and CHECKPOINT-END directive comments: the
   body of a time loop (ending at the end of the loop body), then a piece after the loop. */
#include <math.h>

void relax(double u[8], double c, int n, int nt, double *e) {
    int it, i, k;
    double w[8], t;
    *e = 0;
    for (it = 0; it < nt; it++) {
        /* $AD CHECKPOINT-START */
        for (k = 0; k < 3; k++) {
            for (i = 1; i < n - 1; i++)
                w[i] = u[i] + c * (u[i - 1] - 2 * u[i] + u[i + 1]);
            for (i = 1; i < n - 1; i++) {
                t = w[i];
                u[i] = t * cos(t) + u[i];
            }
        }
        *e = *e + u[1] * u[2];
        /* $AD CHECKPOINT-END */
    }
    /* $AD CHECKPOINT-START */
    t = 0;
    for (i = 0; i < n; i++)
        t = t + u[i] * u[i];
    /* $AD CHECKPOINT-END */
    *e = *e + sin(t) * c;
}
