"""Adjoints of Fortran ALLOCATE and DEALLOCATE (paper 4.2: a derivative variable is declared,
and so allocated, like its variable).

The forward sweep allocates the array and its adjoint together; its deallocations are deferred
to the backward sweep, which still reads the array's last values (the partials) and
accumulates into its adjoint: the backward sweep of ALLOCATE frees both. This holds for a
local array allocated once, at the top of the body (not in a loop or a branch, where the
values freed would have to be pushed): the others are refused at their line. C's malloc and
free are C data's."""
from __future__ import annotations

from ...engine.il import Node, walk
from ...engine.kanren_il import eq, lall, pattern, var
from .ruleset import ADJOINT

EMPTY = pattern("block")


@ADJOINT.rule("A-allocate", judgment="adjoint", ops=("allocate",), section="4.2",
              source="reconstructed: docs/rules.md#a-allocate",
              premises=("deferredAllocation(ALLOCATE(A(DIMS)))", "A →varName Ab?"),
              conclusion="ALLOCATE(A(DIMS))  →  [ALLOCATE(A(DIMS)); ALLOCATE(Ab(DIMS))? ; "
                         "DEALLOCATE(Ab)?; DEALLOCATE(A)]")
def a_allocate(stmt, out, ctx):
    """The paper gives no rule for dynamic memory. The adjoint is allocated with its array
    (4.2: declared like it) and zeroed with the other locals' before the backward sweep;
    both are freed at the end of the backward sweep, where the ALLOCATE is reversed."""
    target, forward, backward = var(), var(), var()
    guard = lall(eq(stmt, pattern("allocate", target, var(), None)), ctx.check(ctx.deferred_allocation, stmt))
    body = lall(ctx.compute(ctx.allocation_sweeps, stmt, (forward, backward)),
                eq(out, pattern("block", forward, backward)))
    return guard, body


@ADJOINT.rule("A-deallocate", judgment="adjoint", ops=("deallocate",), section="4.2",
              source="reconstructed: docs/rules.md#a-allocate",
              premises=("deferredAllocation(DEALLOCATE(A))",), conclusion="DEALLOCATE(A)  →  [{} ; {}]")
def a_deallocate(stmt, out, ctx):
    """Deferred to the backward sweep of the ALLOCATE (A-allocate)."""
    guard = lall(eq(stmt, pattern("deallocate", var())), ctx.check(ctx.deferred_allocation, stmt))
    return guard, eq(out, pattern("block", EMPTY, EMPTY))


class AllocationAdjoints:
    """Mixed into AdjointContext (needs procedure, facts, names, top_level, refuse)."""

    def deferred_allocation(self, stmt: Node) -> bool:
        """Fortran, a local (no formal, global nor SAVE) allocatable, allocated once at the
        top of the body, deallocated there too; refused otherwise (A-refuse says why)."""
        return self.lang == "fortran" and self._allocation_problem(stmt) is None

    def _allocation_problem(self, stmt: Node) -> str | None:
        target = stmt.kids[0]
        if target.op != "ident":
            return "allocating a part of a variable"
        name = target.kids[0]
        sym = self.procedure.scope.lookup(name)
        proc = self.procedure.node
        if sym is None or name in proc.kids[2] or "save" in sym.attrs or sym.common is not None \
                or self.procedure.scope.owner_of(name)[0] is not self.procedure.scope:
            return f"allocating {name}, which is no local of the procedure"
        if not self.top_level(stmt):
            return f"allocating or deallocating {name} inside a loop or a branch"
        body = proc.kids[7]
        allocations = [n for n in walk(body) if isinstance(n, Node) and n.op == "allocate" and n.kids[0] == target]
        if len(allocations) != 1:
            return f"allocating {name} more than once"
        if any(n.op == "intrinsic" and n.kids[0] in ("allocated", "associated") and target in n.kids[1]
               for n in walk(body)):   # the deferred DEALLOCATE would change its answer
            return f"asking whether {name} is allocated"
        return None

    def allocation_problem(self, stmt: Node) -> str:
        return self._allocation_problem(stmt) or "allocation"

    def allocation_sweeps(self, stmt: Node) -> tuple:
        target = stmt.kids[0]
        forward, backward = [stmt], [Node("deallocate", (target,))]
        if target.kids[0] in self.facts.diff_variables(self.procedure.name):
            target_b = Node("ident", (self.names.var(target.kids[0]),))
            forward.append(Node("allocate", (target_b,) + stmt.kids[1:], stmt.ann))
            backward.insert(0, Node("deallocate", (target_b,)))
        return Node("block", tuple(forward)), Node("block", tuple(backward))
