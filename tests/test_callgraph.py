"""The call graph (engine/callgraph.py, engine/program.py): name resolution, recursion
components and their orders, and the zone translations of call sites."""
import pytest

import networkx as nx

from adspec.engine.bitsets import Relation, bit, from_zones
from adspec.engine.callgraph import callees, components_bottom_up
from adspec.dot import call_graph_dot
from adspec.engine.errors import SourceError
from adspec.engine.program import build_program
from adspec.frontends import parse_source


def graph_of(*sources):
    """The program of several (source, filename) pairs."""
    return build_program([parse_source(src, name) for src, name in sources])


def edges(program):
    return sorted((a, b, len(d["sites"])) for a, b, d in program.callgraph.edges(data=True))


# --- resolution and the graph -------------------------------------------------------------------
MODULES = """
module base
contains
  subroutine scale(x)
    real :: x
    x = 2 * x
  end subroutine
end module

module tools
  use base
contains
  subroutine twice(x)
    real :: x
    call scale(x)
    call scale(x)
  end subroutine
end module

subroutine host(x)
  use tools, only: twice
  real :: x
  call inner(x)
  call twice(x)
  call missing(x)
contains
  subroutine inner(y)
    real :: y
    call helper(y)
  end subroutine
  subroutine helper(y)
    real :: y
    y = y + 1
  end subroutine
end subroutine
"""


def test_internal_module_and_used_procedures():
    program = graph_of((MODULES, "m.f90"))
    assert list(program.procedures) == ["base.scale", "tools.twice", "host", "host.inner", "host.helper"]
    assert edges(program) == [("host", "host.inner", 1), ("host", "tools.twice", 1),
                              ("host.inner", "host.helper", 1), ("tools.twice", "base.scale", 2)]
    assert [(p.name, i.node.kids[0]) for p, i in program.external_calls] == [("host", "missing")]
    site = program.callgraph.edges["tools.twice", "base.scale"]["sites"][0]
    assert site.caller is program.procedures["tools.twice"] and site.callee is program.procedures["base.scale"]
    assert program.call_sites[id(site.instr)] is site


def test_procedure_lookup_by_unique_or_source_name():
    program = graph_of((MODULES, "m.f90"))
    assert program.procedure("host.inner") is program.procedure("inner")
    assert program.procedure("scale").name == "base.scale"
    with pytest.raises(KeyError):
        program.procedure("nowhere")


def test_same_source_name_in_two_hosts_is_ambiguous():
    program = graph_of(("""
subroutine a()
  call work()
contains
  subroutine work()
  end subroutine
end subroutine
subroutine b()
  call work()
contains
  subroutine work()
  end subroutine
end subroutine
""", "t.f90"))
    assert edges(program) == [("a", "a.work", 1), ("b", "b.work", 1)]
    with pytest.raises(KeyError):
        program.procedure("work")


RECURSION = """
int even(int n);
int odd(int n) { if (n == 0) return 0; return even(n - 1); }
int even(int n) { if (n == 0) return 1; return odd(n - 1); }
int fact(int n) { if (n < 2) return 1; return n * fact(n - 1); }
int top(int n) { return fact(n) + even(n) + leaf(n); }
int leaf(int n) { return n; }
"""


def test_direct_and_mutual_recursion_components():
    program = graph_of((RECURSION, "r.c"))
    components = program.bottom_up()
    assert sorted(map(sorted, components)) == [["even", "odd"], ["fact"], ["leaf"], ["top"]]
    position = {name: i for i, comp in enumerate(components) for name in comp}
    for caller, callee, _ in edges(program):
        assert position[callee] <= position[caller]  # callees first
    assert program.top_down() == list(reversed(components))
    assert program.callgraph.has_edge("fact", "fact")
    assert program.top_down()[0] == ["top"]
    assert callees(program.callgraph, "top") == {"fact", "even", "odd", "leaf"}
    # a recursive procedure is left out of its own callees
    assert callees(program.callgraph, "odd") == {"even"} and callees(program.callgraph, "fact") == set()


def test_components_callees_first_ties_broken_by_source_order():
    # main calls a and b; a <-> b recursive; b calls leaf; c alone, called by nobody
    graph = nx.DiGraph([("main", "a"), ("a", "b"), ("b", "a"), ("b", "leaf")])
    graph.add_node("c")
    order = {name: i for i, name in enumerate(["main", "c", "b", "a", "leaf"])}
    assert components_bottom_up(graph, order) == [["leaf"], ["b", "a"], ["c"], ["main"]]
    # the same graph built in another order gives the same answer
    rebuilt = nx.DiGraph([("b", "leaf"), ("b", "a"), ("a", "b"), ("main", "a")])
    rebuilt.add_node("c")
    assert components_bottom_up(rebuilt, order) == [["leaf"], ["b", "a"], ["c"], ["main"]]


