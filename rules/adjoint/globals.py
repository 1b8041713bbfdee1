"""The adjoints of global variables (TAPENADE.md; the tangent's rules/tangent/globals.py puts
them where the tangent puts its derivatives: `xb` in the module m_diff, `/c_b/` next to `/c/`).

A global's adjoint is an implicit argument of P_b: on entry it holds the adjoint of the
global's value at the end of P, on exit the adjoint of its value at the start, so that a
caller's backward sweep goes on with it (joint calls accumulate into it, never reset it).
A head is called by no differentiated code: the globals it sees are no dependents, the
adjoints of their final values are 0, so the head's P_b zeroes them before its backward
sweep, as it zeroes its locals' (those only its callees mention too, when it can name them:
Facts.active_unnamed_globals, such as the SAVE locals rules/adjoint/saved_locals.py moves). Around a call, globals are variables like the others: the
snapshot holds those the callee overwrites and the caller needs (a COMMON member by the
caller's own name for it), P_b leaves their adjoints as their values at the call's start
need them, and a passive callee's writes reset them (4.6). C's file-scope globals are C
data's (c_data.py)."""
from __future__ import annotations

from ...engine.il import EMPTY_ANN, Node
from ..tangent.globals import global_owner


class GlobalAdjoints:
    """Mixed into AdjointContext (needs procedure, facts, refuse, zero_assignments, names)."""

    def active_globals_of(self, proc: Node, diff, declared, params, result, commons) -> list:
        """The active globals the procedure sees: COMMON members, module variables (C's
        file-scope variables: CDataContext.global_initialisations), and a host's variables, whose
        adjoints are the host's (the internal P_b is in the CONTAINS of the host's P_b)."""
        found = sorted((diff - declared - set(params) - {result}) | (diff & commons))
        if self.c:
            others = sorted(set(found) - set(self.c_globals(diff)))
            if others:
                self.refuse(proc, "active global variables (file scope: " + ", ".join(others) + ")")
            return []
        scope = self.procedure.scope
        for name in found:   # a host's variable: its adjoint is the host's, reached by host association
            if name not in commons and global_owner(scope, name)[0] is None:
                self._host_derivative(proc, name)
        return found

    def global_zeros(self, names: list) -> tuple:
        """(zeros, statuses): the head's zeroing of the adjoints of the globals it sees, each
        `out` in the header comment, as C's (nothing in a callee)."""
        if self.procedure.name not in self.facts.results.heads:
            return (), []
        out = []
        for name in names:
            ref = Node("ident", (name,))
            out.extend(self.zero_assignments(Node("ident", (self.names.var(name),)), ref, EMPTY_ANN))
        return tuple(out), [f"{name}:out" for name in names]
