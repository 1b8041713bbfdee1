/* Sequential reference of cu11_atomics.cu. */
/* adspec-test: run(v:i4[180], n:i4=180, stats:i4[4], seen:i4[16]) */
void run(int *v, int n, int *stats, int *seen)
{
    int i, j, k;
    stats[0] = -1;
    stats[1] = 1000;
    stats[2] = 5000;
    stats[3] = 0;
    for (j = 0; j < 16; j++)
        seen[j] = 0;
    for (i = 0; i < n; i++) {
        k = (v[i] * 7 + i * 3) % 50;
        if (k > stats[0])
            stats[0] = k;
        if (k < stats[1])
            stats[1] = k;
        stats[2] -= k;
        stats[3] += k % 3;
        if (seen[k % 8] == 0)
            seen[k % 8] = 1;
        seen[8 + k % 8] = k % 8 + 1;
    }
}