def test_fortran_functions_across_files_and_f77_external():
    program = graph_of(("""\
      DOUBLE PRECISION FUNCTION TRAPZ(F, N)
      INTEGER N, I
      DOUBLE PRECISION F(N), S, WEIGHT
      EXTERNAL WEIGHT
      S = 0
      DO 30 I = 1, N
         S = S + WEIGHT(I) * F(I)
   30 CONTINUE
      TRAPZ = S
      END
""", "a.f"), ("""\
      DOUBLE PRECISION FUNCTION WEIGHT(I)
      INTEGER I
      WEIGHT = I
      END
""", "b.f"))
    assert edges(program) == [("trapz", "weight", 1)]
    assert program.bottom_up() == [["weight"], ["trapz"]]


def test_dummy_procedure_is_external():
    program = graph_of(("""
subroutine apply(f, x)
  real :: x
  external f
  call f(x)
end subroutine
subroutine f(x)
  real :: x
end subroutine
""", "t.f90"))
    assert edges(program) == []
    assert len(program.external_calls) == 1


def test_keyword_argument_must_name_a_formal():
    with pytest.raises(SourceError) as e:
        graph_of(("""
subroutine s(x)
  real :: x
  call t(x, nope=x)
contains
  subroutine t(a, b)
    real :: a, b
  end subroutine
end subroutine
""", "t.f90"))
    assert e.value.line == 4


def test_call_graph_dot():
    text = call_graph_dot(graph_of((MODULES, "m.f90")))
    assert '"tools.twice" -> "base.scale" [label="2"];' in text
    assert '"host" -> "?missing" [style=dashed];' in text


# --- call-site translations (real zone maps) ---------------------------------------------------
def program_of(src, filename):
    return build_program(parse_source(src, filename))


def zone(proc, name):
    found = [z.index for z in proc.zones.zones if z.name == name]
    assert len(found) == 1, (name, [z.name for z in proc.zones.zones])
    return found[0]


def zset(proc, *names):
    return from_zones(zone(proc, n) for n in names)


def sites(program, caller, callee):
    return program.callgraph.edges[caller, callee]["sites"]


FORTRAN_ARGS = """
module g
  real :: gm
end module
subroutine callee(a, b, v)
  use g
  type t
    real :: x, y
  end type
  real :: a, b
  type(t) :: v
  real :: loc
  common /c/ cx, cy
  b = a
end subroutine
subroutine caller(x, arr, s, ts)
  use g
  type t
    real :: x, y
  end type
  real :: x, arr(10)
  type(t) :: s, ts(5)
  common /c/ cx, cy
  call callee(x, arr, s)
  call callee(x + cx, arr(2), ts(3))
  call callee(v=s, b=x, a=arr(1))
end subroutine
"""


@pytest.fixture(scope="module")
def fortran_sites():
    program = program_of(FORTRAN_ARGS, "t.f90")
    return program, program.procedure("caller"), program.procedure("callee"), sites(program, "caller", "callee")


def test_to_callee_maps_actuals_to_formals_and_keeps_globals(fortran_sites):
    _, caller, callee, (whole, parts, keywords) = fortran_sites
    assert whole.to_callee(zset(caller, "x")) == zset(callee, "a")
    assert whole.to_callee(zset(caller, "arr")) == zset(callee, "b")
    assert whole.to_callee(zset(caller, "s%y")) == zset(callee, "v%y")  # field by field
    assert whole.to_callee(zset(caller, "gm", "/c/ cy")) == zset(callee, "gm", "/c/ cy")
    assert whole.to_callee(zset(caller, "ts%x")) == 0  # not passed
    # an expression actual: each zone it reads maps to the formal
    assert parts.to_callee(zset(caller, "/c/ cx")) == zset(callee, "/c/ cx", "a")
    assert parts.to_callee(zset(caller, "ts%x")) == zset(callee, "v%x")
    assert keywords.to_callee(zset(caller, "x", "arr")) == zset(callee, "a", "b")


