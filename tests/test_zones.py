"""Symbol tables (engine/symbols.py) and zones (engine/zones.py)."""
from __future__ import annotations

import glob
import os
import time
from types import SimpleNamespace

import pytest

import adspec
from adspec.engine.errors import SourceError, UnsupportedError
from adspec.engine.il import mk
from adspec.engine.intrinsics import differentiable_args
from adspec.engine.program import Procedure
from adspec.engine.symbols import build_scopes
from adspec.engine.zones import RefZones as R, build_zone_maps

PROGRAMS = os.path.join(os.path.dirname(__file__), "programs")


def program_of(text: str, lang: str = "fortran", form: str | None = None):
    """Symbols + procedures + zone maps of source text, without the flow graphs (so that these
    tests do not depend on engine/flowgraph_builder.py)."""
    return program_of_tree(adspec.parse(text, lang=lang, form=form))


def program_file(name: str):
    return program_of_tree(adspec.parse(os.path.join(PROGRAMS, name)))


def program_of_tree(tree):
    lang = tree.ann.get("lang", "fortran")
    root, scopes = build_scopes(tree)
    procs = {}

    def visit(units, host=None, prefix=""):
        for u in units:
            if u.op == "procedure" and id(u) in scopes:
                p = Procedure(prefix + u.kids[0], u.kids[0], u, lang, scopes[id(u)], host)
                procs[u.kids[0]] = p
                visit(u.kids[8], p)
            elif u.op == "module":
                visit(u.kids[2])
    visit(tree.kids)
    prog = SimpleNamespace(files=[tree], procedures=procs, root_scope=root)
    build_zone_maps(prog)
    return prog


def zm_of(text, proc, lang="fortran"):
    return program_of(text, lang).procedures[proc].zones


def e(text, lang="fortran"):
    """An expression parsed in a throwaway assignment `x = <text>`."""
    if lang == "fortran":
        tree = adspec.parse(f"subroutine t\ndimension a(9), w(9), pts(9), y(9), work(9)\n"
                            f"x = {text}\nend\n", lang="fortran")
    else:
        tree = adspec.parse(f"void t(void) {{ x = {text}; }}", lang="c")
    return tree.kids[0].kids[7].kids[-1].kids[1]


def names(zm, s):
    return sorted(zm.zones[z].name for z in range(len(zm.zones)) if (s >> z) & 1)


# --- symbols ---------------------------------------------------------------------------------
F_SCOPES = """
module m
  implicit none
  real(8) :: mv, other
  integer, parameter :: n = 3
contains
  subroutine ms(a)
    real(8) :: a(n)
    a = mv
  end subroutine ms
end module m

subroutine host(x, k)
  use m, only: mv
  real(8) :: x
  integer k
  double precision hv
  x = hv + mv
  call inner()
contains
  subroutine inner()
    hv = 2 * x
  end subroutine inner
end subroutine host

real function f(i)
  f = i
end function f
"""


def test_scopes_lookup_use_only_host_and_implicit():
    tree = adspec.parse(F_SCOPES, lang="fortran")
    root, scopes = build_scopes(tree)
    host = next(s for s in scopes.values() if s.name == "host")
    inner = next(s for s in scopes.values() if s.name == "inner")
    f = next(s for s in scopes.values() if s.name == "f")
    assert host.lookup("mv").kind == "variable"
    assert host.lookup("other") is None                      # ONLY list
    assert inner.lookup("hv") is host.symbols["hv"]          # host association
    assert inner.parent is host and inner in host.children
    assert host.lookup("inner").kind == "procedure"
    assert host.symbols["x"].kind == "parameter" and host.symbols["x"].formal == 0
    assert host.type_of("k").kids[0] == "integer"
    assert host.type_of("zz").kids[0] == "real"              # implicit typing
    assert host.type_of("izz").kids[0] == "integer"
    ms = next(s for s in scopes.values() if s.name == "ms")
    assert ms.lookup("n").is_constant and ms.parent.kind == "module"
    assert f.symbols["f"].kind == "variable" and "result" in f.symbols["f"].attrs
    assert f.symbols["i"].type.kids[0] == "integer"          # implicitly typed formal
    assert root.symbols["f"].kind == "procedure"


