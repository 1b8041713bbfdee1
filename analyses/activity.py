"""Activity analysis (paper 5.2, section 4.6): Varied forward, Useful backward, Active their
intersection.

    Varied⁺(I) = Varied⁻(I) ⊗ Diff-dep(I)          Varied⁻(I) = ∪_{J pred} Varied⁺(J)
    Useful⁻(I) = Diff-dep(I) ⊗ Useful⁺(I)          Useful⁺(I) = ∪_{J succ} Useful⁻(J)
    Active⁻(I) = Varied⁻(I) ∩ Useful⁻(I)            Active⁺(I) = Varied⁺(I) ∩ Useful⁺(I)

Both are top-down on the call graph: a head starts from its independents (Varied at entry) and
dependents (Useful at exit); a callee's context is the union over its call sites of the
Varied set before the call (Useful set after it) seen from the callee. At a call, Diff-dep(I)
is the callee's Diff-dep(P) summary translated to the call site.
"""
from __future__ import annotations

from ..engine.effects import instruction_effects
from ..engine.solver import BACKWARD, FORWARD, TOP_DOWN, solve
from .common import ZoneSetAnalysis, external_call_effects
from .dependency import DependencyAnalysis


class _ActivityHalf(ZoneSetAnalysis):
    call_order = TOP_DOWN

    def __init__(self, program, diff_dep_solution):
        self.program = program
        # Diff-dep(I) of every instruction, call sites through the callees' summaries
        self.relations = DependencyAnalysis(program, differentiable=True)
        self.relations.summaries = diff_dep_solution.summaries


class VariedAnalysis(_ActivityHalf):
    name = "Varied"
    direction = FORWARD

    def transfer(self, instr, value, proc):
        relation = self.relations.instruction_relation(instr, proc)
        return 0 if relation is None else relation.forward(value)

    def call_context(self, site, before, after):
        return site.to_callee(before)


class UsefulAnalysis(_ActivityHalf):
    name = "Useful"
    direction = BACKWARD

    def transfer(self, instr, value, proc):
        relation = self.relations.instruction_relation(instr, proc)
        return 0 if relation is None else relation.backward(value)

    def call_context(self, site, before, after):
        return site.to_callee(after)


class Activity:
    """Varied, Useful and Active sets around every instruction of every procedure."""

    def __init__(self, program, varied, useful):
        self.program, self.varied, self.useful = program, varied, useful

    def active_before(self, proc, instr) -> int:
        return self.varied[proc.name].before(instr) & self.useful[proc.name].before(instr)

    def active_after(self, proc, instr) -> int:
        return self.varied[proc.name].after(instr) & self.useful[proc.name].after(instr)

    def is_active_instr(self, proc, instr) -> bool:
        """Has a derivative instruction: it writes a zone that is active after it, or reads
        an active zone (a call passing active arguments)."""
        return bool(self.active_after(proc, instr)) or bool(self.active_before(proc, instr) & _touched(proc, instr))


def _touched(proc, instr) -> int:
    if instr.kind == "call":
        reads, writes = external_call_effects(instr, proc)
        return reads | writes
    e = instruction_effects(instr, proc)
    return e.reads | e.writes


def activity(program, heads: dict, diff_dep_solution, order: str = "good") -> Activity:
    """heads: procedure name -> (independent zones, dependent zones) as bitsets."""
    varied = solve(program, VariedAnalysis(program, diff_dep_solution),
                   {name: indep for name, (indep, _) in heads.items()}, order=order)
    useful = solve(program, UsefulAnalysis(program, diff_dep_solution),
                   {name: dep for name, (_, dep) in heads.items()}, order=order)
    return Activity(program, varied, useful)


class _Everywhere:
    """A solution that is the same set before and after every instruction."""

    def __init__(self, zones: int):
        self.at_entry = self.at_exit = zones

    def before(self, instr) -> int:
        return self.at_entry

    def after(self, instr) -> int:
        return self.at_entry


def naive_activity(program) -> Activity:
    """`-nooptim activity`: every variable of a differentiable type is varied and useful
    everywhere (paper 4.6: the naïve model of fig. 9 that activity analysis improves)."""
    everywhere = {name: _Everywhere(proc.zones.differentiable_mask) for name, proc in program.procedures.items()}
    return Activity(program, everywhere, everywhere)
