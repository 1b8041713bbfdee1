"""The adjoint context's zeroed adjoint arrays for passive arrays (fig. 8's dummb, for an
array): a passive array actual passed where the callee takes the adjoint of an array formal
gets a temporary adjoint of the actual's whole array, zeroed before the call and passed
the way the actual is (`work` -> `dummyb`, `c(2)` -> `dummyb(2)`, `&w[k]` -> `&dummyb[k]`):
the callee may reach every element from there on (sequence association, C pointers). The
tangent does the same with its `dummyzerod` arrays. A mixin of CallSupport."""
from __future__ import annotations

from ...engine.il import Node

INTEGER = Node("type", ("integer", 4, None))


class DummyArrays:
    """Mixed into CallSupport."""

    def dummy_array_adjoint(self, actual: Node, call: Node, inits: list) -> Node:
        """The zeroed temporary adjoint passed for the passive array actual (its zeroing goes
        to inits); refused when the actual's array has no size known here."""
        base, rebuild = _array_base(actual, self.c)
        sym = self.symbol_of(base) if base is not None else None
        size = self.array_size(sym) if sym is not None and sym.dims else None
        typ = sym.type if sym is not None else None
        if size is None or typ is None or typ.op != "type" or typ.kids[0] != "real" or (self.c and len(sym.dims) != 1):
            self.refuse(call, "a passive array passed where the callee expects an adjoint")
        name = self.names.temp("dummyb", derivative=True)
        self.extra_declarations.append((name, typ, tuple(sym.dims)))
        temp = Node("ident", (name,))
        zero = Node("realCst", ("0.0", typ.kids[1] or 4))
        if not self.c:
            inits.append(Node("assign", (temp, zero)))
        else:
            index = self.fresh("ii", INTEGER)
            one = Node("intCst", (1, None))
            inits.append(Node("for", (Node("assign", (index, Node("intCst", (0, None)))), Node("lt", (index, size)),
                                      Node("assign", (index, Node("add", (index, one)))),
                                      Node("block", (Node("assign", (Node("arrayAccess", (temp, (index,))), zero)),)))))
        return rebuild(temp)


def _array_base(actual: Node, c: bool):
    """(the array ident an actual passes, a function putting another array in its place):
    `a`, Fortran `a(i, j)`, C `&a[k]` and `a + k`; (None, None) for another expression."""
    if actual.op == "ident":
        return actual, lambda t: t
    if not c and actual.op == "arrayAccess" and actual.kids[0].op == "ident":
        return actual.kids[0], lambda t: actual.with_kids(t, actual.kids[1])
    if c and actual.op == "address" and actual.kids[0].op == "arrayAccess" and actual.kids[0].kids[0].op == "ident":
        inner = actual.kids[0]
        return inner.kids[0], lambda t: actual.with_kids(inner.with_kids(t, inner.kids[1]))
    if c and actual.op == "add" and actual.kids[0].op == "ident":
        return actual.kids[0], lambda t: actual.with_kids(t, actual.kids[1])
    return None, None
