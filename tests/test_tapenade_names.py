"""Acceptance of Tapenade's names (issue 14): drivers written for Tapenade, by hand, with its
names (`f_d`, `f_dv`, C `T_diff` / `struct s_diff`, Fortran `TYPE(T_DIFF)` from `use m_diff`),
compile and link against adspec's tangent and vector tangent files, run clean under the
sanitizers (C: -fsanitize=address,undefined; Fortran: -fcheck=all), and print the analytic
derivatives (hand-computed here) to 1e-12: a function returning a real, a void procedure, and
structures passed by pointer whose int fields have no place in their derivative type."""
import math
import subprocess

import pytest

import adspec
from harness import require_compilers

HEADS = "fa(fa)/(x y) fb(y)/(x) fc(e p)/(p c)"
NBDIRS = 3

C_SOURCE = """#include <math.h>
double fa(double x, double y) {
  return x * x * sin(y) + exp(x * y);
}
void fb(const double *x, double *y, int n) {
  int i;
  y[0] = 0.0;
  for (i = 0; i < n; i++) {
    y[0] += x[i] * x[i];
  }
  y[1] = x[0] * x[n - 1];
}
typedef struct {
  double pos[2];
  double mass;
  int id;
} particle;
struct cell {
  particle p;
  double w;
  int count;
};
void fc(particle *p, struct cell *c, double *e) {
  *e = 0.5 * p->mass * (p->pos[0] * p->pos[0] + p->pos[1] * p->pos[1]) + c->w * c->p.mass * c->count;
  p->pos[0] = p->pos[0] * c->w + p->id;
}
"""

# the derivative types as a Tapenade user writes them in a driver, and as adspec must define them
C_TYPES = """typedef struct {
    double pos[2];
    double mass;
    int id;
} particle;
struct cell {
    particle p;
    double w;
    int count;
};
typedef struct {
    double pos[2]%(dirs)s;
    double mass%(dirs)s;
} particle_diff;
struct cell_diff {
    particle_diff p;
    double w%(dirs)s;
};
"""

# inputs, and the seeds of direction k (k = 0: the tangent's; 0..NBDIRS-1: the vector's)
X, Y, XS = 0.7, 1.3, (0.5, -1.2, 2.0)
POS, MASS, ID, CPOS, CMASS, CID, W, COUNT = (1.1, -0.4), 2.5, 3, (0.2, 0.3), 1.7, 9, 0.6, 4


def seeds(k: int) -> dict:
    s = 1.0 + k
    return {"xd": 0.4 * s, "yd": -0.9 + 0.3 * k, "xsd": (0.3 * s, 0.7 - k, -0.2 * s),
            "posd": (0.1 * s, 0.2 - 0.1 * k), "massd": -0.3 + k, "cposd": (0.5, 0.5 * s),
            "cmassd": 0.25 * s, "wd": -0.8 + 0.2 * k}


def expected(k: int) -> dict:
    """The analytic derivatives along the seeds of direction k."""
    d = seeds(k)
    fa = (2 * X * math.sin(Y) + Y * math.exp(X * Y)) * d["xd"] + (X * X * math.cos(Y) + X * math.exp(X * Y)) * d["yd"]
    xs, xsd = XS, d["xsd"]
    (px, py), (dpx, dpy) = POS, d["posd"]
    e = 0.5 * d["massd"] * (px * px + py * py) + MASS * (px * dpx + py * dpy) + COUNT * (CMASS * d["wd"] + W * d["cmassd"])
    return {"fad": fa, "yd0": sum(2 * a * b for a, b in zip(xs, xsd)), "yd1": xs[2] * xsd[0] + xs[0] * xsd[2],
            "ed": e, "pd.pos0": W * dpx + px * d["wd"], "pd.pos1": dpy, "pd.mass": d["massd"]}


def _c_set(k: int, index: str) -> str:
    """C statements setting the seeds of direction k into the derivative variables (index:
    the direction subscript, '' in the tangent)."""
    d = seeds(k)
    return (f"  xd{index} = {d['xd']!r}; yd{index} = {d['yd']!r};\n"
            + "".join(f"  xsd[{i}]{index} = {v!r};\n" for i, v in enumerate(d["xsd"]))
            + f"  pd.pos[0]{index} = {d['posd'][0]!r}; pd.pos[1]{index} = {d['posd'][1]!r};"
              f" pd.mass{index} = {d['massd']!r};\n"
            + f"  cd.p.pos[0]{index} = {d['cposd'][0]!r}; cd.p.pos[1]{index} = {d['cposd'][1]!r};"
              f" cd.p.mass{index} = {d['cmassd']!r}; cd.w{index} = {d['wd']!r};\n")


