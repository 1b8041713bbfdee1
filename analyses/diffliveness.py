"""Diff-liveness analysis (paper 5.2, section 4.9): the variables whose value is needed, in the
end, to compute a derivative. Backward, from ∅ at the tail of the code:

    Diff-live⁻(I∞) = ∅
    Diff-live⁻(I)  = use(I') ∪ (Dep(I) ⊗ Diff-live⁺(I))
    Diff-live⁺(I)  = ∪_{J succ of I} Diff-live⁻(J)
    isLiveForDiff(I) ⟺ out(I) ∩ Diff-live⁺(I) ≠ ∅

extended to control: a statement that has a derivative or is live for diff makes the controls
it depends on (tests and loop headers, by post-dominance) diff-live, and a diff-live control
makes the variables it reads diff-live. To keep this inside the same equations, each control
instruction T of a procedure gets a pseudo-zone ctl(T), numbered after the real zones: an
instruction controlled by T that has a derivative or is live adds ctl(T) to the set before it;
ctl(T) flows backwards like a variable to T, where it is consumed: T is diff-live iff
ctl(T) ∈ Diff-live⁺(T), and then T's reads enter Diff-live⁻(T).

On the call graph, the analysis runs twice. Bottom-up, each procedure is solved from ∅ at its
exit: the set at its entry, seen from callers, is the procedure's summary DiffUse(P), the
use(I') of an active call. Since the equations are distributive, a call transfers
Diff-live⁻ = DiffUse(P) ∪ Dep(P) ⊗ Diff-live⁺, exactly. Top-down, each procedure is solved
again from the union of the Diff-live⁺ sets of its call sites, for the sets inside it.
"""
from __future__ import annotations

from ..engine.effects import instruction_effects
from ..engine.flowgraph import control_dependence, switch_bodies
from ..engine.solver import BACKWARD, BOTTOM_UP, TOP_DOWN, solve
from .common import ZoneSetAnalysis, external_call_effects, visible_zones
from .dependency import DependencyAnalysis


class DiffLivenessAnalysis(ZoneSetAnalysis):
    name = "Diff-live"
    direction = BACKWARD

    def __init__(self, program, dep_solution, uses, controls, call_order: str, diffuse: dict | None = None,
                 resets=None, parts: dict | None = None, valued: frozenset = frozenset()):
        self.program, self.uses, self.controls, self.resets = program, uses, controls, resets
        self.valued = valued
        self.call_order = call_order
        self.relations = DependencyAnalysis(program, differentiable=False)
        self.relations.summaries = dep_solution.summaries
        self.diffuse = diffuse  # summaries of the bottom-up run, for the top-down run
        # id(instr) -> (instr, the terms of its transfer function that do not change while
        # solving): the solver visits an instruction several times, the two runs share them
        self.parts = {} if parts is None else parts

    def call_uses(self, instr, proc) -> int:
        """use(I') of a call: DerivativeUses.call_uses, the one definition (with the callee
        summaries of this run bottom-up, of the bottom-up run top-down)."""
        summaries = self.diffuse if self.diffuse is not None else self.summaries
        return self.uses.call_uses(proc, instr, summaries)

    def transfer(self, instr, value, proc):
        parts = self.parts.get(id(instr))
        if parts is None or parts[0] is not instr:
            parts = self.parts[id(instr)] = (instr, *self._constant_parts(instr, proc))
        _, relation, own, reads, controlling, out, derivative_uses, has_derivative = parts
        before = 0 if relation is None else relation.backward(value)
        if own is not None:  # a test or loop header
            if value & own:
                before = (before & ~own) | reads
            if value & own or out & value:
                before |= controlling
            return before
        if derivative_uses is None:  # a call: the callee summaries change while solving bottom-up
            derivative_uses = self.call_uses(instr, proc)
        if has_derivative or out & value:
            before |= controlling
        return before | derivative_uses

    def _constant_parts(self, instr, proc) -> tuple:
        """(Dep(I), ctl(I) or None when I is no control, what I reads (controls only), the
        ctl bits of the controls I depends on, out(I), use(I') (None for calls), I has a
        derivative or resets one)."""
        relation = self.relations.instruction_relation(instr, proc)
        controls = self.controls
        controlling, out = controls.of(proc, instr), controls.out(proc, instr)
        if instr.kind in ("test", "loop"):
            return (relation, controls.bit(proc, instr), instruction_effects(instr, proc).reads, controlling,
                    out, 0, False)
        if instr.kind == "call":
            derivative_uses = None
            has_derivative = self.uses.is_active_call(proc, instr)
        else:
            derivative_uses = self.uses.uses(proc, instr)
            has_derivative = self.uses.has_derivative(proc, instr)
            if instr.node.op == "io" and instr.node.kids[0] != "read":
                # A-io keeps WRITE, OPEN... in the forward sweep wherever their control is kept:
                # what they read must be computed there too (the unit number of an OPEN)
                derivative_uses |= instruction_effects(instr, proc).reads
        if not has_derivative and self.resets is not None:
            has_derivative = self.resets(proc, instr)
        return relation, None, 0, controlling, out, derivative_uses, has_derivative

    def boundary(self, proc, context):
        """The value at P's exit; a function's result besides for a function called split:
        P_fwd returns the value (Tapenade's FOO_FWD does), whether or not a caller reads it."""
        return (context or 0) | (proc.zones.result_zones if proc.name in self.valued else 0)

    def summarize(self, proc, result):
        return result.at_entry & visible_zones(proc)

    def call_context(self, site, before, after):
        return site.to_callee(after & self.controls.real_zones(site.caller))


