"""Elementary effects of instructions (engine/effects.py): reads, writes, kills, Dep, Diff-dep."""
from __future__ import annotations

import pytest

from adspec.engine.bitsets import IDENTITY
from adspec.engine.effects import external_call_effects, instruction_effects, sequence
from adspec.engine.flowgraph import Instr
from adspec.engine.il import walk
from test_zones import e, program_of


def setup(src, proc, lang="fortran"):
    p = program_of(src, lang).procedures[proc]
    return p, p.zones


def stmts(p, op):
    return [x for x in walk(p.node.kids[7]) if x.op == op]


def plain(p, op, k=0):
    return instruction_effects(Instr(stmts(p, op)[k], "plain"), p)


F = """
subroutine s(a, x, y, i, n, k)
  real(8) :: a(10), x, y
  integer :: i, n, k
  y = x * a(i)
  a(i) = x + y
  n = x * 2
  do k = i, n, 2
    x = floor(y) + sin(x)
  end do
  if (x > y) y = 1
  print *, x, a
  read *, y
end
"""


def test_total_assignment_dep_and_diff_dep():
    p, zm = setup(F, "s")
    a, x, y, i, n, k = (zm.var_zones(v) for v in "axyink")
    ef = plain(p, "assign", 0)              # y = x * a(i)
    assert ef.writes == ef.kills == y
    assert ef.reads == x | a | i
    assert ef.dep.row(y.bit_length() - 1) == x | a | i
    assert ef.diff_dep.row(y.bit_length() - 1) == x | a       # index excluded, y killed
    assert ef.dep.row(x.bit_length() - 1) == x                 # others: identity


def test_partial_write_keeps_itself():
    p, zm = setup(F, "s")
    a, x, y, i = (zm.var_zones(v) for v in "axyi")
    ef = plain(p, "assign", 1)              # a(i) = x + y
    za = a.bit_length() - 1
    assert ef.writes == a and ef.kills == 0
    assert ef.reads == x | y | i                               # lhs index is read
    assert ef.dep.row(za) == x | y | i | a
    assert ef.diff_dep.row(za) == x | y | a                    # (a.a) kept


def test_integer_lhs_has_empty_diff_dep_row():
    p, zm = setup(F, "s")
    n, x = zm.var_zones("n"), zm.var_zones("x")
    ef = plain(p, "assign", 2)              # n = x * 2
    zn = n.bit_length() - 1
    assert ef.kills == n and ef.dep.row(zn) == x
    assert ef.diff_dep.row(zn) == 0
    assert ef.diff_dep.forward(x) == x                          # x no longer flows to n


def test_non_differentiable_intrinsic_in_rhs():
    p, zm = setup(F, "s")
    x, y = zm.var_zones("x"), zm.var_zones("y")
    ef = plain(p, "assign", 3)              # x = floor(y) + sin(x)
    assert ef.dep.row(x.bit_length() - 1) == x | y
    assert ef.diff_dep.row(x.bit_length() - 1) == x


def test_loop_entry_and_header():
    p, zm = setup(F, "s")
    i, n, k = zm.var_zones("i"), zm.var_zones("n"), zm.var_zones("k")
    zk = k.bit_length() - 1
    do = stmts(p, "do")[0]
    entry = instruction_effects(Instr(do, "loopEntry"), p)
    assert entry.writes == entry.kills == k
    assert entry.reads == i | n                      # lo and hi fix the trip count; k is not read
    assert entry.dep.row(zk) == i | n                # no dependence on the old index
    assert entry.diff_dep.row(zk) == 0
    header = instruction_effects(Instr(do, "loop"), p)
    assert header.writes == header.kills == k
    assert header.reads == k                         # the next trip: index + step
    assert header.dep.row(zk) == k
    assert header.diff_dep.row(zk) == 0


def test_test_io_and_memoization():
    p, zm = setup(F, "s")
    a, x, y = (zm.var_zones(v) for v in "axy")
    node = stmts(p, "if")[0]
    instr = Instr(node, "test", node.kids[0])
    ef = instruction_effects(instr, p)
    assert ef.reads == x | y and ef.writes == 0 and ef.dep == ef.diff_dep == IDENTITY
    assert instruction_effects(instr, p) is ef
    pr = plain(p, "io", 0)
    assert pr.reads == x | a and pr.writes == 0
    rd = plain(p, "io", 1)
    assert rd.writes == rd.kills == y and rd.dep.row(y.bit_length() - 1) == 0
    with pytest.raises(ValueError):
        instruction_effects(Instr(node, "call"), p)


