"""Diff-liveness analysis (paper 5.2, section 4.9): the variables whose value is needed, in the
end, to compute a derivative. Backward, from ∅ at the tail of the code:

    Diff-live⁻(I∞) = ∅
    Diff-live⁻(I)  = use(I') ∪ (Dep(I) ⊗ Diff-live⁺(I))
    Diff-live⁺(I)  = ∪_{J succ of I} Diff-live⁻(J)
    isLiveForDiff(I) ⟺ out(I) ∩ Diff-live⁺(I) ≠ ∅

extended to control: a control instruction (test or loop header) is diff-live when one of the
instructions it controls has a derivative or is live for diff; a diff-live control makes
the variables it reads diff-live.

On the call graph, the analysis runs twice. Bottom-up, each procedure is solved from ∅ at its
exit: the set at its entry, seen from callers, is the procedure's summary DiffUse(P), the
use(I') of a call. Since the equations are distributive, a call then transfers
Diff-live⁻ = DiffUse(P) ∪ Dep(P) ⊗ Diff-live⁺, exactly. Top-down, each procedure is solved
again from the union of the Diff-live⁺ sets of its call sites, for the sets inside it.
Control liveness depends on the result, so the two runs are repeated while new controls
become live (a monotone outer iteration; usually one extra round at most).
"""
from __future__ import annotations

from ..engine.effects import instruction_effects
from ..engine.solver import BACKWARD, BOTTOM_UP, TOP_DOWN, Analysis, solve
from .common import external_call_effects, visible_zones
from .dependency import DependencyAnalysis


class DiffLivenessAnalysis(Analysis):
    name = "Diff-live"
    direction = BACKWARD

    def __init__(self, program, dep_solution, uses, live_controls: frozenset, call_order: str,
                 diffuse: dict | None = None):
        self.program, self.uses, self.live_controls = program, uses, live_controls
        self.call_order = call_order
        self.relations = DependencyAnalysis(program, differentiable=False)
        self.relations.summaries = dep_solution.summaries
        self.diffuse = diffuse  # summaries of the bottom-up run, for the top-down run

    def bottom(self, proc):
        return 0

    def meet(self, a, b):
        return a | b

    def boundary(self, proc, context):
        return context or 0

    def initial_context(self, proc):
        return 0

    def call_uses(self, instr, proc) -> int:
        """use(I') of a call: the callee's DiffUse summary seen from the call site."""
        site = self.program.call_sites.get(id(instr))
        if site is None:
            reads, _ = external_call_effects(instr, proc)
            return reads if self.uses.activity.is_active_instr(proc, instr) else 0
        summaries = self.diffuse if self.diffuse is not None else self.summaries
        summary = summaries.get(site.callee.name)
        return 0 if summary is None else site.to_caller(summary)

    def transfer(self, instr, value, proc):
        relation = self.relations.instruction_relation(instr, proc)
        out = 0 if relation is None else relation.backward(value)
        if instr.kind == "call":
            return out | self.call_uses(instr, proc)
        if instr.kind in ("test", "loop"):
            if id(instr) in self.live_controls:
                out |= instruction_effects(instr, proc).reads
            return out
        return out | self.uses.uses(proc, instr)

    def summarize(self, proc, result):
        return result.at_entry & visible_zones(proc)

    def call_context(self, site, before, after):
        return site.to_callee(after)


class DiffLiveness:
    """Diff-live sets around every instruction, isLiveForDiff, and the live controls."""

    def __init__(self, program, solution, summaries, live_controls, uses, inout):
        self.program, self.solution, self.summaries = program, solution, summaries
        self.live_controls, self.uses, self.inout = live_controls, uses, inout

    def before(self, proc, instr) -> int:
        return self.solution[proc.name].before(instr)

    def after(self, proc, instr) -> int:
        return self.solution[proc.name].after(instr)

    def is_live_for_diff(self, proc, instr) -> bool:
        if instr.kind in ("test", "loop"):
            return id(instr) in self.live_controls
        return bool(self.out(proc, instr) & self.after(proc, instr))

    def out(self, proc, instr) -> int:
        """out(I): the zones an instruction may write (a call: what the callee may write,
        seen from the call site)."""
        if instr.kind == "call":
            site = self.program.call_sites.get(id(instr))
            if site is None:
                return external_call_effects(instr, proc)[1]
            return site.to_caller(self.inout.may_written(site.callee), written=True)
        return instruction_effects(instr, proc).writes


def diff_liveness(program, dep_solution, uses, control_regions, inout, order: str = "good") -> DiffLiveness:
    """control_regions: id(control instr) -> list of instructions it controls (flowgraph)."""
    live_controls: frozenset = frozenset()
    while True:
        bottom_up = solve(program, DiffLivenessAnalysis(program, dep_solution, uses, live_controls, BOTTOM_UP),
                          order=order)
        top_down = solve(program, DiffLivenessAnalysis(program, dep_solution, uses, live_controls, TOP_DOWN,
                                                       diffuse=bottom_up.summaries), order=order)
        result = DiffLiveness(program, top_down, bottom_up.summaries, live_controls, uses, inout)
        grown = set(live_controls)
        for proc in program.procedures.values():
            for instr in proc.flow.instructions():
                if instr.kind in ("test", "loop") and id(instr) not in grown:
                    controlled = control_regions.get(id(instr), ())
                    if any(_needs_control(result, uses, proc, c) for c in controlled):
                        grown.add(id(instr))
        if len(grown) == len(live_controls):
            return result
        live_controls = frozenset(grown)


def _needs_control(result, uses, proc, instr) -> bool:
    if instr.kind in ("test", "loop"):
        return id(instr) in result.live_controls
    if instr.kind == "call":
        return result.is_live_for_diff(proc, instr) or uses.activity.is_active_instr(proc, instr)
    return result.is_live_for_diff(proc, instr) or uses.has_derivative(proc, instr)
