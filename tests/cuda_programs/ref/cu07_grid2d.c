/* Sequential reference of cu07_grid2d.cu. */
/* adspec-test: run(u:r8[192], lap:r8[192], owner:i4[192], nx:i4=16, ny:i4=12) */
void run(double *u, double *lap, int *owner, int nx, int ny)
{
    int ix, iy, k;
    int gridx = (nx + 7) / 8;
    for (iy = 0; iy < ny; iy++)
        for (ix = 0; ix < nx; ix++) {
            k = iy * nx + ix;
            if (ix == 0 || iy == 0 || ix == nx - 1 || iy == ny - 1)
                lap[k] = u[k];
            else
                lap[k] = u[k - 1] + u[k + 1] + u[k - nx] + u[k + nx] - 4.0 * u[k];
            owner[k] = (iy / 8) * gridx + ix / 8;
        }
}
