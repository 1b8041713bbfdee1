"""Dependency analysis Dep(P) and diff-dependency analysis Diff-dep(P) (paper 5.2).

Both are forward sweeps of a dependency relation, from the identity at the entry of P:

    Dep⁺(I₀) = Id        Dep⁺(I) = Dep⁻(I) ⊗ Dep(I)        Dep⁻(I) = ∪_{J pred of I} Dep⁺(J)

and Dep(P) is Dep⁻(I∞), restricted to what callers can see (formals, result, globals).
They differ only in the elementary relation of an instruction: in Dep(I) the left-hand side
depends on every variable read, indices included; in Diff-dep(I) only on the variables used
in a differentiable way (engine/effects.py). At a call, the callee's summary is translated to
the call site. The procedures are visited bottom-up on the call graph.
"""
from __future__ import annotations

from ..engine.bitsets import IDENTITY, Relation
from ..engine.effects import instruction_effects
from ..engine.solver import BOTTOM_UP, FORWARD, Analysis
from .common import external_call_effects, visible_zones

# `None` is the bottom of the lattice: no path reaches the point (not even the identity).


class DependencyAnalysis(Analysis):
    direction = FORWARD
    call_order = BOTTOM_UP

    def __init__(self, program, differentiable: bool):
        self.program = program
        self.differentiable = differentiable
        self.name = "Diff-dep" if differentiable else "Dep"

    def bottom(self, proc):
        return None

    def meet(self, a, b):
        if a is None:
            return b
        if b is None:
            return a
        return a.union(b)

    def boundary(self, proc, context):
        return IDENTITY

    def instruction_relation(self, instr, proc) -> Relation | None:
        """Dep(I) or Diff-dep(I); None when control cannot go through I (a recursive call
        whose summary is not known yet)."""
        if instr.kind == "call":
            site = self.program.call_sites.get(id(instr))
            if site is None:
                effects = external_call_effects(instr, proc)
                return effects.diff_dep if self.differentiable else effects.dep
            summary = self.summary_of(site.callee)
            return None if summary is None else site.relation_to_caller(summary)
        effects = instruction_effects(instr, proc)
        return effects.diff_dep if self.differentiable else effects.dep

    def transfer(self, instr, value, proc):
        if value is None:
            return None
        relation = self.instruction_relation(instr, proc)
        return None if relation is None else value.then(relation)

    def summarize(self, proc, result):
        at_exit = result.at_exit
        if at_exit is None:
            return None
        visible = visible_zones(proc)
        return Relation({v2: row & visible for v2, row in at_exit.rows.items() if (visible >> v2) & 1})

    def initial_summary(self, proc):
        return None


def dependencies(program, differentiable: bool, order: str = "good"):
    """Solve Dep (differentiable=False) or Diff-dep (True) over the program."""
    from ..engine.solver import solve
    return solve(program, DependencyAnalysis(program, differentiable), order=order)
