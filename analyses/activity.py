"""Activity analysis (paper 5.2, section 4.6): Varied forward, Useful backward, Active their
intersection.

    Varied⁺(I) = Varied⁻(I) ⊗ Diff-dep(I)          Varied⁻(I) = ∪_{J pred} Varied⁺(J)
    Useful⁻(I) = Diff-dep(I) ⊗ Useful⁺(I)          Useful⁺(I) = ∪_{J succ} Useful⁻(J)
    Active⁻(I) = Varied⁻(I) ∩ Useful⁻(I)            Active⁺(I) = Varied⁺(I) ∩ Useful⁺(I)

Both are top-down on the call graph: a head starts from its independents (Varied at entry) and
dependents (Useful at exit); a callee's context is the union over its call sites of the
Varied set before the call (Useful set after it) seen from the callee. At a call, Diff-dep(I)
is the callee's Diff-dep(P) summary translated to the call site.

A SAVE (C static) local is the procedure's state between calls, like a global: when its value
at exit is varied and its value at entry useful, one call hands its derivative to the next, so
it is varied at entry and useful at exit of every call (reconstructed: Tapenade keeps such a
derivative SAVE too). These persistent zones are found by iterating the two analyses from
none (each round adds zones: it stops).
"""
from __future__ import annotations

from ..engine.effects import instruction_effects
from ..engine.solver import BACKWARD, FORWARD, TOP_DOWN, solve
from .common import ZoneSetAnalysis, external_call_effects, saved_zones
from .dependency import DependencyAnalysis


class _ActivityHalf(ZoneSetAnalysis):
    call_order = TOP_DOWN

    def __init__(self, program, diff_dep_solution, persistent: dict | None = None):
        self.program = program
        self.persistent = persistent or {}  # procedure name -> its SAVE zones carried between calls
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
        return site.to_callee(before) | self.persistent.get(site.callee.name, 0)


class UsefulAnalysis(_ActivityHalf):
    name = "Useful"
    direction = BACKWARD

    def transfer(self, instr, value, proc):
        relation = self.relations.instruction_relation(instr, proc)
        return 0 if relation is None else relation.backward(value)

    def call_context(self, site, before, after):
        return site.to_callee(after) | self.persistent.get(site.callee.name, 0)


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
    e = external_call_effects(instr, proc) if instr.kind == "call" else instruction_effects(instr, proc)
    return e.reads | e.writes


def activity(program, heads: dict, diff_dep_solution, order: str = "good") -> Activity:
    """heads: procedure name -> (independent zones, dependent zones) as bitsets."""
    persistent: dict = {}
    while True:
        varied = solve(program, VariedAnalysis(program, diff_dep_solution, persistent),
                       {name: indep | persistent.get(name, 0) for name, (indep, _) in heads.items()}, order=order)
        useful = solve(program, UsefulAnalysis(program, diff_dep_solution, persistent),
                       {name: dep | persistent.get(name, 0) for name, (_, dep) in heads.items()}, order=order)
        found = _persistent_zones(program, varied, useful)
        if all(found[name] & ~persistent.get(name, 0) == 0 for name in found):
            return Activity(program, varied, useful)
        persistent = {name: found.get(name, 0) | persistent.get(name, 0) for name in found.keys() | persistent.keys()}


def _persistent_zones(program, varied, useful) -> dict:
    """procedure name -> its SAVE zones varied at exit and useful at entry."""
    out = {}
    for name, proc in program.procedures.items():
        if name in varied.results and name in useful.results:
            zones = saved_zones(proc) & varied[name].at_exit & useful[name].at_entry
            if zones:
                out[name] = zones
    return out


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
