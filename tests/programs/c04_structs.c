/* Structs, typedef struct, nested structs, arrays of structs, p->f and s.f. */
/* adspec-test: centroid(xs:r8[4], ys:r8[4], c:r8[3]) */
struct point {
    double x, y;
};

typedef struct {
    struct point v[4];
    int n;
    double weight;
} polygon;

static double cross(const struct point *a, const struct point *b)
{
    return a->x * b->y - b->x * a->y;
}

void centroid(double *xs, double *ys, double *c)
{
    polygon poly;
    polygon *pp = &poly;
    struct point mid;
    int i;
    pp->n = 4;
    poly.weight = 0.5;
    mid.x = 0.0;
    mid.y = 0.0;
    for (i = 0; i < pp->n; i++) {
        poly.v[i].x = xs[i] + i;
        poly.v[i].y = ys[i] * (i + 1);
        mid.x += poly.v[i].x / poly.n;
        mid.y += pp->v[i].y / poly.n;
    }
    c[0] = 0.0;
    for (i = 0; i < 4; i++)
        c[0] += cross(&poly.v[i], &pp->v[(i + 1) % 4]);
    c[0] *= poly.weight;
    c[1] = mid.x;
    c[2] = mid.y;
}
