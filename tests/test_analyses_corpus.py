"""Every round-trip program goes through program building and the whole chain of analyses,
with its head's default dependents and independents; every solution is a fixed point."""
import pytest

import adspec
from adspec.analyses import run_analyses
from adspec.engine.program import build_program
from adspec.engine.solver import is_fixed_point
from adspec.heads import HeadSpec, resolve_heads
from harness import load_program, program_paths

PROGRAMS = [load_program(p) for p in program_paths()]


@pytest.mark.parametrize("prog", PROGRAMS, ids=[p.name for p in PROGRAMS])
def test_corpus_program_analyses(prog):
    program = build_program(adspec.parse(str(prog.path)))
    heads = resolve_heads(program, [HeadSpec(prog.spec.name, None, None)])
    results = run_analyses(program, heads)
    (indep, dep), = heads.values()
    assert indep and dep, "the head has differentiable inputs and outputs"
    for solution in (results.dep, results.diff_dep, results.activity.varied, results.activity.useful,
                     results.diff_live.solution, results.tbr, results.adj_out, results.inout.solution):
        assert is_fixed_point(program, solution) == [], solution.analysis.name
