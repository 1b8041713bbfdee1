"""Adjoint-out analysis (paper 5.2, section 4.10): seeing P as U; I; D, Adj-out⁺(I) holds the
variables that the sequel of the forward sweep and its adjoint (D→; D←) may leave modified.
Backward, from ∅ at the tail:

    Adj-out⁻(I) = (Adj-out⁺(I) ∪ out(I)) \\ (TBR⁻(I) ∪ use(I'))   if isLiveForDiff(I)
                  Adj-out⁺(I)                                      otherwise
    Adj-out⁺(I) = ∪_{J succ of I} Adj-out⁻(J)

Values in TBR⁻(I) ∪ use(I') are restored by the store-all mechanism, hence removed.
Top-down: a callee starts at its exit from the union of Adj-out⁺ at its call sites.
"""
from __future__ import annotations

from ..engine.solver import BACKWARD, TOP_DOWN, solve

from .common import ZoneSetAnalysis


class AdjOutAnalysis(ZoneSetAnalysis):
    name = "Adj-out"
    direction = BACKWARD
    call_order = TOP_DOWN

    def __init__(self, program, diff_live, tbr_solution, tbr_analysis):
        self.program, self.diff_live = program, diff_live
        self.tbr_solution, self.tbr_analysis = tbr_solution, tbr_analysis

    def transfer(self, instr, value, proc):
        if not self.diff_live.is_live_for_diff(proc, instr):
            return value
        restored = self.tbr_solution[proc.name].before(instr) | self.tbr_analysis.derivative_uses(proc, instr)
        return (value | self.diff_live.out(proc, instr)) & ~restored

    def call_context(self, site, before, after):
        return site.to_callee(after)


def adjoint_out(program, diff_live, tbr_solution, order: str = "good"):
    return solve(program, AdjOutAnalysis(program, diff_live, tbr_solution, tbr_solution.analysis), order=order)
