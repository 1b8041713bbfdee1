#include <adStack.h>

void penalty(double a, double *p);

/* Differentiation of penalty in reverse (adjoint) mode: */
/*   RW status of diff variables: a:incr p:in-zero */
void penalty_b(double a, double *ab, double *p, double *pb) {
    double tempb;
    tempb = a * (1.0 / (1.0 + a * a) * *pb);
    *ab = *ab + tempb + tempb;
    *pb = 0.0;
}

/* Differentiation of rosen in reverse (adjoint) mode: */
/*   gradient     of useful results: *f */
/*   with respect to varying inputs: *x *w */
/*   RW status of diff variables: x:incr w:incr f:in-zero */
void rosen_b(int n, double *x, double *xb, double *w, double *wb, double *f, double *fb) {
    int i;
    int ad_from;
    int ad_to;
    double tempb0;
    double tempb1 = 0.0;
    double d, e, p;
    double db = 0.0, eb = 0.0, pb = 0.0;
    ad_from = 0;
    for (i = ad_from; i < n - 1; i++) {
        pushReal8(d);
        d = x[i + 1] - x[i] * x[i];
        pushReal8(e);
        e = 1.0 - x[i];
        pushInteger4(i);
        pushReal8(p);
        penalty(x[i], &p);
    }
    pushInteger4(i - 1);
    pushInteger4(ad_from);
    popInteger4(&ad_from);
    popInteger4(&ad_to);
    for (i = ad_to; i >= ad_from; i = i - 1) {
        db = 100.0 * (d * *fb) + 100.0 * d * *fb;
        tempb0 = e * *fb;
        eb = tempb0 + tempb0;
        *wb = *wb + p * *fb;
        pb = pb + *w * *fb;
        popReal8(&p);
        popInteger4(&i);
        penalty_b(x[i], &xb[i], &p, &pb);
        popReal8(&e);
        xb[i] = xb[i] - eb - tempb1 - tempb1;
        tempb1 = x[i] * db;
        eb = 0.0;
        popReal8(&d);
        xb[i + 1] = xb[i + 1] + db;
        db = 0.0;
    }
    *fb = 0.0;
}