class Controls:
    """The pseudo-zones ctl(T) of control instructions and who depends on them."""

    def __init__(self, program, inout):
        self.program, self.inout = program, inout
        self._bit: dict[int, int] = {}
        self._of: dict[int, int] = {}
        for proc in program.procedures.values():
            base = len(proc.zones.zones)
            regions = control_dependence(proc.flow)
            # paper 5.2: a statement live for diff makes its surrounding control diff-live,
            # also a switch whose body runs whatever the selector is (replayed, selector read)
            for control, inside in switch_bodies(proc.flow).items():
                regions.setdefault(control, []).extend(inside)   # (an instruction twice: the same bit)
            for k, (control_id, controlled) in enumerate(regions.items()):
                bit = 1 << (base + k)
                self._bit[control_id] = bit
                for instr in controlled:
                    self._of[id(instr)] = self._of.get(id(instr), 0) | bit

    def bit(self, proc, instr) -> int:
        """ctl(T) of a control instruction (0 for a control with a single successor, a switch apart)."""
        return self._bit.get(id(instr), 0)

    def of(self, proc, instr) -> int:
        """The ctl bits of the controls an instruction depends on."""
        return self._of.get(id(instr), 0)

    @staticmethod
    def real_zones(proc) -> int:
        return (1 << len(proc.zones.zones)) - 1

    def out(self, proc, instr) -> int:
        """out(I): the zones an instruction may write (a call: what the callee may write,
        seen from the call site)."""
        if instr.kind == "call":
            site = self.program.call_sites.get(id(instr))
            if site is None:
                return external_call_effects(instr, proc).writes
            return site.to_caller(self.inout.may_written(site.callee), written=True)
        return instruction_effects(instr, proc).writes


class DiffLiveness:
    """Diff-live sets around every instruction (real zones only) and isLiveForDiff. `solution`
    is the top-down run's; `inside` overrides it for the procedures whose P_b is analysed
    from ∅ at the exit (CKPdataFlow, see diff_liveness)."""

    def __init__(self, program, solution, summaries, controls, uses, inside=None):
        self.program, self.solution, self.summaries = program, solution, summaries
        self.controls, self.uses = controls, uses
        self.inside = inside or {}

    def _sets(self, proc):
        inside = self.inside.get(proc.name)
        return inside if inside is not None else self.solution[proc.name]

    def before(self, proc, instr) -> int:
        return self._sets(proc).before(instr) & self.controls.real_zones(proc)

    def after(self, proc, instr) -> int:
        return self._sets(proc).after(instr) & self.controls.real_zones(proc)

    def out(self, proc, instr) -> int:
        return self.controls.out(proc, instr)

    def is_live_for_diff(self, proc, instr) -> bool:
        value = self._sets(proc).after(instr)
        if instr.kind in ("test", "loop") and value & self.controls.bit(proc, instr):
            return True
        return bool(self.controls.out(proc, instr) & value)


class EverythingLive(DiffLiveness):
    """`-nooptim diffliveness`: every instruction is live for diff (no slicing)."""

    def is_live_for_diff(self, proc, instr) -> bool:
        return True


def diff_liveness(program, dep_solution, uses, inout, order: str = "good", everything_live: bool = False,
                  checkpointed: frozenset = frozenset(), resets=None, valued: frozenset = frozenset()) -> DiffLiveness:
    """checkpointed: the procedures whose only differentiated form is P_b, run by checkpointed
    calls (CKPdataFlow of 5.4): P_b's forward sweep is followed at once by its backward sweep,
    so nothing after P's exit reads what P computes; their sets are the bottom-up run's,
    from ∅ at the exit, rather than their call sites'.
    resets(proc, instr): the instruction resets a derivative to zero (4.6), with no use(I'):
    in the adjoint that reset runs in the backward sweep as often as the instruction ran, so
    the controls around it must be replayed, and what their tests read is diff-live.
    valued: the functions called split, whose result is diff-live at their exit (P_fwd
    returns it): bottom-up too, so that their callers compute what the value reads."""
    controls = Controls(program, inout)
    parts = {}
    bottom_up = solve(program, DiffLivenessAnalysis(program, dep_solution, uses, controls, BOTTOM_UP,
                                                    resets=resets, parts=parts, valued=valued), order=order)
    top_down = solve(program, DiffLivenessAnalysis(program, dep_solution, uses, controls, TOP_DOWN,
                                                   diffuse=bottom_up.summaries, resets=resets, parts=parts,
                                                   valued=valued),
                     order=order)
    kind = EverythingLive if everything_live else DiffLiveness
    inside = {name: bottom_up[name] for name in checkpointed}
    return kind(program, top_down, bottom_up.summaries, controls, uses, inside)