def test_implicit_rules_and_none():
    tree = adspec.parse("      subroutine s(a)\n      implicit double precision (a-h, o-z)\n"
                        "      a = 1\n      end\n", lang="fortran", form="fixed")
    root, scopes = build_scopes(tree)
    s = scopes[id(tree.kids[0])]
    assert s.type_of("b") == mk("type", "real", 8, None)
    assert s.type_of("i").kids[0] == "integer"
    tree = adspec.parse("subroutine s\nimplicit none\nend\n", lang="fortran")
    root, scopes = build_scopes(tree)
    assert scopes[id(tree.kids[0])].type_of("b") is None


def test_attr_statements_parameter_dimension_external():
    prog = program_file("f21_parameter_dimension.f")
    scope = prog.procedures["smooth"].scope
    assert scope.symbols["nx"].is_constant and scope.symbols["half"].is_constant
    assert len(scope.symbols["u"].dims) == 2 and "save" in scope.symbols["w"].attrs
    trapz = program_file("f16_f77_function.f").procedures["trapz"].scope
    assert trapz.symbols["weight"].kind == "external"
    assert trapz.symbols["dsqrt"].kind == "intrinsic"


ACCESS = """
module m
  implicit none
  private
  public :: f, g, s, t
  real(8) :: s, hidden
  private :: hidden
  type t
    real(8) :: v
  end type t
contains
  subroutine f(x, y)
    real(8) :: x, y
    y = x * x + s + hidden
  end subroutine f
  subroutine g(x)
    real(8) :: x
    x = 2.0d0 * x
  end subroutine g
end module m
"""


def test_public_and_private_statements_only_set_an_attribute():
    """`public :: f, g` names procedures defined later: no second declaration of f, g or t;
    a bare `private` sets the default."""
    tree = adspec.parse(ACCESS, lang="fortran")
    root, scopes = build_scopes(tree)
    m = next(s for s in scopes.values() if s.name == "m")
    assert m.symbols["f"].kind == "procedure" and m.symbols["t"].kind == "type"
    assert {name: "public" in sym.attrs for name, sym in m.symbols.items()} == \
        {"f": True, "g": True, "s": True, "t": True, "hidden": False}
    assert "private" in m.symbols["hidden"].attrs
    zm = program_of(ACCESS).procedures["f"].zones
    assert zm.var_zones("s") & zm.globals_mask and zm.var_zones("hidden") & zm.globals_mask


def test_c_scopes_flat_locals_and_conflicting_redeclaration():
    src = """
    typedef struct { double x, y; } pt;
    double g;
    void f(double *a, int n) {
        for (int i = 0; i < n; i++) { double t = a[i]; g += t; }
        for (int i = 0; i < n; i++) { double t = 2; a[i] = t; }
    }
    """
    tree = adspec.parse(src, lang="c")
    root, scopes = build_scopes(tree)
    s = next(sc for sc in scopes.values() if sc.name == "f")
    assert {"a", "n", "i", "t"} <= set(s.symbols)
    assert s.symbols["a"].ptr == 1 and s.lookup("g").kind == "variable"
    assert root.symbols["pt"].kind == "type"
    bad = "void f(int n) { { int t = 1; n = t; } { double t = 2; n = t; } }"
    with pytest.raises(UnsupportedError):
        build_scopes(adspec.parse(bad, lang="c"))


# --- zones -------------------------------------------------------------------------------------
def test_scalars_arrays_formals_first_and_masks():
    zm = zm_of("subroutine s(a, n, r)\ninteger n\nreal(8) a(n), r, w(3)\ninteger i\n"
               "r = 0\ndo i = 1, n\nr = r + a(i) * w(i)\nend do\nend\n", "s")
    assert [z.name for z in zm.zones] == ["a", "n", "r", "w", "i"]
    assert [zm.describe(s) for s in zm.formal_zones] == ["a(:)", "n", "r"]
    assert zm.zones[0].kind == "formal" and zm.zones[0].formal == 0 and zm.zones[0].is_array
    assert zm.locals_mask == zm.var_zones("w") | zm.var_zones("i")
    assert names(zm, zm.differentiable_mask) == ["a", "r", "w"]
    assert zm.ref(e("a(i)")) == R(zm.var_zones("a"), False)
    assert zm.ref(e("a")).total and zm.ref(e("a(:)")).total and not zm.ref(e("a(2:)")).total
    assert zm.ref(e("r")) == R(zm.var_zones("r"), True)


