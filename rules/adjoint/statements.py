"""Adjoint rules for the Fortran statements that compute no derivative but stay in the
forward sweep: input/output, STOP and Fortran pointer assignment (paper 5.4's RVARS and 4.6's implicit zeros;
Tapenade keeps them where the original program runs them).

- A READ gives its items passive values: what it overwrites that a derivative instruction
  before it reads (RVARS = out(I) ∩ TBR⁻(I)) is pushed before it and popped after, and the
  adjoints of its items are zero before it (the values they had do not reach what follows).
- WRITE, PRINT and the other I/O statements only read: they stay in the forward sweep.
- A pointer assignment moves the adjoint pointer with the pointer in the forward sweep (4.2).
- STOP ends the run in the forward sweep, as in the original: no backward sweep follows it.
"""
from __future__ import annotations

from ...engine.il import EMPTY_ANN, Node, walk
from ...engine.kanren_il import eq, lall, pattern, var
from .ruleset import ADJOINT

EMPTY = pattern("block")
NULL = Node("intrinsic", ("null", ()))
_JUMPS = ("goto", "computedGoto", "arithmeticIf")


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

    def points_once(self, stmt) -> bool:
        """pointsOnce(P => T): outside loops, and P is associated with a target once in the
        procedure, after its associations with null() (never read through)."""
        name = self._show(stmt.kids[0])
        body = self.procedure.node.kids[7]
        looped = {id(n) for loop in walk(body) if loop.op in ("do", "while", "doWhile", "for", "forall")
                  for n in walk(loop.kids)}
        if id(stmt) in looped:
            return False
        targets = [n.kids[1] for n in walk(body) if n.op == "pointerAssign" and self._show(n.kids[0]) == name]
        while targets and targets[0] == NULL:  # null associations before the one with a target
            targets.pop(0)
        return len(targets) <= 1

    def points_again(self, stmt) -> bool:
        return not self.points_once(stmt)

    def _associations(self, stmt) -> list | None:
        """The associations of stmt's pointer, in source order, when A-pointer-again holds
        (see it); else None."""
        from ...analyses.tbr_sections import unassigned
        name = self._show(stmt.kids[0])
        body = self.procedure.node.kids[7]
        sym = self.procedure.scope.lookup(name)
        if sym is None or sym.formal is not None or sym.common or "save" in sym.attrs or sym.init is not None \
                or self.procedure.node.kids[0] == name or any(n.op in _JUMPS for n in walk(body)):
            return None
        found = [n for n in walk(body) if n.op == "pointerAssign" and self._show(n.kids[0]) == name]
        if any(not self.top_level(n) for n in found):
            return None
        places = [id(k) for k in body.kids]
        for earlier, later in zip(found, found[1:]):
            target = earlier.kids[1]
            subscripts = [i for n in walk(target) if n.op == "arrayAccess" for i in walk(n.kids[1])]
            if not unassigned({n.kids[0] for n in subscripts if n.op == "ident"}, body):
                return None
            between = body.kids[places.index(id(earlier)):places.index(id(later))]
            root = self._show(target)
            moved = ("allocate", "deallocate", "pointerAssign")   # what would give the target other memory
            if target != NULL and any(n.op in moved and self._show(n.kids[0]) == root for n in walk(Node("block", between))):
                return None
        return found

    def in_sequence(self, stmt) -> bool:
        return self._associations(stmt) is not None

    def out_of_sequence(self, stmt) -> bool:
        return not self.in_sequence(stmt)

    def previous_association(self, stmt, pointer_b) -> Node:
        """P => PREV; Pb => PREVb for the association before stmt ({} for the first)."""
        found = self._associations(stmt)
        k = [id(n) for n in found].index(id(stmt))
        if k == 0:
            return Node("block", ())
        target = found[k - 1].kids[1]
        return Node("block", (Node("pointerAssign", (stmt.kids[0], target)),
                              Node("pointerAssign", (pointer_b, self.pointer_target_adjoint(target, found[k - 1])))))

    def associated_only(self, name: str) -> bool:
        """A Fortran pointer the procedure never allocates: its adjoint is its targets'
        adjoint (zeroing it would zero theirs)."""
        sym = self.procedure.scope.lookup(name)
        return not self.c and sym is not None and "pointer" in sym.attrs and not any(
            n.op == "allocate" and self._show(n.kids[0]) == name for n in walk(self.procedure.node.kids[7]))

    def pointer_target_adjoint(self, target, stmt):
        """The adjoint of the target (null() for null()); an active pointer to a target with
        no adjoint is refused."""
        if target == NULL:
            return target
        if not self.facts.has_derivative(target, stmt):
            self.refuse(stmt, "an active pointer to a passive target")
        return self.ruleset.apply("ref", target, self)[0]

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


