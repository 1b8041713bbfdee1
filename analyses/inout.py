"""In-out analysis (paper 5.2): for each procedure, which variables may be read (their input
value used) and may or must be overwritten; and for each instruction the sets Cst(I) and
Dead(I) of variables certainly constant / certainly unused from there till the exit.

Forward, bottom-up, on a triple (in, may-out, must-out) from (∅, ∅, ∅) at the entry:

    in⁺(I)  = in⁻(I) ∪ (reads(I) \\ must-out⁻(I))
    may⁺(I) = may⁻(I) ∪ writes(I)        must⁺(I) = must⁻(I) ∪ kill(I)
    at merges: in and may are unions, must is an intersection.

Backward, bottom-up, on a pair (written-later, read-later) from (∅, ∅) at the exit:
Cst(I) = all \\ written-later⁺(I) and Dead(I) = all \\ read-later⁺(I).
The four booleans of the paper per variable v of P follow from the summary:
read and overwritten (in ∩ out), read only, overwritten only, untouched.
"""
from __future__ import annotations

from ..engine.effects import instruction_effects
from ..engine.solver import BACKWARD, BOTTOM_UP, FORWARD, Analysis, solve
from .common import call_arguments, external_call_effects, launch_configuration, visible_zones

ALL = -1  # the full set, as a bitset: the bottom of an intersection


class InOutAnalysis(Analysis):
    name = "in-out"
    direction = FORWARD
    call_order = BOTTOM_UP

    def __init__(self, program):
        self.program = program

    def bottom(self, proc):
        return None  # no path

    def meet(self, a, b):
        if a is None:
            return b
        if b is None:
            return a
        return (a[0] | b[0], a[1] | b[1], a[2] & b[2])

    def boundary(self, proc, context):
        return (0, 0, 0)

    def effects(self, instr, proc):
        """(reads, may-writes, must-writes) of one instruction; None if it cannot return."""
        if instr.kind == "call":
            site = self.program.call_sites.get(id(instr))
            if site is None:
                e = external_call_effects(instr, proc)
                return e.reads, e.writes, e.kills
            summary = self.summary_of(site.callee)
            if summary is None:
                return None
            callee_in, callee_may, callee_must = summary
            reads = site.to_caller(callee_in) | _argument_reads(instr, proc)
            return reads, site.to_caller(callee_may, written=True), \
                site.to_caller(callee_must, must=True)
        e = instruction_effects(instr, proc)
        return e.reads, e.writes, e.kills

    def transfer(self, instr, value, proc):
        if value is None:
            return None
        effects = self.effects(instr, proc)
        if effects is None:
            return None
        reads, may, must = effects
        return (value[0] | (reads & ~value[2]), value[1] | may, value[2] | must)

    def summarize(self, proc, result):
        at_exit = result.at_exit
        if at_exit is None:
            return None
        visible = visible_zones(proc)
        return tuple(s & visible for s in at_exit)


def _argument_reads(instr, proc) -> int:
    """Zones read to evaluate the actual arguments themselves (indices, expressions) and a
    kernel launch's configuration."""
    zones, results = proc.zones, proc.call_results
    reads = zones.reads(launch_configuration(instr.node), results)
    for arg in call_arguments(instr):
        value = arg.kids[1] if arg.op == "namedArg" else arg
        if value.op not in ("ident", "arrayAccess", "fieldAccess", "deref", "address"):
            reads |= zones.reads(value, results)
        elif value.op != "ident":
            target = value.kids[0] if value.op == "address" else value
            reads |= zones.address_reads(target, results)
    return reads


class TailAnalysis(Analysis):
    """(written-later, read-later) from each point to the exit, for Cst and Dead."""
    name = "in-out tail"
    direction = BACKWARD
    call_order = BOTTOM_UP

    def __init__(self, inout: InOutAnalysis):
        self.inout = inout

    def bottom(self, proc):
        return (0, 0)

    def meet(self, a, b):
        return (a[0] | b[0], a[1] | b[1])

    def boundary(self, proc, context):
        return (0, 0)

    def transfer(self, instr, value, proc):
        effects = self.inout.effects(instr, proc)
        if effects is None:
            return value
        reads, may, _ = effects
        return (value[0] | may, value[1] | reads)


class InOut:
    """In-out summaries of every procedure and Cst/Dead around every instruction."""

    def __init__(self, program, solution, tail):
        self.program, self.solution, self.tail = program, solution, tail

    def summary(self, proc):
        """(in, may-out, must-out) bitsets over the zones callers see (None: never returns)."""
        return self.solution.summaries.get(proc.name)

    def must_written(self, proc) -> int:
        s = self.summary(proc)
        return 0 if s is None else s[2]

    def may_written(self, proc) -> int:
        s = self.summary(proc)
        return 0 if s is None else s[1]

    def read(self, proc) -> int:
        s = self.summary(proc)
        return 0 if s is None else s[0]

    def cst(self, proc, instr) -> int:
        """Cst⁺(I): visible or local zones certainly not written from after I to the exit."""
        return _all_zones(proc) & ~self.tail[proc.name].after(instr)[0]

    def dead(self, proc, instr) -> int:
        """Dead⁺(I): zones certainly not read from after I to the exit."""
        return _all_zones(proc) & ~self.tail[proc.name].after(instr)[1]


def _all_zones(proc) -> int:
    return (1 << len(proc.zones.zones)) - 1


def in_out(program, order: str = "good") -> InOut:
    analysis = InOutAnalysis(program)
    solution = solve(program, analysis, order=order)
    tail = solve(program, TailAnalysis(analysis), order=order)  # reads `analysis`'s summaries
    return InOut(program, solution, tail)