C_INPUTS = f"""  double x = {X!r}, y = {Y!r}, value;
  double xs[3] = {{{XS[0]!r}, {XS[1]!r}, {XS[2]!r}}}, ys[2];
  double e;
  particle p = {{{{{POS[0]!r}, {POS[1]!r}}}, {MASS!r}, {ID}}};
  struct cell c = {{{{{{{CPOS[0]!r}, {CPOS[1]!r}}}, {CMASS!r}, {CID}}}, {W!r}, {COUNT}}};
"""

C_TANGENT_DRIVER = """#include <stdio.h>
%(types)s
_Static_assert(sizeof(particle_diff) == 3 * sizeof(double), "particle_diff holds no int");
_Static_assert(sizeof(struct cell_diff) == 4 * sizeof(double), "struct cell_diff holds no int");
double fa_d(double x, double xd, double y, double yd, double *fa);
void fb_d(const double *x, const double *xd, double *y, double *yd, int n);
void fc_d(particle *p, particle_diff *pd, struct cell *c, struct cell_diff *cd, double *e, double *ed);

void run_d(void) {
%(inputs)s  double xd, yd, xsd[3], ysd[2], ed, fad;
  particle_diff pd;
  struct cell_diff cd;
%(seeds)s  fad = fa_d(x, xd, y, yd, &value);
  fb_d(xs, xsd, ys, ysd, 3);
  fc_d(&p, &pd, &c, &cd, &e, &ed);
  printf("0 fad %%.17g\\n0 yd0 %%.17g\\n0 yd1 %%.17g\\n0 ed %%.17g\\n", fad, ysd[0], ysd[1], ed);
  printf("0 pd.pos0 %%.17g\\n0 pd.pos1 %%.17g\\n0 pd.mass %%.17g\\n", pd.pos[0], pd.pos[1], pd.mass);
}
"""

C_VECTOR_DRIVER = """#include <stdio.h>
#include "DIFFSIZES.h"
%(types)s
void fa_dv(double x, double xd[NBDirsMax], double y, double yd[NBDirsMax], double *fa, double fad[NBDirsMax],
           int nbdirs);
void fb_dv(const double *x, const double xd[][NBDirsMax], double *y, double yd[][NBDirsMax], int n, int nbdirs);
void fc_dv(particle *p, particle_diff *pd, struct cell *c, struct cell_diff *cd, double *e,
           double ed[][NBDirsMax], int nbdirs);

void run_dv(void) {
%(inputs)s  double xd[NBDirsMax], yd[NBDirsMax], xsd[3][NBDirsMax], ysd[2][NBDirsMax], ed[1][NBDirsMax];
  double fad[NBDirsMax];
  particle_diff pd;
  struct cell_diff cd;
  int k;
%(seeds)s  fa_dv(x, xd, y, yd, &value, fad, NBDirsMax);
  fb_dv(xs, (const double (*)[NBDirsMax])xsd, ys, ysd, 3, NBDirsMax);
  fc_dv(&p, &pd, &c, &cd, &e, ed, NBDirsMax);
  for (k = 0; k < NBDirsMax; k++) {
    printf("%%d fad %%.17g\\n%%d yd0 %%.17g\\n%%d yd1 %%.17g\\n%%d ed %%.17g\\n", k, fad[k], k, ysd[0][k], k,
           ysd[1][k], k, ed[0][k]);
    printf("%%d pd.pos0 %%.17g\\n%%d pd.pos1 %%.17g\\n%%d pd.mass %%.17g\\n", k, pd.pos[0][k], k, pd.pos[1][k], k,
           pd.mass[k]);
  }
}
"""

C_MAIN = """void run_d(void);
void run_dv(void);
int main(void) {
  run_d();
  run_dv();
  return 0;
}
"""