# --- Fortran pointer assignment (4.2) ---------------------------------------------------------
@ADJOINT.rule("A-pointer", judgment="adjoint", ops=("pointerAssign",), section="4.2",
              source="reconstructed: docs/rules.md#a-pointer-assign",
              premises=("¬isDiff(P)",), conclusion="P => TARGET  →  [P => TARGET ; {}]")
def a_pointer(stmt, out, ctx):
    """A pointer with no adjoint: the forward sweep moves it as the original does."""
    pointer = var()
    guard = lall(eq(stmt, pattern("pointerAssign", pointer, var())), ctx.no_fact("has_derivative", pointer, stmt))
    return guard, eq(out, pattern("block", pattern("block", stmt), EMPTY))


@ADJOINT.rule("A-pointer-diff", judgment="adjoint", ops=("pointerAssign",), section="4.2",
              source="reconstructed: docs/rules.md#a-pointer-assign",
              premises=("isDiff(P)", "pointsOnce(P => TARGET)", "TARGET →pointerValue TARGETb", "P →ref Pb"),
              conclusion="P => TARGET  →  [Pb => TARGETb; P => TARGET ; {}]")
def a_pointer_diff(stmt, out, ctx):
    """The tangent's T-pointer-diff in the forward sweep: Pb points to the adjoint of the
    target (Pb => null() for a null target), so that P(i) and Pb(i) are a value and its
    adjoint in both sweeps. The backward sweep does not move Pb back: pointsOnce(P) says
    no other association of P can be the one an adjoint instruction before this one reads
    (P is associated with a target once per run, outside loops, after its associations
    with null(), which nothing reads through)."""
    lhs, target, lhs_b, target_b = (var() for _ in range(4))
    guard = lall(eq(stmt, pattern("pointerAssign", lhs, target)), ctx.fact("has_derivative", lhs, stmt),
                 ctx.check(ctx.points_once, stmt))
    body = lall(ctx.compute(ctx.pointer_target_adjoint, target, stmt, target_b), ctx.derive("ref", lhs, lhs_b),
                eq(out, pattern("block", pattern("block", pattern("pointerAssign", lhs_b, target_b), stmt), EMPTY)))
    return guard, body


@ADJOINT.rule("A-pointer-again", judgment="adjoint", ops=("pointerAssign",), section="4.2",
              source="reconstructed: docs/rules.md#a-pointer-assign",
              premises=("isDiff(P)", "¬pointsOnce(P => TARGET)", "inSequence(P => TARGET)",
                        "TARGET →pointerValue TARGETb", "P →ref Pb",
                        "P => TARGET →previousTarget [PREV; PREVb]  (nothing for the first)"),
              conclusion="P => TARGET  →  [Pb => TARGETb; P => TARGET ; P => PREV; Pb => PREVb]")
def a_pointer_again(stmt, out, ctx):
    """A local pointer associated several times, each time by a statement at the top of the
    body of a procedure without jumps: its associations run once each, in the order of the
    source. The backward sweep passes them in reverse order, and at each one P and Pb go
    back to the association before (the previous target, null() included), which the
    adjoint instructions between the two read through Pb. The previous target is evaluated
    again there: its subscripts read no variable the procedure changes, and no statement
    between the two (de)allocates or associates its variable."""
    lhs, target, lhs_b, target_b, back = (var() for _ in range(5))
    guard = lall(eq(stmt, pattern("pointerAssign", lhs, target)), ctx.fact("has_derivative", lhs, stmt),
                 ctx.check(ctx.points_again, stmt), ctx.check(ctx.in_sequence, stmt))
    body = lall(ctx.compute(ctx.pointer_target_adjoint, target, stmt, target_b), ctx.derive("ref", lhs, lhs_b),
                ctx.compute(ctx.previous_association, stmt, lhs_b, back),
                eq(out, pattern("block", pattern("block", pattern("pointerAssign", lhs_b, target_b), stmt), back)))
    return guard, body


@ADJOINT.rule("A-pointer-moved", judgment="adjoint", ops=("pointerAssign",), section="4.2",
              source="reconstructed: docs/rules.md#a-pointer-assign",
              premises=("isDiff(P)", "¬pointsOnce(P => TARGET)", "¬inSequence(P => TARGET)"),
              conclusion="P => TARGET  →  file:line: refused")
def a_pointer_moved(stmt, out, ctx):
    """An active pointer associated again in a loop, a branch, a procedure with jumps, or a
    pointer that is no local (its association at the entry is the caller's): the backward
    sweep would need its earlier associations back, which this slice does not save."""
    lhs = var()
    guard = lall(eq(stmt, pattern("pointerAssign", lhs, var())), ctx.fact("has_derivative", lhs, stmt),
                 ctx.check(ctx.points_again, stmt), ctx.check(ctx.out_of_sequence, stmt))
    return guard, ctx.compute(lambda s: ctx.refuse(s, "an active pointer associated more than once"), stmt, out)
