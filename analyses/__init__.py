"""The data-flow analyses of paper 5.2, one module each, chained as in the paper's fig. 17:

    in-out, Dep, Diff-dep  ->  activity (Varied, Useful)  ->  Diff-live  ->  TBR  ->  Adj-out
    ->  snapshots (SNP, SBK) of checkpointed calls

`run_analyses(program, heads)` runs the whole chain.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass
class AnalysisResults:
    program: object
    heads: dict
    inout: object
    dep: object
    diff_dep: object
    activity: object
    uses: object
    diff_live: object
    tbr: object
    adj_out: object
    snapshots: dict
    nooptim: frozenset = frozenset()   # the improvements switched off (-nooptim)
    activity_facts: object = None      # the Facts of the activity alone (see run_analyses), or None


def _untimed(label, compute):
    return compute()


def run_analyses(program, heads: dict, order: str = "good", phase=_untimed, nooptim=frozenset(),
                 adjoint: bool = True, inout=None) -> AnalysisResults:
    """heads: procedure name -> (independent zones, dependent zones), as bitsets in that
    procedure's zones. Each analysis runs as phase(name, thunk), so a benchmark can time it.
    nooptim: improvements switched off, as Tapenade's -nooptim: "activity" (every
    differentiable variable active everywhere), "diffliveness" (every instruction live),
    "tbr" (the adjoint saves every value it overwrites: Facts.is_restored), "checkpoint" (no
    call is checkpointed: -nocheckpoint, split mode everywhere).
    adjoint=False skips the analyses only the adjoint needs (TBR, Adj-out, snapshots: None).
    inout: the in-out analysis when the caller has it already (resolving the heads needs it)."""
    from .activity import activity, naive_activity
    from .dependency import dependencies
    from .derivative_uses import DerivativeUses
    from .diffliveness import diff_liveness
    from .inout import in_out

    if inout is None:
        inout = phase("in-out", lambda: in_out(program, order))
    dep = phase("Dep", lambda: dependencies(program, differentiable=False, order=order))
    diff_dep = phase("Diff-dep", lambda: dependencies(program, differentiable=True, order=order))
    act = phase("activity", lambda: naive_activity(program) if "activity" in nooptim
                else activity(program, heads, diff_dep, order))
    uses = DerivativeUses(program, act, inout)
    checkpointed = valued = frozenset()
    if adjoint and "checkpoint" not in nooptim:
        from .snapshots import only_checkpointed
        checkpointed = only_checkpointed(program, heads)
    if adjoint:
        from .snapshots import split_functions
        valued = split_functions(program, "checkpoint" not in nooptim)
    resets = before_live = None
    if adjoint and "diffliveness" not in nooptim:
        from .facts import Facts
        before_live = Facts(program, AnalysisResults(program, heads, inout, dep, diff_dep, act, uses, None, None,
                                                     None, None, frozenset(nooptim)))
        resets = before_live.instruction_resets_a_derivative
    live = phase("Diff-live", lambda: diff_liveness(program, dep, uses, inout, order,
                                                     everything_live="diffliveness" in nooptim,
                                                     checkpointed=checkpointed, resets=resets, valued=valued))
    tbr_solution = adj = snaps = None
    if adjoint:   # imported here: the tangent modes need not load (nor compile) them
        from .adjout import adjoint_out
        from .snapshots import snapshots
        from .tbr import tbr
        tbr_solution = phase("TBR", lambda: tbr(program, live, inout, order))
        adj = phase("Adj-out", lambda: adjoint_out(program, live, tbr_solution, order))
        snaps = phase("snapshots", lambda: snapshots(program, live, tbr_solution, adj,
                                                      everywhere="checkpoint" not in nooptim))
    return AnalysisResults(program, heads, inout, dep, diff_dep, act, uses, live, tbr_solution, adj, snaps,
                           frozenset(nooptim), before_live)