def test_ref_of_non_reference_is_an_error():
    zm = zm_of("subroutine s(x)\nreal x\nx = 1\nend\n", "s")
    with pytest.raises(SourceError):
        zm.ref(e("x + 1"))
    with pytest.raises(SourceError):
        zm.ref(e("nosuch"))


def test_implicit_none_undeclared_is_an_error():
    with pytest.raises(SourceError) as err:
        program_of("subroutine s\nimplicit none\nreal x\nx = y\nend\n")
    assert err.value.line == 4


def test_derived_type_fields_nested_and_array_of_structs():
    prog = program_file("f06_derived_types.f90")
    zm = prog.procedures["polyarea"].zones
    assert names(zm, zm.var_zones("p")) == ["p%n", "p%v%x", "p%v%y", "p%weight"]
    assert zm.ref(e("p%weight")) == R(_z(zm, "p%weight"), True)
    r = zm.ref(e("p%v(i)%x"))
    assert names(zm, r.zones) == ["p%v%x"] and not r.total
    assert zm.zones[_idx(zm, "pts%x")].is_array
    assert zm.ref(e("pts%x")).total                           # every element's x
    assert names(zm, zm.ref(e("c")).zones) == ["c%x", "c%y"]
    assert not zm.zones[_idx(zm, "p%n")].differentiable


def _idx(zm, name):
    return next(z.index for z in zm.zones if z.name == name)


def _z(zm, name):
    return 1 << _idx(zm, name)


COMMONS = """
      subroutine a
      double precision x, y(2)
      integer k
      common /c/ x, y, k
      x = 1
      end
      subroutine b
      double precision p(2), q
      common /c/ p, q
      q = 2
      end
"""


def test_common_fragments_from_two_declarations():
    prog = program_of(COMMONS, "fortran")
    za, zb = prog.procedures["a"].zones, prog.procedures["b"].zones
    # a: x[0,8) y[8,24) k[24,28); b: p[0,16) q[16,24) -> cuts 0 8 16 24 28
    assert za.n_globals == zb.n_globals == 4
    assert za.zones[:4] == zb.zones[:4]
    assert za.var_zones("x") == 0b0001 and za.var_zones("y") == 0b0110 and za.var_zones("k") == 0b1000
    assert zb.var_zones("p") == 0b0011 and zb.var_zones("q") == 0b0100
    assert za.ref(e("x")).total and zb.ref(e("q")).total
    assert za.globals_mask == 0b1111 and za.locals_mask == 0
    assert za.zones[3].kind == "global" and not za.zones[3].differentiable


def test_common_with_non_constant_size_is_one_fragment():
    src = COMMONS.replace("double precision p(2), q", "double precision p(n), q\n      integer n")
    prog = program_of(src.replace("subroutine b", "subroutine b(n)"), "fortran")
    za, zb = prog.procedures["a"].zones, prog.procedures["b"].zones
    assert za.n_globals == 1
    assert za.var_zones("x") == za.var_zones("k") == zb.var_zones("q") == 1
    assert not za.ref(e("x")).total


def test_common_member_sizes_use_parameters():
    src = ("      subroutine a\n      integer n\n      parameter (n = 2)\n      real w(n + 1), v\n"
           "      common /c/ w, v\n      v = 1\n      end\n")
    za = program_of(src, "fortran").procedures["a"].zones
    assert za.n_globals == 2 and za.var_zones("v") == 2


def test_module_variables_are_global_and_shared():
    prog = program_file("f04_module_use.f90")
    step, sim = prog.procedures["step"].zones, prog.procedures["simulate"].zones
    assert step.var_zones("damping") == sim.var_zones("damping") == 1
    assert step.var_zones("g") == 0 and "g" in step.no_zone            # a named constant
    assert step.n_globals == 2 and step.zones[0].kind == "global"
    assert step.reads(e("g * x")) == step.var_zones("x")


