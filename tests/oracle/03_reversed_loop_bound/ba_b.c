#include <adStack.h>

void distort(int m, double *kappa, double *p, double *q);

/* Differentiation of distort in reverse (adjoint) mode: */
/*   RW status of diff variables: kappa:incr p:incr q:in-out */
void distort_b(int m, double *kappa, double *kappab, double *p, double *pb, double *q, double *qb) {
    int i;
    int ad_from;
    int ad_to;
    double tempb;
    double tempb0;
    double tempb1;
    double r2, s;
    double r2b = 0.0, sb = 0.0;
    ad_from = 0;
    for (i = ad_from; i < 2 * m; i = i + 2) {
        pushReal8(r2);
        r2 = p[i] * p[i] + p[i + 1] * p[i + 1];
        pushReal8(s);
        s = 1.0 + kappa[0] * r2 + kappa[1] * r2 * r2;
    }
    pushInteger4(i - 2);
    pushInteger4(ad_from);
    popInteger4(&ad_from);
    popInteger4(&ad_to);
    for (i = ad_to; i > ad_from; i = i - 2) {
        sb = p[i + 1] * qb[i + 1] + p[i] * qb[i];
        pb[i + 1] = pb[i + 1] + s * qb[i + 1];
        qb[i + 1] = 0.0;
        pb[i] = pb[i] + s * qb[i];
        qb[i] = 0.0;
        popReal8(&s);
        tempb1 = r2 * sb;
        kappab[0] = kappab[0] + tempb1;
        r2b = kappa[0] * sb + kappa[1] * tempb1 + kappa[1] * r2 * sb;
        kappab[1] = kappab[1] + r2 * tempb1;
        sb = 0.0;
        popReal8(&r2);
        tempb0 = p[i] * r2b;
        pb[i] = pb[i] + tempb0 + tempb0;
        tempb = p[i + 1] * r2b;
        pb[i + 1] = pb[i + 1] + tempb + tempb;
        r2b = 0.0;
    }
}

/* Differentiation of ba_objective in reverse (adjoint) mode: */
/*   gradient     of useful results: *err */
/*   with respect to varying inputs: *kappa *p *w */
/*   RW status of diff variables: kappa:incr p:incr w:incr err:in-zero */
void ba_objective_b(int m, double *kappa, double *kappab, double *p, double *pb, double *obs, double *w, double *wb, double *err, double *errb) {
    int i;
    int ad_from0;
    int ad_to0;
    double tempb2;
    double q[8];
    double qb[8] = {0};
    distort(m, kappa, p, q);
    ad_from0 = 0;
    for (i = ad_from0; i < 2 * m; i++) {
    }
    pushInteger4(i - 1);
    pushInteger4(ad_from0);
    popInteger4(&ad_from0);
    popInteger4(&ad_to0);
    for (i = ad_to0; i >= ad_from0; i = i - 1) {
        tempb2 = (q[i] - obs[i]) * *errb;
        *wb = *wb + (q[i] - obs[i]) * tempb2;
        qb[i] = qb[i] + *w * tempb2 + *w * (q[i] - obs[i]) * *errb;
    }
    *errb = 0.0;
    distort_b(m, kappa, kappab, p, pb, q, qb);
}
