"""Loops whose trips are independent except for sum reductions (issue 16; reconstructed): the
adjoint of such a loop can run each trip's forward body just before its backward body, in the
backward loop, where the values of the trip are still there: nothing is pushed for them
(rules/adjoint/trips.py, A-trips-fused).

A loop L (a DO, or a C for loop) has independent trips when its body is a sequence of
assignments with no function call, each of which is

- private: `V = E`, V a scalar real or integer local variable of the procedure (no formal,
  no global, no SAVE/static, no pointer, no EQUIVALENCE) that one statement of the body
  assigns, that no earlier statement of the body nor E reads, and that nothing in the
  procedure outside L's body refers to (L's header included); or
- a reduction: `R = R ± E1 ± .. ± En` or `R = E + R`, with R a scalar reference whose
  variable no other statement of the body refers to except reductions into R, E free of
  R's variable, R's indices free of the private variables and of L's index, R's variable
  not L's index nor read by L's header; and the
  statement is not live for diff (nothing after L reads R's value in the adjoint).

and every other variable the body reads is one that nothing in the procedure changes
(tbr_sections.unassigned), as the backward loop reads them again, and that no other name
reaches (may_share_memory); the procedure is not called
split (Facts: its caller could change them between its two sweeps).

Then no variable written by one trip is read by another: a private V is written by its
trip before any read, and is dead after L; a reduction's accumulator is read by no other
statement, and its adjoint (`Eib ±= Rb`) reads only Rb, which no trip changes. Every value a
trip's derivative instructions read is either written by the same trip (once: nothing
overwrites it later in the trip) or is not written by L at all. So running the trip's
forward body again just before its backward body, in the backward loop, restores exactly
the values the pops would have restored: the private statements need no push (Facts.
is_restored), and the forward sweep needs no trip at all (private values are dead after L,
the reductions are not live for diff). The same assumption as the rest of the adjoint
holds for C: distinct pointer formals do not overlap.
"""
from __future__ import annotations

from ..engine.il import Node, walk
from .tbr_sections import unassigned

_PLAIN = frozenset(("assign", "nop", "comment"))
_REDUCTIONS = ("add", "sub")


def independent_trips(loop: Node, proc, is_live) -> bool:
    """The loop's trips are independent except for dead sum reductions (see above)."""
    parts = _parts(loop)
    if parts is None:
        return False
    index, header, body = parts
    stmts = [s for s in body.kids if isinstance(s, Node)]
    if not stmts or any(s.op not in _PLAIN or any(n.op == "call" for n in walk(s)) for s in stmts):
        return False
    assigns = [s for s in stmts if s.op == "assign"]
    privates = {s.kids[0].kids[0] for s in assigns if _reduced(s) is None and s.kids[0].op == "ident"}
    outside = _names_outside(proc.node, body)
    seen = set()
    for stmt in assigns:
        reduced = _reduced(stmt)
        if reduced is not None:
            if is_live(stmt) or _root(reduced) in _names(header) | {index} \
                    or not _reduction_ok(reduced, assigns, privates | {index}):
                return False
            continue
        name = stmt.kids[0].kids[0] if stmt.kids[0].op == "ident" else None
        if name is None or name == index or name in seen or name in outside \
                or name in _names(stmt.kids[1]) or not _private_symbol(proc, name):
            return False
        if any(name in _names(earlier) for earlier in assigns[:assigns.index(stmt)]):
            return False
        seen.add(name)
    reductions = {_root(s.kids[0]) for s in assigns if _reduced(s) is not None}
    return bool(seen) and unassigned(_names(body) - seen - reductions - {index}, proc.node) \
        and not may_share_memory(proc, body)


def may_share_memory(proc, body: Node) -> bool:
    """Some variable body refers to may reach memory that another name reaches too: a
    Fortran POINTER or TARGET, an EQUIVALENCE member, a C pointer that is not a formal (a
    formal's target is the caller's, distinct from the others' as everywhere in the adjoint)."""
    for name in _names(body):
        sym = proc.scope.lookup(name)
        if sym is None:
            continue
        if proc.lang == "fortran" and (sym.is_pointer or "target" in sym.attrs) \
                or proc.lang != "fortran" and sym.is_pointer and sym.formal is None:
            return True
    return any(name in _names(group) for group in proc.scope.equivalences for name in _names(body))


def _parts(loop: Node):
    """(index name, header expressions, body) of a DO or a C for loop `for (I = F; ...)`."""
    if loop.op == "do" and loop.kids[0].op == "ident":
        return loop.kids[0].kids[0], loop.kids[1:4], loop.kids[4]
    if loop.op == "for" and loop.kids[0] is not None and loop.kids[0].op == "assign" \
            and loop.kids[0].kids[0].op == "ident":
        return loop.kids[0].kids[0].kids[0], loop.kids[0:3], loop.kids[3]
    return None


def _reduced(stmt: Node):
    """R of a sum reduction R = E + R or R = R ± E1 ± ... ± En (the Ei free of R's variable),
    else None."""
    lhs, rhs = stmt.kids
    root = _root(lhs)
    if root is None or rhs.op not in _REDUCTIONS or lhs.op not in ("ident", "deref", "arrayAccess"):
        return None
    if rhs.op == "add" and rhs.kids[1] == lhs:
        return lhs if root not in _names(rhs.kids[0]) else None
    terms, spine = [], rhs
    while spine.op in _REDUCTIONS:     # the leftmost operand of a chain of sums is added once
        terms.append(spine.kids[1])
        spine = spine.kids[0]
    return lhs if spine == lhs and root not in _names(tuple(terms)) else None


def _reduction_ok(ref: Node, assigns: list, private: set) -> bool:
    """Only reductions into ref refer to its variable; its indices read no private variable."""
    root = _root(ref)
    if ref.op == "deref" and ref.kids[0].op != "ident":
        return False
    if _names(ref) - {root} & private:
        return False
    return all(_reduced(other) == ref for other in assigns if root in _names(other))


def _private_symbol(proc, name: str) -> bool:
    """A scalar real or integer local of the procedure, with storage of its own per call
    (EQUIVALENCE: may_share_memory)."""
    sym = proc.scope.symbols.get(name)
    if sym is None or sym.kind != "variable" or sym.formal is not None or sym.common is not None \
            or sym.dims is not None or sym.is_pointer or sym.attrs & {"save", "static", "parameter", "result"}:
        return False
    if proc.lang == "fortran" and sym.init is not None:   # an initial value makes it SAVE
        return False
    typ = sym.type
    return typ is not None and typ.op == "type" and typ.kids[0] in ("real", "integer")


def _names_outside(tree: Node, body: Node) -> set:
    """The names of the identifiers of tree outside body (declarators are not identifiers)."""
    out, stack = set(), [tree]
    while stack:
        x = stack.pop()
        if x is body:
            continue
        if isinstance(x, Node):
            if x.op == "ident":
                out.add(x.kids[0])
            stack.extend(x.kids)
        elif isinstance(x, tuple):
            stack.extend(x)
    return out


def _names(tree) -> set:
    return {n.kids[0] for n in walk(tree) if n.op == "ident"}


def _root(ref):
    while isinstance(ref, Node) and ref.op in ("arrayAccess", "fieldAccess", "deref"):
        ref = ref.kids[0]
    return ref.kids[0] if isinstance(ref, Node) and ref.op == "ident" else None
