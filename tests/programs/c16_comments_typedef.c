/* Typedef aliases, declarations with comments in between, nested blocks with
 * block-local declarations, empty statements and an array-of-structs global. */
/* adspec-test: kinetic(v:r8[6], m:r8[2], e:r8*) */
typedef double real;
typedef int index_t;

typedef struct particle {
    real mass;      /* kg */
    real vel[3];    /* m/s */
} particle;

particle parts[2];

void kinetic(real *v, real *m, real *e)
{
    /* loop counters */
    index_t i, j;
    // the running sum
    real sum = 0.0;
    for (i = 0; i < 2; i++) {
        parts[i].mass = m[i];
        for (j = 0; j < 3; j++)
            parts[i].vel[j] = v[3 * i + j];
    }
    for (i = 0; i < 2; i++) {
        real speed2 = 0.0;   /* block-local */
        for (j = 0; j < 3; j++) {
            real c = parts[i].vel[j];
            speed2 += c * c;
        }
        ;
        sum += 0.5 * parts[i].mass * speed2;
    }
    *e = sum;
    m[0] = parts[1].vel[2] + (real)sizeof(particle) / 8;
}