def test_to_caller_maps_formals_to_actual_memory_and_drops_locals(fortran_sites):
    _, caller, callee, (whole, parts, keywords) = fortran_sites
    assert whole.to_caller(zset(callee, "a", "b", "v%x")) == zset(caller, "x", "arr", "s%x")
    assert whole.to_caller(zset(callee, "a", "b", "v%x"), must=True) == zset(caller, "x", "arr", "s%x")
    assert whole.to_caller(zset(callee, "loc")) == 0
    assert whole.to_caller(zset(callee, "gm")) == zset(caller, "gm")
    # a formal given an expression is written nowhere in the caller, but reads its zones
    assert parts.to_caller(zset(callee, "a"), written=True) == 0
    assert parts.to_caller(zset(callee, "a")) == zset(caller, "x", "/c/ cx")
    # an element or a field of one element is written, never killed
    assert parts.to_caller(zset(callee, "b", "v%x"), written=True) == zset(caller, "arr", "ts%x")
    assert parts.to_caller(zset(callee, "b", "v%x"), must=True) == 0
    assert keywords.to_caller(zset(callee, "a", "b")) == zset(caller, "arr", "x")


def test_relation_to_caller_scalars_fields_globals(fortran_sites):
    _, caller, callee, (whole, parts, keywords) = fortran_sites
    a, b, vx, vy, gm = (zone(callee, n) for n in ("a", "b", "v%x", "v%y", "gm"))
    summary = Relation({b: bit(a), vy: bit(vx) | bit(gm), gm: bit(a), zone(callee, "loc"): bit(a)})
    rel = whole.relation_to_caller(summary)
    assert rel.rows == {
        zone(caller, "arr"): zset(caller, "x"),          # whole array written: total
        zone(caller, "s%y"): zset(caller, "s%x", "gm"),  # field by field
        zone(caller, "gm"): zset(caller, "x"),           # globals keep their number
    }


def test_relation_to_caller_non_total_actuals_keep_themselves(fortran_sites):
    _, caller, callee, (whole, parts, keywords) = fortran_sites
    a, b, vx, vy = (zone(callee, n) for n in ("a", "b", "v%x", "v%y"))
    rel = parts.relation_to_caller(Relation({b: bit(a), vy: bit(vx), a: bit(b)}))
    assert rel.rows == {
        zone(caller, "arr"): zset(caller, "arr", "x", "/c/ cx"),  # element: the rest of arr stays
        zone(caller, "ts%y"): zset(caller, "ts%y", "ts%x"),     # field of one element
    }  # the write of formal a (given x + cx) does not reach the caller


def test_function_result_goes_to_the_temporary():
    program = program_of("""
real function f(a)
  real :: a
  f = 2 * a
end function
subroutine s(x, y)
  real :: x, y, f
  y = f(x) + 1
end subroutine
""", "t.f90")
    s, f = program.procedure("s"), program.procedure("f")
    (site,) = sites(program, "s", "f")
    temp = site.instr.result
    assert s.zones.zones[temp].name == "f_result1" and s.zones.zones[temp].kind == "temp"
    assert site.to_caller(bit(f.zones.result_zone)) == bit(temp)
    rel = site.relation_to_caller(Relation({f.zones.result_zone: zset(f, "a")}))
    assert rel.rows == {temp: zset(s, "x")}


C_ARGS = """
double g;
void f(double *p, double v, double a[]) { *p = v * a[0]; v = 0; g = 1; }
void caller(double *q, double x, double y, int k) {
    double arr[4], w;
    double *two;
    if (k) two = &x; else two = &y;
    f(&w, x, arr);
    f(arr, x + y, arr);
    f(two, y, arr);
    f(q, w, arr);
}
"""


@pytest.fixture(scope="module")
def c_sites():
    program = program_of(C_ARGS, "t.c")
    return program, program.procedure("caller"), program.procedure("f"), sites(program, "caller", "f")


def test_c_pointer_formals_map_their_pointees(c_sites):
    _, caller, callee, (address, array, several, formal) = c_sites
    star_p = zone(callee, "*p")
    assert address.to_caller(bit(star_p)) == zset(caller, "w")
    assert array.to_caller(bit(star_p)) == zset(caller, "arr")
    assert several.to_caller(bit(star_p)) == zset(caller, "x", "y")
    assert several.to_caller(bit(star_p), must=True) == 0
    assert formal.to_caller(bit(star_p)) == zset(caller, "*q")
    assert address.to_callee(zset(caller, "w")) == bit(star_p)
    # the pointer value itself is passed by value; an array name passes only its address
    assert formal.to_callee(zset(caller, "q")) == zset(callee, "p")
    assert array.to_callee(zset(caller, "arr")) == zset(callee, "*p", "a")


def test_c_by_value_formals_are_not_written_back(c_sites):
    _, caller, callee, (address, array, several, formal) = c_sites
    assert address.to_caller(zset(callee, "v", "p"), written=True) == 0
    assert address.to_caller(zset(callee, "v")) == zset(caller, "x")
    assert address.to_caller(zset(callee, "*p"), must=True) == zset(caller, "w")
    assert address.to_caller(zset(callee, "a")) == zset(caller, "arr")  # an array formal is the array


