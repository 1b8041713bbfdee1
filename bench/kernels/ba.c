/* Bundle-adjustment reprojection error, summed over m observations: observation k sees point
   pt_of[k] (3 coordinates in pts) from camera cam_of[k] (11 parameters in cams: a Rodrigues
   rotation vector r, the camera centre C, the focal length f, the principal point x0, y0 and
   two radial distortion coefficients k1, k2). The point is moved into the camera frame,
   Y = R(r) (X - C) by Rodrigues' formula, projected, p = (Y1/Y3, Y2/Y3), distorted,
   p (1 + k1 |p|^2 + k2 |p|^4), and compared with obs. Written without calls (the adjoint
   of calls is not in adspec's adjoint mode yet): the rotation and the distortion are
   inline. The rotation angle is assumed nonzero. */
#include <math.h>

void ba(double *cams, double *pts, double *obs, int *cam_of, int *pt_of, double *f, int m) {
  int k, c, p;
  double px, py, pz, r0, r1, r2, theta, ct, st, w0, w1, w2, cx, cy, cz, dot, tmp;
  double qx, qy, qz, ux, uy, rsq, dist, ex, ey;
  *f = 0.0;
  for (k = 0; k < m; k++) {
    c = cam_of[k] * 11;
    p = pt_of[k] * 3;
    px = pts[p] - cams[c + 3];
    py = pts[p + 1] - cams[c + 4];
    pz = pts[p + 2] - cams[c + 5];
    r0 = cams[c];
    r1 = cams[c + 1];
    r2 = cams[c + 2];
    theta = sqrt(r0 * r0 + r1 * r1 + r2 * r2);
    ct = cos(theta);
    st = sin(theta);
    w0 = r0 / theta;
    w1 = r1 / theta;
    w2 = r2 / theta;
    cx = w1 * pz - w2 * py;
    cy = w2 * px - w0 * pz;
    cz = w0 * py - w1 * px;
    dot = w0 * px + w1 * py + w2 * pz;
    tmp = dot * (1.0 - ct);
    qx = px * ct + cx * st + w0 * tmp;
    qy = py * ct + cy * st + w1 * tmp;
    qz = pz * ct + cz * st + w2 * tmp;
    ux = qx / qz;
    uy = qy / qz;
    rsq = ux * ux + uy * uy;
    dist = 1.0 + cams[c + 9] * rsq + cams[c + 10] * rsq * rsq;
    ex = cams[c + 6] * ux * dist + cams[c + 7] - obs[2 * k];
    ey = cams[c + 6] * uy * dist + cams[c + 8] - obs[2 * k + 1];
    *f = *f + ex * ex + ey * ey;
  }
}