def test_host_variables_used_by_internal_procedures_are_global():
    prog = program_of(F_SCOPES)
    host, inner = prog.procedures["host"].zones, prog.procedures["inner"].zones
    assert host.var_zones("hv") == inner.var_zones("hv") and host.var_zones("hv") & host.globals_mask
    assert host.var_zones("x") == inner.var_zones("x") == host.formal_zones[0]


def test_c_globals_pointer_formals_and_points_to():
    prog = program_file("c03_pointer_arith.c")
    zm = prog.procedures["walk"].zones
    star_a = _z(zm, "*a")
    assert zm.formal_zones[0] == zm.var_zones("a") | star_a
    assert not zm.zones[_idx(zm, "p")].differentiable and zm.zones[_idx(zm, "*a")].differentiable
    assert zm.zones[_idx(zm, "*a")].kind == "pointee" and zm.zones[_idx(zm, "*a")].formal == 0
    assert zm.ref(e("*p", "c")).zones == star_a
    assert zm.ref(e("**pp", "c")).zones == star_a                     # pp -> p -> *a
    assert zm.ref(e("*pp", "c")).zones == zm.var_zones("p")
    assert zm.ref(e("p[3]", "c")) == R(star_a, False)
    assert zm.targets(e("a + n", "c")) == star_a
    assert zm.ref(e("p", "c")) == R(zm.var_zones("p"), True)
    swap = prog.procedures["swap"].zones
    assert swap.ref(e("*p", "c")).total                              # never indexed: a scalar
    g = program_file("c06_globals.c")
    z1, z2 = g.procedures["add_term"].zones, g.procedures["accumulate"].zones
    assert z1.var_zones("total") == z2.var_zones("total") and z1.var_zones("total") & z1.globals_mask


def test_c_structs_address_of_and_arrow():
    prog = program_file("c04_structs.c")
    zm = prog.procedures["centroid"].zones
    assert zm.ref(e("pp->n", "c")) == R(_z(zm, "poly.n"), True)
    r = zm.ref(e("pp->v[i].y", "c"))
    assert r.zones == _z(zm, "poly.v.y") and not r.total
    cross = prog.procedures["cross"].zones
    assert names(cross, cross.formal_zones[0]) == ["a", "a->x", "a->y"]
    assert names(cross, cross.ref(e("a->x", "c")).zones) == ["a->x"]


def test_malloc_heap_zone_per_site_and_fortran_pointers():
    src = """
    void f(int n, double *out) {
        double *w = (double *)malloc(n * sizeof(double));
        double *v = (double *)malloc(n * sizeof(double));
        w[0] = 1.0; v[0] = w[0]; *out = v[0];
        free(w); free(v);
    }"""
    zm = program_of(src, "c").procedures["f"].zones
    hw, hv = zm.ref(e("w[0]", "c")).zones, zm.ref(e("v[0]", "c")).zones
    assert hw != hv and zm.zones[hw.bit_length() - 1].kind == "heap"
    assert zm.zones[hw.bit_length() - 1].differentiable
    prog = program_file("f07_pointers_alloc.f90")
    zm = prog.procedures["ptrs"].zones
    assert zm.ref(e("q")) == R(zm.var_zones("t"), True)
    assert zm.ref(e("p")) == R(zm.var_zones("a") | zm.var_zones("work"), False)
    assert zm.pointer_ref(e("p")) == R(zm.var_zones("p"), True)
    assert zm.address_reads(e("q")) == zm.var_zones("q")
    assert zm.reads(e("q + 1")) == zm.var_zones("q") | zm.var_zones("t")


def test_fortran_pointer_allocate_gets_heap_zone():
    src = "subroutine s(x)\nreal(8) x\nreal(8), pointer :: p(:)\nallocate(p(3))\np = x\nx = p(1)\nend\n"
    zm = zm_of(src, "s")
    assert names(zm, zm.ref(e("p")).zones)[0].startswith("heap@")


def test_equivalence_shares_zones():
    src = ("      subroutine s(r)\n      real a(4), b, r\n      equivalence (a(2), b)\n"
           "      b = 1\n      r = a(2)\n      end\n")
    zm = program_of(src, "fortran").procedures["s"].zones
    assert zm.var_zones("a") == zm.var_zones("b") != 0
    assert not zm.ref(e("b")).total