def test_c_relation_to_caller_totality(c_sites):
    _, caller, callee, (address, array, several, formal) = c_sites
    star_p, v, a, g = (zone(callee, n) for n in ("*p", "v", "a", "g"))
    summary = Relation({star_p: bit(v) | bit(a), v: 0, g: 0})
    assert address.relation_to_caller(summary).rows == {
        zone(caller, "w"): zset(caller, "x", "arr"), zone(caller, "g"): 0}
    # two possible targets: each may keep its old value
    rel = several.relation_to_caller(summary)
    x, y = zone(caller, "x"), zone(caller, "y")
    assert rel.rows[x] == zset(caller, "x", "y", "arr") and rel.rows[y] == zset(caller, "y", "arr")
    # an array passed as a pointer: an element of it is written
    assert array.relation_to_caller(summary).rows[zone(caller, "arr")] == zset(caller, "arr", "x", "y")


def test_every_corpus_program_builds_with_consistent_sites():
    import glob
    import os

    from adspec.dot import flow_graph_dot
    from adspec.frontends import parse_file
    here = os.path.join(os.path.dirname(__file__), "programs")
    paths = sorted(glob.glob(os.path.join(here, "*.c")) + glob.glob(os.path.join(here, "*.f*")))
    assert paths
    for path in paths:
        program = build_program(parse_file(path))
        external = {id(i) for _, i in program.external_calls}
        for proc in program.procedures.values():
            for instr in proc.flow.instructions():
                if instr.kind == "call":
                    assert (id(instr) in program.call_sites) != (id(instr) in external), path
                    site = program.call_sites.get(id(instr))
                    if site is not None:  # every translation can be computed
                        site.to_callee(-1 & ((1 << len(proc.zones.zones)) - 1))
                        site.relation_to_caller(Relation())
            assert flow_graph_dot(proc).startswith("digraph")
        assert sum(map(len, program.bottom_up())) == len(program.procedures)


def test_sections_and_fortran_pointer_formals():
    program = program_of("""
subroutine callee(p, v)
  real, pointer :: p
  real :: v(3)
  p = v(1)
  v(2) = p
end subroutine
subroutine caller(x, arr)
  real, target :: x, arr(10), y
  real, pointer :: px
  px => x
  if (x > 0) px => y
  call callee(px, arr(2:4))
end subroutine
""", "t.f90")
    caller, callee = program.procedure("caller"), program.procedure("callee")
    (site,) = sites(program, "caller", "callee")
    assert site.to_caller(zset(callee, "p")) == zset(caller, "px")         # the pointer itself
    assert site.to_caller(zset(callee, "*p")) == zset(caller, "x", "y")    # what it points to
    star_p, v = zone(callee, "*p"), zone(callee, "v")
    rel = site.relation_to_caller(Relation({star_p: bit(v), v: bit(v) | bit(star_p)}))
    x, y, arr = zone(caller, "x"), zone(caller, "y"), zone(caller, "arr")
    assert rel.rows == {x: bit(x) | bit(arr), y: bit(y) | bit(arr), arr: bit(arr) | bit(x) | bit(y)}


HOSTED = """
subroutine top(x, y)
  real(8) :: x, y
  call host(x, y)
end subroutine top
subroutine host(a, b)
  real(8) :: a, b, h
  h = a
  call inner()
contains
  subroutine inner()
    real(8) :: t
    t = h
    b = t
  end subroutine inner
end subroutine host
"""


def test_host_variables_shared_with_internal_procedures_translate_as_the_hosts_own():
    """host's b and h are global zones (inner uses them), but top's call host(x, y) still maps
    b to y, and h, host's local, to nothing."""
    program = graph_of((HOSTED, "hosted.f90"))
    top, host = program.procedures["top"], program.procedures["host"]
    site = program.callgraph.edges["top", "host"]["sites"][0]
    b, h = host.zones.var_zones("b"), host.zones.var_zones("h")
    assert b & host.zones.globals_mask and h & host.zones.globals_mask
    assert site.to_caller(b) == site.to_caller(b, written=True) == top.zones.var_zones("y")
    assert site.to_caller(b, must=True) == top.zones.var_zones("y")
    assert site.to_caller(h) == 0 and site.to_callee(top.zones.var_zones("y")) == b
    into_inner = program.callgraph.edges["host", "host.inner"]["sites"][0]
    assert into_inner.to_callee(h | b) == h | b and into_inner.to_caller(h | b) == h | b
