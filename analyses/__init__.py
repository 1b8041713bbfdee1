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


def run_analyses(program, heads: dict, order: str = "good") -> AnalysisResults:
    """heads: procedure name -> (independent zones, dependent zones), as bitsets in that
    procedure's zones."""
    from .activity import activity
    from .adjout import adjoint_out
    from .dependency import dependencies
    from .derivative_uses import DerivativeUses
    from .diffliveness import diff_liveness
    from .inout import in_out
    from .snapshots import snapshots
    from .tbr import tbr

    inout = in_out(program, order)
    dep = dependencies(program, differentiable=False, order=order)
    diff_dep = dependencies(program, differentiable=True, order=order)
    act = activity(program, heads, diff_dep, order)
    uses = DerivativeUses(program, act)
    live = diff_liveness(program, dep, uses, inout, order)
    tbr_solution = tbr(program, live, inout, order)
    adj = adjoint_out(program, live, tbr_solution, order)
    snaps = snapshots(program, live, tbr_solution, adj)
    return AnalysisResults(program, heads, inout, dep, diff_dep, act, uses, live, tbr_solution, adj, snaps)
