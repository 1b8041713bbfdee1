/* Single-precision arithmetic only (no libm calls): float literals and arrays. */
/* adspec-test: horner(c:r4[5], x:r4, y:r4[3]) -> r4 */
float horner(float *c, float x, float *y)
{
    float acc = 0.0f;
    float h;
    int i;
    for (i = 4; i >= 0; i--)
        acc = acc * x + c[i];
    h = 0.5f * x;
    y[0] = acc / (1.0f + h * h);
    y[1] = (acc > 2.5f ? acc - 2.5f : 2.5f - acc) + h * 0.7f;
    y[2] = (c[1] + c[2] + c[3]) * 1.25f - 3.0f / 7.0f;
    for (i = 0; i < 3; i++)
        y[i] += 1.0e-2f * y[2];
    return acc + y[0] * y[1] - (float)(i / 2);
}
