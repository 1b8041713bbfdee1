/* while, do-while, break, continue, for loops with negative steps, nested loops. */
/* adspec-test: loops(a:r8[10], n:i4=10, cnt:i4*) -> r8 */
double loops(double *a, int n, int *cnt)
{
    double s = 0.0;
    int i, j, k;
    *cnt = 0;
    for (i = n - 1; i >= 0; i -= 3) {
        if (a[i] > 1.2)
            continue;
        s += a[i];
        (*cnt)++;
    }
    k = 0;
    while (k < n && s < 100.0) {
        s = s * 1.05 + a[k] / (k + 1);
        k++;
    }
    j = n;
    do {
        j--;
        a[j] += 0.5 * a[j - 1];
        if (j < 4)
            break;
    } while (j > 0);
    for (i = 0; i < n; i++) {
        for (j = i; j < n; j += 2) {
            if (j > i + 4) break;
            *cnt += 1;
        }
    }
    for (;;) {
        k--;
        if (k < n / 2) break;
        s -= 0.01 * a[k];
    }
    return s + j + k;
}
