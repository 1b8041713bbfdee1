/* Unions: the bits of a double (sign, exponent) and a double as two 32-bit words. */
/* adspec-test: bitsplit(x:r8[4], expo:i4[4], out:r8[4]) -> r8 */
union dbits {
    double d;
    long long i;
};

typedef union {
    double d;
    int w[2];
} words;

static int exponent_of(double x)
{
    union dbits b;
    b.d = x;
    return (int) ((b.i >> 52) & 2047) - 1023;
}

static double flip_sign(double x)
{
    union dbits b;
    b.d = x;
    b.i = b.i ^ (1LL << 62 << 1);
    return b.d;
}

double bitsplit(double *x, int *expo, double *out)
{
    words v, copy;
    double s = 0.0;
    int k;
    for (k = 0; k < 4; k++) {
        expo[k] = exponent_of(x[k] * (k + 1) * 1000.0);
        out[k] = flip_sign(x[k]) * x[k];
        v.d = x[k];
        copy = v;            /* a union is copied whole */
        copy.w[0] = 0;       /* clear the low word: truncates the mantissa */
        s += x[k] - copy.d;
    }
    return s * 1.0e6;
}
