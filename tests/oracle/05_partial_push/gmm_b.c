#include <adStack.h>
#include <math.h>

void center(int d, double *x, double *mu, double *xc);

/* Differentiation of center in reverse (adjoint) mode: */
/*   RW status of diff variables: mu:incr xc:in-out */
void center_b(int d, double *x, double *mu, double *mub, double *xc, double *xcb) {
    int j;
    int ad_from;
    int ad_to;
    ad_from = 0;
    for (j = ad_from; j < d; j++) {
    }
    pushInteger4(j - 1);
    pushInteger4(ad_from);
    popInteger4(&ad_from);
    popInteger4(&ad_to);
    for (j = ad_to; j >= ad_from; j = j - 1) {
        mub[j] = mub[j] - xcb[j];
        xcb[j] = 0.0;
    }
}

/* Differentiation of point_term in reverse (adjoint) mode: */
/*   RW status of diff variables: mu:incr alphas:incr lse:in-zero */
void point_term_b(int d, int k, double *x, double *mu, double *mub, double *alphas, double *alphasb, double *lse, double *lseb) {
    int c;
    int j;
    int ad_from0;
    int ad_to0;
    int ad_from1;
    int ad_to1;
    double tempb;
    double tempb0;
    double xc[4];
    double xcb[4] = {0};
    double q, sumexp;
    double qb = 0.0, sumexpb = 0.0;
    sumexp = 0.0;
    ad_from1 = 0;
    for (c = ad_from1; c < k; c++) {
        pushReal8(xc[0]);
        pushInteger4(c);
        pushInteger4(d);
        center(d, x, &mu[c * d], xc);
        pushReal8(q);
        q = 0.0;
        ad_from0 = 0;
        for (j = ad_from0; j < d; j++) {
            q = q + xc[j] * xc[j];
        }
        pushInteger4(j - 1);
        pushInteger4(ad_from0);
        sumexp = sumexp + exp(alphas[c] - 0.5 * q);
    }
    pushInteger4(c - 1);
    pushInteger4(ad_from1);
    sumexpb = sumexpb + 1.0 / sumexp * *lseb;
    *lseb = 0.0;
    popInteger4(&ad_from1);
    popInteger4(&ad_to1);
    for (c = ad_to1; c >= ad_from1; c = c - 1) {
        tempb = exp(alphas[c] - 0.5 * q) * sumexpb;
        qb = -(0.5 * tempb);
        alphasb[c] = alphasb[c] + tempb;
        popInteger4(&ad_from0);
        popInteger4(&ad_to0);
        for (j = ad_to0; j >= ad_from0; j = j - 1) {
            tempb0 = xc[j] * qb;
            xcb[j] = xcb[j] + tempb0 + tempb0;
        }
        popReal8(&q);
        qb = 0.0;
        popInteger4(&d);
        popInteger4(&c);
        popReal8(&xc[0]);
        center_b(d, x, &mu[c * d], &mub[c * d], xc, xcb);
    }
}

/* Differentiation of gmm_objective in reverse (adjoint) mode: */
/*   gradient     of useful results: *err */
/*   with respect to varying inputs: *mu *alphas */
/*   RW status of diff variables: mu:incr alphas:incr err:in-zero */
void gmm_objective_b(int d, int k, int n, double *x, double *mu, double *mub, double *alphas, double *alphasb, double *err, double *errb) {
    int i;
    int ad_from2;
    int ad_to2;
    double lse;
    double lseb = 0.0;
    ad_from2 = 0;
    for (i = ad_from2; i < n; i++) {
        pushInteger4(d);
        pushInteger4(i);
    }
    pushInteger4(i - 1);
    pushInteger4(ad_from2);
    popInteger4(&ad_from2);
    popInteger4(&ad_to2);
    for (i = ad_to2; i >= ad_from2; i = i - 1) {
        lseb = lseb + *errb;
        popInteger4(&i);
        popInteger4(&d);
        point_term_b(d, k, &x[i * d], mu, mub, alphas, alphasb, &lse, &lseb);
    }
    *errb = 0.0;
}
