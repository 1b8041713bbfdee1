/* Structs by value: passed, returned and assigned (copied), and through pointers. */
/* adspec-test: structvals(p:r8[4], out:r8[3]) -> r8 */
typedef struct {
    double x, y;
} vec2;

static vec2 make(double x, double y)
{
    vec2 v;
    v.x = x;
    v.y = y;
    return v;
}

static vec2 add(vec2 a, vec2 b)
{
    a.x += b.x;          /* a is a copy: the caller's value is unchanged */
    a.y += b.y;
    return a;
}

static double dot(const vec2 *a, const vec2 *b)
{
    return a->x * b->x + a->y * b->y;
}

double structvals(double *p, double *out)
{
    vec2 u = make(p[0], p[1]);
    vec2 w = make(p[2], p[3]);
    vec2 s, pts[2];
    s = add(u, w);
    pts[0] = s;
    pts[1] = u;
    pts[1].y = -pts[1].y;
    out[0] = s.x + u.x;
    out[1] = pts[1].y + pts[0].y;
    out[2] = dot(&pts[0], &pts[1]);
    return dot(&u, &w);
}