F_SOURCE = """module geom
   implicit none
   type pt
      real(8) :: x(2)
      real(8) :: w
      integer :: id
   end type pt
contains
   function fa(x, y)
      real(8), intent(in) :: x, y
      real(8) :: fa
      fa = x*x*sin(y) + exp(x*y)
   end function fa

   subroutine fb(x, y, n)
      integer, intent(in) :: n
      real(8), intent(in) :: x(n)
      real(8), intent(out) :: y(2)
      integer :: i
      y(1) = 0.0d0
      do i = 1, n
         y(1) = y(1) + x(i)*x(i)
      end do
      y(2) = x(1)*x(n)
   end subroutine fb

   subroutine fc(p, e)
      type(pt), intent(inout) :: p
      real(8), intent(out) :: e
      e = 0.5d0*p%w*(p%x(1)**2 + p%x(2)**2) + p%id
      p%x(1) = p%x(1)*p%w + p%id
   end subroutine fc
end module geom
"""
F_HEADS = "fa(fa)/(x y) fb(y)/(x) fc(e p)/(p)"


def f_expected(k: int) -> dict:
    """Fortran's fc: e = w/2 (x1^2 + x2^2) + id, x1 <- x1 w + id, along direction k."""
    d = seeds(k)
    (x1, x2), (dx1, dx2), dw = POS, d["posd"], d["massd"]
    out = expected(k)
    out["ed"] = 0.5 * dw * (x1 * x1 + x2 * x2) + MASS * (x1 * dx1 + x2 * dx2)
    out["pd.pos0"] = MASS * dx1 + x1 * dw
    del out["pd.mass"]
    return out


def _f_real(v: float) -> str:
    return f"{v!r}d0" if "e" not in repr(v) else repr(v).replace("e", "d")


def _f_set(k: int, index: str) -> str:
    """Fortran statements setting the seeds of direction k (index: 'k+1, ' in vector mode)."""
    d = seeds(k)
    one = index.rstrip(", ")
    scalar = f"({one})" if one else ""
    return (f"   xd{scalar} = {_f_real(d['xd'])}; yd{scalar} = {_f_real(d['yd'])}\n"
            + "".join(f"   xsd({index}{i + 1}) = {_f_real(v)}\n" for i, v in enumerate(d["xsd"]))
            + f"   pd%x({index}1) = {_f_real(d['posd'][0])}; pd%x({index}2) = {_f_real(d['posd'][1])}\n"
            + f"   pd%w{scalar} = {_f_real(d['massd'])}\n")


F_INPUTS = f"""   type(pt) :: p
   real(8) :: x, y, value, xs(3), ys(2), e
   x = {_f_real(X)}; y = {_f_real(Y)}
   xs = [{_f_real(XS[0])}, {_f_real(XS[1])}, {_f_real(XS[2])}]
   p%x = [{_f_real(POS[0])}, {_f_real(POS[1])}]; p%w = {_f_real(MASS)}; p%id = {ID}
"""

F_DRIVER = """subroutine run_d()
   use geom
   use geom_diff
   implicit none
   TYPE(PT_DIFF) :: pd
   real(8) :: xd, yd, xsd(3), ysd(2), ed, fad
%(inputs)s%(seeds)s   fad = fa_d(x, xd, y, yd, value)
   call fb_d(xs, xsd, ys, ysd, 3)
   call fc_d(p, pd, e, ed)
   if (storage_size(pd) /= 3*storage_size(x)) stop 'pt_diff holds an integer'
   write (*, '(i0, a, es26.17e3)') 0, ' fad', fad, 0, ' yd0', ysd(1), 0, ' yd1', ysd(2), 0, ' ed', ed, &
      0, ' pd.pos0', pd%%x(1), 0, ' pd.pos1', pd%%x(2)
end subroutine run_d

subroutine run_dv()
   use diffsizes
   use geom
   use geom_diffv
   implicit none
   TYPE(PT_DIFF) :: pd
   real(8) :: xd(nbdirsmax), yd(nbdirsmax), xsd(nbdirsmax, 3), ysd(nbdirsmax, 2), ed(nbdirsmax), fad(nbdirsmax)
   integer :: k
%(inputs)s%(vector_seeds)s   call fa_dv(x, xd, y, yd, value, fad, nbdirsmax)
   call fb_dv(xs, xsd, ys, ysd, 3, nbdirsmax)
   call fc_dv(p, pd, e, ed, nbdirsmax)
   do k = 1, nbdirsmax
      write (*, '(i0, a, es26.17e3)') k - 1, ' fad', fad(k), k - 1, ' yd0', ysd(k, 1), k - 1, ' yd1', ysd(k, 2), &
         k - 1, ' ed', ed(k), k - 1, ' pd.pos0', pd%%x(k, 1), k - 1, ' pd.pos1', pd%%x(k, 2)
   end do
end subroutine run_dv

program main
   call run_d()
   call run_dv()
end program main
"""

