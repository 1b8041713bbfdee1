"""The analyses reproduce the paper's figures 9 (activity) and 12 (diff-liveness, TBR), and
the solver handles recursion and deep loop nests."""
from pathlib import Path

import pytest

import adspec
from adspec.analyses import run_analyses
from adspec.engine.bitsets import zones_of
from adspec.engine.program import build_program
from adspec.engine.solver import is_fixed_point
from adspec.heads import parse_heads, resolve_heads

HERE = Path(__file__).parent / "analysis_programs"
EXAMPLES = Path(__file__).parent.parent / "docs" / "examples"   # the paper's figures, shown in the tutorial


def analysed(path, head):
    program = build_program(adspec.parse(str(path)))
    results = run_analyses(program, resolve_heads(program, parse_heads(head)))
    return program, results


def names(proc, s):
    return {proc.zones.zones[z].name for z in zones_of(s)}


def instrs_by_line(proc):
    found = {}
    for instr in proc.flow.instructions():
        found.setdefault(instr.line, instr)
    return found


@pytest.fixture(scope="module")
def fig9():
    program, results = analysed(EXAMPLES / "fig9.f90", "fig9(d, e)/(a, b, c)")
    proc = program.procedure("fig9")
    return proc, results, instrs_by_line(proc)


def test_fig9_a_is_not_varied_after_receiving_a_constant(fig9):
    proc, results, at = fig9
    varied = results.activity.varied[proc.name]
    assert names(proc, varied.before(at[5])) == {"a", "b", "c"}          # x = a*b
    assert names(proc, varied.after(at[5])) == {"a", "b", "c", "x"}
    assert "a" in names(proc, varied.before(at[6]))                      # a = 5.0
    assert "a" not in names(proc, varied.after(at[6]))
    assert names(proc, varied.after(at[9])) == {"b", "c", "x", "d"}      # e = floor(e): e not varied


def test_fig9_e_is_not_useful_before_floor(fig9):
    proc, results, at = fig9
    useful = results.activity.useful[proc.name]
    assert names(proc, useful.after(at[9])) == {"d", "e"}
    assert names(proc, useful.before(at[9])) == {"d"}                    # e = floor(e)
    assert names(proc, useful.before(at[8])) == {"d"}                    # e = a/x: e not useful after
    assert names(proc, useful.before(at[7])) == {"a", "c"}               # d = a*c
    assert names(proc, useful.before(at[6])) == {"c"}                    # a = 5.0 kills a


def test_fig9_active_sets(fig9):
    proc, results, at = fig9
    act = results.activity
    assert names(proc, act.active_before(proc, at[7])) == {"c"}          # d = a*c: only c is active
    assert names(proc, act.active_after(proc, at[7])) == {"d"}
    assert names(proc, act.active_before(proc, at[8])) == {"d"}               # e = a/x: a, x not active


@pytest.fixture(scope="module")
def fig12():
    program, results = analysed(EXAMPLES / "fig12.f90", "fig12(a, b, x, z)/(a, b, x, z)")
    proc = program.procedure("fig12")
    return proc, results, instrs_by_line(proc)


def test_fig12_z_and_c_are_not_diff_live(fig12):
    proc, results, at = fig12
    live = results.diff_live
    assert not live.is_live_for_diff(proc, at[13])                      # z(n) = z(n) + c
    assert not live.is_live_for_diff(proc, at[10])                      # c = a(n)*b(n)
    assert "c" not in names(proc, live.after(proc, at[10]))
    assert not live.is_live_for_diff(proc, at[11])                      # a(n) = a(n)*a(n+1)
    for line in (7, 8, 9, 12):                                          # the rest is needed
        assert live.is_live_for_diff(proc, at[line]), line


def test_fig12_first_n_and_b_are_not_tbr(fig12):
    proc, results, at = fig12
    tbr = results.tbr[proc.name]
    assert "n" not in names(proc, tbr.before(at[7]))                    # n = ind1(i): no push
    assert "b" not in names(proc, tbr.before(at[8]))                    # b(n) = sin(a(n)) - b(n)
    assert "a" in names(proc, tbr.before(at[9]))                        # a(n) = a(n) + x: push a(n)
    assert "n" in names(proc, tbr.before(at[12]))                       # n = ind2(i+2): push n


@pytest.fixture(scope="module")
def recursive():
    return analysed(HERE / "recursion.f90", "top(y, u, v, s)/(x, u, v, a)")


def test_recursion_reaches_a_fixed_point(recursive):
    program, results = recursive
    for solution in (results.dep, results.diff_dep, results.activity.varied, results.activity.useful,
                     results.diff_live.solution, results.tbr, results.adj_out):
        assert is_fixed_point(program, solution) == [], solution.analysis.name
    assert {"ping", "pong"} in [set(c) for c in program.bottom_up()]


def test_recursive_dependencies(recursive):
    program, results = recursive
    down = program.procedure("down")
    summary = results.diff_dep.summaries[down.name]
    y, x = down.zones.var_zones("y"), down.zones.var_zones("x")
    assert summary.row(y.bit_length() - 1) == x | y                   # y <- x, y through the recursion
    top = program.procedure("top")
    varied_exit = results.activity.varied[top.name].at_exit
    assert {"y", "u", "v", "s"} <= names(top, varied_exit)


def test_four_nested_loops(recursive):
    program, results = recursive
    nest = program.procedure("nest4")
    assert max(loop.depth for loop in nest.flow.loops) == 4
    summary = results.diff_dep.summaries[nest.name]
    s, a = nest.zones.var_zones("s"), nest.zones.var_zones("a")
    assert summary.row(s.bit_length() - 1) == a


def test_control_diff_liveness():
    program, results = analysed(HERE / "control.f90", "ctl(y)/(x)")
    proc = program.procedure("ctl")
    at = instrs_by_line(proc)
    live = results.diff_live
    assert live.is_live_for_diff(proc, at[7])              # if (m > 3): guards y = y*x
    assert "m" in names(proc, live.before(proc, at[7]))
    assert live.is_live_for_diff(proc, at[5])              # so m = k*2 is needed
    assert not live.is_live_for_diff(proc, at[10])         # if (p > 2): guards nothing active
    assert not live.is_live_for_diff(proc, at[6])          # so p = k + 1 is not needed
    assert live.is_live_for_diff(proc, at[13])             # do while (m > 0) guards y = y + x
    assert live.is_live_for_diff(proc, at[15])             # and m = m - 1 controls it
