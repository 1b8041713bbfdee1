"""TBR, To-Be-Recorded analysis (paper 5.2, section 4.9): the variables whose present value may
be used in a derivative instruction, so that overwriting them in the forward sweep of the
adjoint requires to store the value first. Forward, from ∅ at the start of the code:

    TBR⁺(I) = (TBR⁻(I) ∪ use(I')) \\ kill(I)   if isLiveForDiff(I)
              TBR⁻(I) ∪ use(I')               otherwise
    TBR⁻(I) = ∪_{J pred of I} TBR⁺(J)

A call is one instruction: use(I') is DerivativeUses.call_uses, the definition Diff-live uses
too (∅ for a passive call, the callee's DiffUse summary, every actual argument for a
procedure outside the source), and
kill(I) what the callee certainly and completely overwrites (in-out), both seen from the call
site. Top-down: a callee starts from the union of TBR⁻ at its call sites.
"""
from __future__ import annotations

from ..engine.effects import instruction_effects
from ..engine.solver import FORWARD, TOP_DOWN, solve
from .common import ZoneSetAnalysis, external_call_effects


class TBRAnalysis(ZoneSetAnalysis):
    name = "TBR"
    direction = FORWARD
    call_order = TOP_DOWN

    def __init__(self, program, diff_live, inout):
        self.program, self.diff_live, self.inout = program, diff_live, inout
        self.uses = diff_live.uses

    def derivative_uses(self, proc, instr) -> int:
        """use(I'), for TBR and for Adj-out (which reads it from here)."""
        if instr.kind == "call":
            return self.uses.call_uses(proc, instr, self.diff_live.summaries)
        if instr.kind in ("test", "loop"):
            return 0
        return self.uses.uses(proc, instr)

    def kills(self, proc, instr) -> int:
        if instr.kind == "call":
            site = self.program.call_sites.get(id(instr))
            if site is None:
                return external_call_effects(instr, proc).kills
            return site.to_caller(self.inout.must_written(site.callee), must=True)
        return instruction_effects(instr, proc).kills

    def transfer(self, instr, value, proc):
        value |= self.derivative_uses(proc, instr)
        if self.diff_live.is_live_for_diff(proc, instr):
            value &= ~self.kills(proc, instr)
        return value

    def call_context(self, site, before, after):
        return site.to_callee(before)


def tbr(program, diff_live, inout, order: str = "good"):
    return solve(program, TBRAnalysis(program, diff_live, inout), order=order)