F_DIFF_TYPE = """   type pt_diff
      real(8) :: x(2)
      real(8) :: w
   end type pt_diff
"""


def _run(cmd, cwd):
    """Run cmd; its stdout. Fails on a non-zero exit or anything on stderr (a sanitizer report,
    a compiler warning)."""
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and not done.stderr.strip(), f"{' '.join(cmd)}:\n{done.stderr}{done.stdout}"
    return done.stdout


def _check_printed(lines: list, want) -> None:
    """Every printed `direction name value` agrees with want(direction)[name] to 1e-12, and
    every expected value was printed for each direction."""
    got = {}
    for line in lines:
        k, name, value = line.split()
        got[(int(k), name)] = float(value.replace("D", "E"))
    for k in range(NBDIRS):
        for name, value in want(k).items():
            assert (k, name) in got, f"direction {k}: {name} not printed"
            assert abs(got[(k, name)] - value) <= 1e-12 * max(1.0, abs(value)), (k, name, got[(k, name)], value)


def test_c_names_are_tapenades():
    """The C outputs name the procedures f_d / f_dv and the derivative types particle_diff
    (the typedef's spelling) and struct cell_diff (the tag's), without the int fields."""
    tangent = adspec.differentiate(C_SOURCE, head=HEADS, lang="c", filename="names.c")
    vector = adspec.differentiate(C_SOURCE, head=HEADS, mode="vector", lang="c", filename="names.c")
    assert tangent.procedure_names == {"fa": "fa_d", "fb": "fb_d", "fc": "fc_d"}
    assert vector.procedure_names == {"fa": "fa_dv", "fb": "fb_dv", "fc": "fc_dv"}
    assert C_TYPES % {"dirs": ""} in tangent.text
    assert C_TYPES % {"dirs": "[NBDirsMax]"} in vector.text
    assert "void fc_d(particle *p, particle_diff *pd, struct cell *c, struct cell_diff *cd, double *e, double *ed)" \
        in tangent.text
    assert "_D(" not in tangent.text and "_DV(" not in vector.text


@pytest.mark.compile
def test_c_driver_with_tapenade_names_links_and_runs(tmp_path):
    require_compilers("c")
    tangent = adspec.differentiate(C_SOURCE, head=HEADS, lang="c", filename="names.c")
    vector = adspec.differentiate(C_SOURCE, head=HEADS, mode="vector", lang="c", filename="names.c")
    files = {"names.c": C_SOURCE, "names_d.c": tangent.text, "names_dv.c": vector.text,
             "DIFFSIZES.h": f"#define NBDirsMax {NBDIRS}\n", "main.c": C_MAIN,
             "driver_d.c": C_TANGENT_DRIVER % {"types": C_TYPES % {"dirs": ""}, "inputs": C_INPUTS,
                                               "seeds": _c_set(0, "")},
             "driver_dv.c": C_VECTOR_DRIVER % {"types": C_TYPES % {"dirs": "[NBDirsMax]"}, "inputs": C_INPUTS,
                                               "seeds": "".join(_c_set(k, f"[{k}]") for k in range(NBDIRS))}}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    sources = [n for n in files if n.endswith(".c")]
    _run(["gcc", "-std=c11", "-Wall", "-g", "-fsanitize=address,undefined", "-fno-sanitize-recover=all",
          "-fno-omit-frame-pointer", "-ffp-contract=off", *sources, "-lm", "-o", "prog"], tmp_path)
    lines = _run(["./prog"], tmp_path).splitlines()
    _check_printed(lines[:7], lambda k: expected(0) if k == 0 else {})  # run_d's, then run_dv's
    _check_printed(lines[7:], expected)


def test_fortran_names_are_tapenades():
    """The Fortran outputs: module geom_diff with type pt_diff (no integer component) and
    fa_d, fb_d, fc_d; module geom_diffv with the same type name, widened, and the _dv."""
    tangent = adspec.differentiate(F_SOURCE, head=F_HEADS, lang="fortran", filename="names.f90")
    vector = adspec.differentiate(F_SOURCE, head=F_HEADS, mode="vector", lang="fortran", filename="names.f90")
    assert tangent.procedure_names == {"fa": "fa_d", "fb": "fb_d", "fc": "fc_d"}
    assert vector.procedure_names == {"fa": "fa_dv", "fb": "fb_dv", "fc": "fc_dv"}
    assert "module geom_diff\n" in tangent.text and F_DIFF_TYPE in tangent.text
    assert "module geom_diffv\n" in vector.text
    assert "   type pt_diff\n      real(8) :: x(nbdirsmax, 2)\n      real(8) :: w(nbdirsmax)\n   end type pt_diff\n" \
        in vector.text