def test_no_effect_statements():
    src = "subroutine s(x)\nreal x\n10 continue\nx = 1\ngoto 10\nstop\nend\n"
    p, zm = setup(src, "s")
    for op in ("nop", "goto", "stop"):
        ef = plain(p, op)
        assert ef.reads == ef.writes == 0 and ef.dep == IDENTITY


C = """
struct pt { double x, y; int tag; };
double f(double *v, int n, struct pt *q) {
    double s = 0.0, t = v[0];
    struct pt a, b;
    double *w = (double *)malloc(n * sizeof(double));
    a = b;
    *v = s * t;
    q->x = a.y;
    atomicAdd(&s, t * 2.0);
    printf("%g\\n", s);
    free(w);
    return s * t;
}
"""


def test_c_declaration_initialisers_struct_copy_and_pointers():
    p, zm = setup(C, "f", "c")
    s, t = zm.var_zones("s"), zm.var_zones("t")
    star_v = zm.ref(e("*v", "c")).zones
    decl = next(x for x in stmts(p, "varDecl") if x.kids[2][0].kids[0] == "s")
    ef = instruction_effects(Instr(decl, "plain"), p)
    assert ef.writes == ef.kills == s | t
    assert ef.dep.row(t.bit_length() - 1) == star_v | zm.var_zones("v")
    assert ef.diff_dep.row(t.bit_length() - 1) == star_v
    assert ef.diff_dep.row(s.bit_length() - 1) == 0
    copy = plain(p, "assign", 0)            # a = b: field-wise
    ax, bx = _z(zm, "a.x"), _z(zm, "b.x")
    assert copy.diff_dep.row(ax.bit_length() - 1) == bx
    assert copy.dep.row(_z(zm, "a.tag").bit_length() - 1) == _z(zm, "b.tag")
    through = plain(p, "assign", 1)         # *v = s * t: v is indexed elsewhere, *v is an array
    assert through.writes == star_v and through.reads == s | t | zm.var_zones("v")
    assert through.diff_dep.row(star_v.bit_length() - 1) == s | t | star_v


def test_c_atomic_add_printf_free_return():
    p, zm = setup(C, "f", "c")
    s, t = zm.var_zones("s"), zm.var_zones("t")
    atom = plain(p, "intrinsic", 0)
    assert atom.writes == s and atom.kills == 0
    assert atom.diff_dep.row(s.bit_length() - 1) == s | t
    pr = plain(p, "intrinsic", 1)
    assert pr.reads == s and pr.writes == 0
    fr = plain(p, "deallocate") if stmts(p, "deallocate") else plain(p, "intrinsic", 2)
    assert fr.writes == zm.var_zones("w") and fr.diff_dep.row(zm.var_zones("w").bit_length() - 1) == 0
    ret = plain(p, "return")
    r = zm.result_zone
    assert ret.writes == ret.kills == 1 << r
    assert ret.diff_dep.row(r) == s | t


def test_fortran_pointer_assign_and_allocate():
    src = ("subroutine s(x, n)\nreal(8), target :: x(n)\ninteger n\nreal(8), pointer :: p(:)\n"
           "real(8), allocatable :: w(:)\np => x(1:n:2)\nallocate(w(n))\np = 2 * w\nend\n")
    p, zm = setup(src, "s")
    pz, n, x, w = (zm.var_zones(v) for v in ("p", "n", "x", "w"))
    pa = plain(p, "pointerAssign")
    assert pa.writes == pa.kills == pz and pa.reads == n
    assert pa.diff_dep.row(pz.bit_length() - 1) == 0
    al = plain(p, "allocate")
    assert al.writes == al.kills == w and al.reads == n and al.diff_dep.row(w.bit_length() - 1) == 0
    asg = plain(p, "assign")
    assert asg.writes == x and asg.kills == 0 and asg.reads == w | pz
    assert asg.diff_dep.row(x.bit_length() - 1) == x | w


def test_unknown_external_call_is_a_black_box():
    src = "subroutine s(x, y)\nreal x, y\nexternal ext\ncall ext(x, y)\nend\n"
    p, zm = setup(src, "s")
    x, y = zm.var_zones("x"), zm.var_zones("y")
    ef = external_call_effects(Instr(stmts(p, "call")[0], "call"), p)
    assert ef.writes == x | y and ef.kills == 0
    assert ef.diff_dep.row(x.bit_length() - 1) == x | y


def test_sequence_composes():
    p, zm = setup(F, "s")
    a, x, y, i = (zm.var_zones(v) for v in "axyi")
    both = sequence([plain(p, "assign", 0), plain(p, "assign", 1)])   # y = x*a(i); a(i) = x + y
    assert both.diff_dep.row(a.bit_length() - 1) == x | a
    assert both.kills == y


def _z(zm, name):
    return 1 << next(z.index for z in zm.zones if z.name == name)
