/* Logical and bitwise operators, shifts, compound assignments, ++/--, unsigned-free ints. */
/* adspec-test: bits(k:i4[4], x:r8[3], flag:i4*) -> i4 */
int bits(int *k, double *x, int *flag)
{
    int a = k[0], b = k[1];
    int m = 0;
    int i;
    a <<= 2;
    b = (b << 3) | (a & 5);
    m = (a ^ b) & ~1;
    m += a >> 1;
    m -= 3;
    m *= 2;
    m /= 3;
    m %= 11;
    k[2] = !(k[2] > 2) + (k[3] != 1) * 10;
    *flag = (x[0] > 1.0 && x[1] < 1.2) || !(x[2] >= 0.8);
    for (i = 0; i < 3; i++) {
        if (*flag && i != 1)
            x[i] *= 2.0;
        else
            x[i] /= 4.0;
    }
    k[3]--;
    ++k[0];
    return m + a + b;
}