def test_reads_address_reads_diff_reads():
    zm = zm_of("subroutine s(a, x, y, i, k)\nreal a(10), x, y\ninteger i, k\nx = 1\nend\n", "s")
    a, x, y, i, k = (zm.var_zones(n) for n in "axyik")
    assert zm.reads(e("a(i) * x")) == a | i | x
    assert zm.diff_reads(e("a(i) * x")) == a | x                 # indices excluded
    assert zm.address_reads(e("a(i + k)")) == i | k
    assert zm.diff_reads(e("x * y")) == x | y
    assert zm.diff_reads(e("floor(x) + y")) == y                 # non-differentiable intrinsic
    assert zm.reads(e("floor(x) + y")) == x | y
    assert zm.diff_reads(e("sign(x, y)")) == x
    assert zm.diff_reads(e("mod(x, y)")) == x | y
    assert zm.diff_reads(e("real(i) * x")) == x                  # integers are not differentiable
    assert zm.reads(e("size(a)")) == 0 and zm.diff_reads(e("size(a)")) == 0
    assert zm.diff_reads(e("x > y")) == 0
    call = e("f(x)")
    t = zm.add_temp("f_result1", mk("type", "real", 8, None))
    assert zm.reads(call, {id(call): t}) == 1 << t and zm.diff_reads(call, {id(call): t}) == 1 << t
    assert zm.locals_mask >> t & 1 and zm.var_zones("f_result1") == 1 << t


def test_c_diff_reads_casts_ifexpr_and_array_decay():
    src = "double f(double *a, double x, int i, double m[3][4]) { return x; }"
    zm = zm_of(src, "f", "c")
    a, x, i, m = (zm.var_zones(n) for n in ("*a", "x", "i", "m"))
    a = zm.ref(e("*a", "c")).zones
    assert zm.diff_reads(e("i > 0 ? a[i] : x", "c")) == a | x
    assert zm.reads(e("i > 0 ? a[i] : x", "c")) == a | x | i | zm.var_zones("a")
    assert zm.diff_reads(e("(int) x", "c")) == 0 and zm.diff_reads(e("(float) x", "c")) == x
    assert zm.diff_reads(e("floor(x) + fabs(x)", "c")) == x
    assert zm.reads(e("m[i]", "c")) == i                          # a row: its address only
    assert zm.reads(e("m[i][1]", "c")) == i | m
    assert zm.describe(m) == "m[]"


def test_intrinsics_table():
    assert differentiable_args("nint", 1, "fortran") == ()
    assert differentiable_args("sign", 2, "fortran") == (0,)
    assert differentiable_args("abs", 1, "fortran") == (0,)
    assert differentiable_args("abs", 1, "c") == ()
    assert differentiable_args("unknown_fn", 3, "c") == (0, 1, 2)


def test_all_corpus_programs_get_zone_maps_quickly():
    start = time.time()
    for path in sorted(glob.glob(os.path.join(PROGRAMS, "*.*"))):
        if path.endswith((".md", ".inc")):
            continue
        prog = program_of_tree(adspec.parse(path))
        for p in prog.procedures.values():
            zm = p.zones
            assert len(zm.formal_zones) == len(p.formals)
            assert all(z.index == k for k, z in enumerate(zm.zones))
    assert time.time() - start < 20


def test_many_procedures_and_variables_scale():
    n, procs = 150, 10
    body = "\n".join(f"      x{i} = x{i - 1} * 2.0 + y(mod({i}, 10) + 1)" for i in range(1, n))
    src = "".join(f"      subroutine s{j}(y)\n      real y(10)\n      common /c/ g{j}, h\n"
                  f"      x0 = g{j}\n{body}\n      end\n" for j in range(procs))
    tree = adspec.parse(src, lang="fortran", form="fixed")
    start = time.time()
    prog = program_of_tree(tree)
    assert time.time() - start < 1.0          # linear: about 50 us per line
    assert len(prog.procedures["s3"].zones.zones) == 2 + 1 + n


