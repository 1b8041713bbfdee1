/* a struct with an array field, updated through a pointer by a helper */
struct state {
  double q[3];
  double e;
  int n;
};
static void step(struct state *s, double dt) {
  int i;
  for (i = 0; i < s->n; i++) {
    s->q[i] = s->q[i] + dt * s->e * s->q[i];
  }
  s->e = s->e * (1.0 - dt * s->q[0]);
}
void g(double *q, double *e, int n) {
  struct state s;
  int i, k;
  s.n = 3;
  for (i = 0; i < 3; i++) {
    s.q[i] = q[i];
  }
  s.e = *e;
  for (k = 0; k < n; k++) {
    step(&s, 0.1);
  }
  for (i = 0; i < 3; i++) {
    q[i] = s.q[i];
  }
  *e = s.e;
}
