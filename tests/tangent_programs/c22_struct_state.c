#include <math.h>
/* a struct holding a fixed-size state array, passed by pointer and updated in place by a
   helper in a time loop: run_d takes the derivative of *p after p, zeroed by the caller */
#define NS 4
typedef struct {
  double s[NS];
  double c;
} system_t;
static void advance(system_t *p, double a) {
  for (int i = 0; i < NS; i++) p->s[i] = p->s[i] * a + p->c * cos(p->s[i]);
}
void run(double *x, system_t *p, double *y) {
  p->c = p->c * x[1];
  for (int t = 0; t < 4; t++) advance(p, x[0]);
  *y = 0.0;
  for (int i = 0; i < NS; i++) *y += p->s[i] * p->s[i];
}
