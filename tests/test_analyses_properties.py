"""Properties of the analyses on random programs (hypothesis):

- Varied is included in the forward reachability of the independents through Dep;
- every solution is a fixed point: re-applying every transfer function changes nothing;
- the results do not depend on the order in which the worklist visits the blocks;
- Dep computed on a callee and composed through the call equals Dep of the inlined code.
"""
import pytest
from hypothesis import HealthCheck, given, settings

from adspec.analyses import run_analyses
from adspec.analyses.activity import VariedAnalysis
from adspec.analyses.dependency import dependencies
from adspec.engine.program import build_program
from adspec.engine.solver import is_fixed_point, solve
from il_gen import examples, programs, programs_with_call

LANGS = ("fortran", "c")
SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow], max_examples=examples(40))


def head_sets(program):
    head = program.procedure("head")
    zones = head.zones
    indep = zones.var_zones("x") | zones.var_zones("s")
    dep = zones.var_zones("y") | zones.var_zones("s")
    return {head.name: (indep, dep)}


def all_solutions(results):
    return [results.dep, results.diff_dep, results.activity.varied, results.activity.useful,
            results.diff_live.solution, results.tbr, results.adj_out, results.inout.solution]


def sets_everywhere(program, results):
    """Every analysis' sets before and after every instruction, by position."""
    table = {}
    for proc in program.procedures.values():
        for instr in proc.flow.instructions():
            row = [(result.before(instr), result.after(instr))
                   for result in (solution.results[proc.name] for solution in all_solutions(results))]
            row.append(results.diff_live.is_live_for_diff(proc, instr))
            table[(proc.name, instr.block, instr.index)] = row
    return table


@pytest.mark.parametrize("lang", LANGS)
def test_varied_within_dep_reachability_and_fixed_points(lang):
    @settings(**SETTINGS)
    @given(programs_with_call(lang))
    def check(pair):
        program = build_program(pair[0])
        heads = head_sets(program)
        results = run_analyses(program, heads)
        for solution in all_solutions(results):
            assert is_fixed_point(program, solution) == [], solution.analysis.name
        # forward reachability through Dep: Varied run on Dep instead of Diff-dep
        reach = solve(program, VariedAnalysis(program, results.dep),
                      {name: indep for name, (indep, _) in heads.items()})
        for proc in program.procedures.values():
            varied, reached = results.activity.varied[proc.name], reach[proc.name]
            for instr in proc.flow.instructions():
                assert varied.before(instr) & ~reached.before(instr) == 0
                assert varied.after(instr) & ~reached.after(instr) == 0
    check()


@pytest.mark.parametrize("lang", LANGS)
def test_results_do_not_depend_on_the_visiting_order(lang):
    @settings(**SETTINGS)
    @given(programs_with_call(lang))
    def check(pair):
        program = build_program(pair[0])
        heads = head_sets(program)
        good = sets_everywhere(program, run_analyses(program, heads, order="good"))
        assert sets_everywhere(program, run_analyses(program, heads, order="reversed")) == good
        assert sets_everywhere(program, run_analyses(program, heads, order="random")) == good
    check()


@pytest.mark.parametrize("lang", LANGS)
def test_dep_through_a_call_equals_dep_of_the_inlined_code(lang):
    @settings(**SETTINGS)
    @given(programs_with_call(lang))
    def check(pair):
        with_call, inlined = (build_program(p) for p in pair)
        for differentiable in (False, True):
            a = dependencies(with_call, differentiable).summaries[with_call.procedure("head").name]
            b = dependencies(inlined, differentiable).summaries[inlined.procedure("head").name]
            head_a, head_b = with_call.procedure("head"), inlined.procedure("head")
            assert _by_name(head_a, a) == _by_name(head_b, b)
    check()


def _by_name(proc, relation):
    """A relation over visible zones as {name: set of names}, comparable across programs."""
    from adspec.analyses.common import visible_zones
    from adspec.engine.bitsets import zones_of
    zones = proc.zones
    return {zones.zones[v].name: frozenset(zones.zones[u].name for u in zones_of(relation.row(v)))
            for v in zones_of(visible_zones(proc))}


@pytest.mark.parametrize("lang", LANGS)
def test_single_procedures_reach_fixed_points(lang):
    @settings(**SETTINGS)
    @given(programs(lang))
    def check(tree):
        program = build_program(tree)
        results = run_analyses(program, head_sets(program))
        for solution in all_solutions(results):
            assert is_fixed_point(program, solution) == []
    check()
