"""Adjoint rules for the Fortran statements that compute no derivative but stay in the
forward sweep: input/output and STOP (paper 5.4's RVARS and 4.6's implicit zeros;
Tapenade keeps them where the original program runs them).

- A READ gives its items passive values: what it overwrites that a derivative instruction
  before it reads (RVARS = out(I) ∩ TBR⁻(I)) is pushed before it and popped after, and the
  adjoints of its items are zero before it (the values they had do not reach what follows).
- WRITE, PRINT and the other I/O statements only read: they stay in the forward sweep.
- STOP ends the run in the forward sweep, as in the original: no backward sweep follows it.
"""
from __future__ import annotations

from ...engine.il import EMPTY_ANN, Node
from ...engine.kanren_il import eq, lall, pattern, var
from .ruleset import ADJOINT

EMPTY = pattern("block")


@ADJOINT.rule("A-read", judgment="adjoint", ops=("io",), section="5.4",
              source="reconstructed: docs/rules.md#a-read",
              premises=("READ →restore [PUSH(RVARS) ; POP(RVARS)]", "READ →resets Vb = 0  (each item Vi with an adjoint)"),
              conclusion="READ V1..Vn  →  [PUSH(RVARS); READ V1..Vn ; POP(RVARS); V1b = 0; ...; Vnb = 0]")
def a_read(stmt, out, ctx):
    """The tangent's T-read transposed: the READ runs in the forward sweep; its items'
    adjoints are reset where the backward sweep passes it (the values overwritten reach
    nothing after), the values it overwrites that an earlier derivative reads are saved."""
    push, pop, resets = var(), var(), var()
    guard = eq(stmt, pattern("io", "read", var(), var()))
    body = lall(ctx.compute(ctx.read_record, stmt, pattern("block", push, pop)),
                ctx.compute(ctx.read_resets, stmt, resets),
                eq(out, pattern("block", pattern("block", push, stmt), pattern("block", pop, resets))))
    return guard, body


@ADJOINT.rule("A-io", judgment="adjoint", ops=("io",), section="5.4",
              source="reconstructed: docs/rules.md#a-read",
              premises=("¬isRead(IO)",), conclusion="IO  →  [IO ; {}]")
def a_io(stmt, out, ctx):
    """WRITE, PRINT, OPEN, CLOSE...: the forward sweep runs them as the original does."""
    guard = lall(eq(stmt, pattern("io", var(), var(), var())), ctx.check(ctx.not_read, stmt))
    return guard, eq(out, pattern("block", pattern("block", stmt), EMPTY))


@ADJOINT.rule("A-stop", judgment="adjoint", ops=("stop",), section="5.4",
              source="reconstructed: docs/rules.md#a-read", premises=(), conclusion="STOP  →  [STOP ; {}]")
def a_stop(stmt, out, ctx):
    return eq(stmt, pattern("stop", rest=var())), eq(out, pattern("block", pattern("block", stmt), EMPTY))


class StatementSupport:
    """Mixed into AdjointContext: the READ's record and resets."""

    def not_read(self, stmt) -> bool:
        return stmt.kids[0] != "read"

    def read_record(self, stmt):
        """[push ; pop] of the READ's items that are in TBR⁻ of the READ (all of them under
        -nooptim tbr), each whole; an item of an implied DO is refused."""
        keep = self.facts.tbr_before(stmt) if "tbr" not in self.facts.results.nooptim else None
        pushes, pops = [], []
        for ref, implied in self._read_items(stmt):
            if keep is not None and self._show(ref) not in keep:
                continue
            if implied:
                self.refuse(stmt, f"saving {self._show(ref)} read in an implied DO")
            pushes.append(self.push(ref))
            pops.append(self.pop(ref))
        return Node("block", (Node("block", tuple(pushes)), Node("block", tuple(reversed(pops)))))

    def read_resets(self, stmt):
        """Vb = 0 for each item with an adjoint; the tangent's warning for each varied value
        the READ cuts."""
        self.warn_read_cuts(stmt)
        diff = self.facts.diff_variables(self.procedure.name)
        zeros = []
        for ref, implied in self._read_items(stmt):
            if self._show(ref) not in diff:
                continue
            if implied:
                self.refuse(stmt, f"resetting the adjoint of {self._show(ref)} read in an implied DO")
            ref_b, _ = self.ruleset.apply("ref", ref, self)
            zeros.extend(self.zero_assignments(ref_b, ref, EMPTY_ANN))
        return Node("block", tuple(zeros))