@pytest.mark.compile
def test_fortran_driver_with_tapenade_names_links_and_runs(tmp_path):
    require_compilers("fortran")
    tangent = adspec.differentiate(F_SOURCE, head=F_HEADS, lang="fortran", filename="names.f90")
    vector = adspec.differentiate(F_SOURCE, head=F_HEADS, mode="vector", lang="fortran", filename="names.f90")
    driver = F_DRIVER % {"inputs": F_INPUTS, "seeds": _f_set(0, ""),
                         "vector_seeds": "".join(_f_set(k, f"{k + 1}, ") for k in range(NBDIRS))}
    files = {"diffsizes.f90": f"module diffsizes\n   integer, parameter :: nbdirsmax = {NBDIRS}\nend module\n",
             "names.f90": F_SOURCE, "names_d.f90": tangent.text, "names_dv.f90": vector.text, "driver.f90": driver}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    _run(["gfortran", "-Wall", "-g", "-fcheck=all", "-ffpe-trap=invalid,zero,overflow", "-ffp-contract=off",
          *files, "-o", "prog"], tmp_path)
    lines = _run(["./prog"], tmp_path).splitlines()
    _check_printed(lines[:6], lambda k: f_expected(0) if k == 0 else {})  # run_d's, then run_dv's
    _check_printed(lines[6:], f_expected)


def test_namer_suffixes_and_clashes():
    """Tapenade's suffixes, lower case whatever the language, for every mode; a taken name
    gets 0, 1, ... appended (paper 4.1); one T_diff for every mode."""
    from adspec.rules.naming import Namer
    tangent, adjoint = Namer({"f_d", "f_d0", "t_diff"}, "tangent"), Namer(set(), "adjoint")
    assert (tangent.proc("f"), tangent.vector_proc("f"), tangent.var("x")) == ("f_d1", "f_dv", "xd")
    assert (adjoint.proc("f"), adjoint.vector_proc("f"), adjoint.var("x")) == ("f_b", "f_bv", "xb")
    assert (adjoint.sweep_proc("f", "fwd"), adjoint.sweep_proc("f", "bwd"), adjoint.nodiff_proc("f")) == \
        ("f_fwd", "f_bwd", "f_nodiff")
    assert (tangent.type("t"), adjoint.type("t"), tangent.type("t")) == ("t_diff0", "t_diff", "t_diff0")
    assert tangent.derivative_types() == {"t_diff0"}


def test_c_struct_derivatives_everywhere_have_the_diff_type():
    """c25: a local struct's derivative zeroed whole ({0}, not a scalar zero), a malloc'd array
    of structs calloc'd as P_diff, the _diff of a typedef of a tagged struct and of a nested
    struct; in vector mode the same, the pointer to structs not made a pointer to rows."""
    from c_tangent_cases import source
    text = adspec.differentiate(source("c25_struct_diff_types.c"), head="sdiff(r)/(a)", lang="c",
                                filename="c25.c").text
    assert "struct pt_diff {\n    double x;\n    double y;\n};\ntypedef struct pt_diff P_diff;\n" in text
    assert "struct seg_diff {\n    P_diff a;\n    struct pt_diff b;\n    double len;\n};" in text
    assert "    struct pt_diff vd = {0};\n" in text and "    P_diff *wd;\n" in text
    assert "wd = (P_diff*)calloc(n, sizeof(P_diff));" in text
    assert "static P_diff mid_d(P u, P_diff ud, const struct pt *v, const struct pt_diff *vd, P *mid_value)" in text
    vector = adspec.differentiate(source("c25_struct_diff_types.c"), head="sdiff(r)/(a)", mode="vector", lang="c",
                                  filename="c25.c").text
    assert "    struct pt_diff vd = {0};\n" in vector and "    P_diff *wd;\n" in vector
    assert "wd = (P_diff*)calloc(n, sizeof(P_diff));" in vector and "wd[i].x[nd] = v.x * ad[i][nd];" in vector
