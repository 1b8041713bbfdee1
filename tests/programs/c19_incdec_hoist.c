/* ++, --, compound and nested assignments inside expressions: compaction, packing, scans. */
/* adspec-test: compact(x:r8[10], packed:r8[10], idx:i4[10], n:i4=10) -> i4 */
static int next_index(int *state, int n)
{
    *state = (*state * 7 + 3) % n;
    return *state;
}

int compact(double *x, double *packed, int *idx, int n)
{
    int i = 0, k = 0, m, state = 1, c;
    double last, sum = 0.0;
    /* keep the values above the mean, packed at the front */
    for (i = 0; i < n; ++i)
        sum += x[i];
    last = sum / n;
    i = 0;
    while (i < n) {
        if (x[i] > last) {
            idx[k] = i;
            packed[k++] = x[i];
        }
        i++;
    }
    m = k;
    /* the rest, from the end, with a pre-decrement in the index */
    for (i = n - 1; i >= 0; i--)
        if (x[i] <= last)
            packed[m++] = -x[i];
    /* a side effect in the loop condition runs at every test */
    k = 0;
    while ((c = next_index(&state, n)) < n && k < 2 * n) {
        if (c % 3 == 0) {
            k += 2;
            continue;
        }
        x[c] = x[c] * 0.5 + ++k;
    }
    /* nested assignments and a pre-increment in an index */
    sum = last = packed[0];
    i = 3;
    packed[1] = packed[++i] * 2.0 + packed[3];
    idx[n - 1] = i-- + 100;
    if (m-- > n - 1)
        sum += m;
    return m + k + i + (int) sum;
}
