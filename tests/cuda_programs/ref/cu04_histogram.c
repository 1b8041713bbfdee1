/* Sequential reference of cu04_histogram.cu: elements added in index order (the order of
   the threads). */
/* adspec-test: run(keys:i4[200], w:r8[200], n:i4=200, count:i4[8], weight:r8[8]) */
void run(int *keys, double *w, int n, int *count, double *weight)
{
    int i, b;
    for (b = 0; b < 8; b++) {
        count[b] = 0;
        weight[b] = 0.0;
    }
    for (i = 0; i < n; i++) {
        b = (keys[i] * 3 + i) % 8;
        count[b] += 1;
        weight[b] += w[i];
    }
}