def test_c_union_fields_share_one_zone_never_killed_and_enumerators_have_none():
    src = """
    union bits { double d; long long i; int w[2]; };
    enum mode { FAST, SLOW = 3 };
    double f(double x, int k) {
        union bits u;
        enum mode m = SLOW;
        double a[SLOW + 1];
        u.d = x;
        u.w[0] = k + FAST;
        a[0] = u.d;
        return a[0] + m;
    }"""
    prog = program_of(src, "c")
    zm = prog.procedures["f"].zones
    one = zm.var_zones("u")
    assert bin(one).count("1") == 1 and zm.zones[one.bit_length() - 1].differentiable
    assert zm.ref(e("u.d", "c")) == R(one, False) == zm.ref(e("u.i", "c"))
    assert zm.ref(e("u.w[1]", "c")).zones == one
    assert zm.reads(e("k + FAST", "c")) == zm.var_zones("k")          # an enumerator reads nothing
    assert "FAST" in zm.no_zone and "SLOW" in zm.no_zone
    assert zm.zones[zm.var_zones("a").bit_length() - 1].is_array
    assert zm.zones[zm.var_zones("m").bit_length() - 1].type == mk("type", "integer", 4, None)
    root = prog.root_scope
    assert root.lookup("SLOW").is_constant and root.lookup("SLOW").init == mk("intCst", 3, None)
    assert root.lookup("mode").kind == "type"


def test_c_enumerator_with_a_non_constant_value_is_refused_with_its_line():
    with pytest.raises(UnsupportedError) as e_:
        program_of("int k;\nenum e {\n A = 1,\n B = k\n};\nvoid f(void) { }", "c")
    assert e_.value.line == 4


TYPED_TARGETS = """
typedef struct { int nrows, ncols; double *data; } Matrix;
typedef struct { int verts[3]; } Triangle;
double g;
static Matrix *pick(Matrix *pool, int k) { return &pool[k]; }
static Matrix *fresh(int n) { Matrix *m = (Matrix *)malloc(sizeof(Matrix)); m->data = (double *)malloc(n * sizeof(double)); return m; }
void f(Matrix *pool, Triangle *triangles, double *x, int n) {
    Triangle *t = triangles;
    Matrix *vp = pick(pool, 1);
    Matrix *m = fresh(n);
    vp->data[t->verts[0]] = x[0];
    m->data[0] = vp->data[1];
}"""


def test_a_call_returning_a_structure_pointer_points_to_that_type_or_to_memory_of_its_own():
    """Issue 17: every pointee of the procedure used to be a target of a call's value, so
    vp->data met *triangles ("'*triangles' has no field 'data'"). A call returning Matrix *
    reaches the Matrix structures its arguments lead to, or memory the callee allocates."""
    zm = program_of(TYPED_TARGETS, "c").procedures["f"].zones
    assert names(zm, zm.targets(e("vp", "c"))) == ["heap#0.data", "heap#0.ncols", "heap#0.nrows",
                                                   "pool->data", "pool->ncols", "pool->nrows"]
    # what the callee can reach from pool (its data), or memory of its own; never x nor a Triangle
    assert names(zm, zm.ref(e("vp->data[0]", "c")).zones) == ["*heap#0.data", "*pool->data"]
    assert names(zm, zm.targets(e("m", "c"))) == ["heap#1.data", "heap#1.ncols", "heap#1.nrows"]
    assert names(zm, zm.ref(e("m->data[0]", "c")).zones) == ["*heap#1.data"]
    assert names(zm, zm.ref(e("t->verts[0]", "c")).zones) == ["triangles->verts"]

def test_a_field_access_skips_targets_of_another_structure_type_and_refuses_a_field_none_has():
    src = """
    typedef struct { double *data; } Matrix;
    typedef struct { int verts[3]; } Triangle;
    void f(Matrix *a, Triangle *b, int k, double *out) {
        void *p = k ? (void *)a : (void *)b;
        Matrix *q = (Matrix *)p;
        *out = q->data[0];
    }"""
    zm = program_of(src, "c").procedures["f"].zones
    assert names(zm, zm.ref(e("q->data", "c")).zones) == ["a->data"]
    assert not zm.ref(e("q->data", "c")).total
    with pytest.raises(SourceError, match="has no field 'size'"):
        zm.ref(e("q->size", "c"))
