"""Vector tangent mode (paper 4.7, fig. 10): F_DV from F_D.

The copies of the original statements do not depend on the direction, so they stay as they
are; every derivative variable gains an extra dimension of size nbdirsmax, innermost (the
first one in Fortran), and every run of consecutive derivative statements goes into one loop
over the directions, `DO nd = 1, nbdirs` — fusing them is always legal, since a derivative
statement reads original values (which the run does not change) and derivatives of its own
direction. nbdirsmax comes from module DIFFSIZES, which the user provides.

This is a rewrite of the tangent the rules produced, not a rule set of its own: the
derivation of each statement is the tangent's (explain shows it).
"""
from __future__ import annotations

from ...engine.errors import UnsupportedError
from ...engine.il import Node, mk, walk

NBDIRS, NBDIRSMAX, DIRECTION = "nbdirs", "nbdirsmax", "nd"


def vectorize_procedure(proc: Node, derivatives: frozenset, names: dict, filename: str) -> Node:
    """F_D -> F_DV. derivatives: the names of the derivative variables of proc; names:
    differentiated procedure name (_d) -> its vector name (_dv)."""
    name, kind, params, result, rtype, attrs, decls, body, contains = proc.kids
    if kind == "function":
        raise UnsupportedError("vector mode for a function (F_DV would return an array) is not supported yet",
                               filename, proc.line)
    arrays = {}
    decls_v = [mk("use", "diffsizes", None)]
    for d in decls:
        if d.op == "varDecl" and any(x.kids[0] in derivatives for x in d.kids[2]):
            widened = []
            for x in d.kids[2]:
                dims = x.kids[1] or ()
                arrays[x.kids[0]] = len(dims)
                # a deferred shape (allocatable) stays deferred: td(:, :), allocated with nbdirsmax
                deferred = bool(dims) and all(k.kids == (None, None) for k in dims)
                direction = mk("dim", None, None) if deferred else mk("dim", None, mk("ident", NBDIRSMAX))
                widened.append(x.with_kids(x.kids[0], (direction,) + tuple(dims), None, x.kids[3]))
            d = d.with_kids(d.kids[0], d.kids[1], tuple(widened))
        decls_v.append(d)
    body_v = _block(body, arrays, names, filename)
    # nd only where a direction loop uses it (gfortran -Wall: no unused variable)
    counters = (NBDIRS, DIRECTION) if any(n.op == "ident" and n.kids[0] == DIRECTION for n in walk(body_v)) \
        else (NBDIRS,)
    decls_v.append(mk("varDecl", mk("type", "integer", None, None), (),
                      tuple(mk("declarator", c, None, None, 0) for c in counters)))
    return Node("procedure", (names[name], kind, tuple(params) + (NBDIRS,), result, rtype, attrs, tuple(decls_v),
                              body_v, contains), proc.ann)


def _block(block: Node, arrays: dict, names: dict, filename: str) -> Node:
    out, run = [], []

    def flush():
        if run:
            out.append(mk("do", mk("ident", DIRECTION), mk("intCst", 1, None), mk("ident", NBDIRS), None,
                          mk("block", *run)))
            run.clear()

    for stmt in block.kids:
        if stmt.op in ("allocate", "deallocate") and _root(stmt.kids[0]) in arrays:
            flush()   # allocate(td(n)) -> allocate(td(nbdirsmax, n)), once for all directions
            if stmt.op == "allocate":
                target, dims, type_ = stmt.kids
                stmt = Node("allocate", (target, (mk("ident", NBDIRSMAX),) + tuple(dims), type_), stmt.ann)
            out.append(stmt)
            continue
        if stmt.ann.get("derivative") or _writes_derivative(stmt, arrays):
            if stmt.op == "call":
                flush()
                out.append(_call(stmt, arrays, names, filename))
                continue
            run.append(_indexed(stmt, arrays, filename, names))
            continue
        flush()
        out.append(_statement(stmt, arrays, names, filename))
    flush()
    return Node("block", tuple(out), block.ann)


def _writes_derivative(stmt: Node, arrays: dict) -> bool:
    return stmt.op == "assign" and _root(stmt.kids[0]) in arrays


def _statement(stmt: Node, arrays: dict, names: dict, filename: str) -> Node:
    """A statement with no derivative of its own: its blocks are vectorized; a call of a
    differentiated procedure gets nbdirs."""
    if stmt.op == "call":
        return _call(stmt, arrays, names, filename)
    kids = tuple(_block(k, arrays, names, filename) if isinstance(k, Node) and k.op == "block" else k
                 for k in stmt.kids)
    if stmt.op == "switch":
        kids = (kids[0], tuple(_statement(c, arrays, names, filename) for c in stmt.kids[1]), kids[2])
    return Node(stmt.op, kids, stmt.ann)


def _call(stmt: Node, arrays: dict, names: dict, filename: str) -> Node:
    name, args = stmt.kids
    if name not in names:
        return stmt
    whole = tuple(_whole(a, arrays, filename) for a in args)
    return Node("call", (names[name], whole + (mk("ident", NBDIRS),)), stmt.ann)


def _whole(arg: Node, arrays: dict, filename: str) -> Node:
    """A derivative actual argument with all its directions: xd, or ad(:, i) for ad(i)."""
    root = _root(arg)
    if root not in arrays:
        return arg
    if arg.op == "ident":
        return arg
    if arg.op == "arrayAccess" and arg.kids[0].op == "ident":
        return mk("arrayAccess", arg.kids[0], (mk("arrayTriplet", None, None, None),) + tuple(arg.kids[1]))
    raise UnsupportedError("vector mode for this derivative argument is not supported yet", filename, None)


def _indexed(node, arrays: dict, filename: str, names_of_calls=frozenset()):
    """Every reference to a derivative variable, for direction nd: xd -> xd(nd),
    ad(i) -> ad(nd, i), a whole array ad -> ad(nd, :)."""
    if isinstance(node, tuple):
        return tuple(_indexed(k, arrays, filename, names_of_calls) for k in node)
    if not isinstance(node, Node):
        return node
    direction = mk("ident", DIRECTION)
    if node.op == "ident" and node.kids[0] in arrays:
        rank = arrays[node.kids[0]]
        return mk("arrayAccess", node, (direction,) + (mk("arrayTriplet", None, None, None),) * rank)
    if node.op == "arrayAccess" and node.kids[0].op == "ident" and node.kids[0].kids[0] in arrays:
        return mk("arrayAccess", node.kids[0], (direction,) + _indexed(node.kids[1], arrays, filename, names_of_calls))
    if node.op == "call" and node.kids[0] in names_of_calls:
        raise UnsupportedError("vector mode for a differentiated function called in an expression is not "
                               "supported yet", filename, None)
    if node.op == "fieldAccess" and _root(node) in arrays:
        raise UnsupportedError("vector mode for derivatives of structures is not supported yet", filename, None)
    return Node(node.op, _indexed(node.kids, arrays, filename, names_of_calls), node.ann)


def _root(ref: Node) -> str | None:
    while isinstance(ref, Node) and ref.op in ("arrayAccess", "fieldAccess"):
        ref = ref.kids[0]
    return ref.kids[0] if isinstance(ref, Node) and ref.op == "ident" else None
