"""Vector tangent mode (paper 4.7, fig. 10): F_DV from F_D.

The copies of the original statements do not depend on the direction, so they stay as they
are; every derivative variable gains an extra dimension of size nbdirsmax, innermost (the
first one in Fortran), and every run of consecutive derivative statements goes into one loop
over the directions, `DO nd = 1, nbdirs` — fusing them is always legal, since a derivative
statement reads original values (which the run does not change) and derivatives of its own
direction. nbdirsmax comes from module DIFFSIZES, which the user provides.

The partial derivatives in a derivative statement do not depend on the direction: each one
that costs more than a load (`cos(x)`, `u(i+1) - u(i-1)`) is computed once, into a temporary
before the loop over the directions (`temp0 = cos(x)`), so F_DV does the work of F_D's
partials once for all directions (`hoist_partials`). The loop reads the same values in the
same order as F_D, so each direction's derivatives are bit for bit those of F_D.

This is a rewrite of the tangent the rules produced, not a rule set of its own: the
derivation of each statement is the tangent's (explain shows it).
"""
from __future__ import annotations

from ...engine.errors import UnsupportedError
from ...engine.il import Node, mk, walk
from ..derivatives import derivative

NBDIRS, NBDIRSMAX, DIRECTION = "nbdirs", "nbdirsmax", "nd"


def vectorize_procedure(proc: Node, derivatives: frozenset, names: dict, filename: str, temp=None) -> Node:
    """F_D -> F_DV. derivatives: the names of the derivative variables of proc; names:
    differentiated procedure name (_d) -> its vector name (_dv); temp(base): a fresh
    variable name, for the partials computed once outside the direction loops (none: no
    partial is hoisted)."""
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
                widened.append(x.with_kids(x.kids[0], (mk("dim", None, mk("ident", NBDIRSMAX)),) + tuple(dims),
                                           None, x.kids[3]))
            d = d.with_kids(d.kids[0], d.kids[1], tuple(widened))
        decls_v.append(d)
    decls_v.append(mk("varDecl", mk("type", "integer", None, None), (),
                      (mk("declarator", NBDIRS, None, None, 0), mk("declarator", DIRECTION, None, None, 0))))
    hoist = _Hoister(_variable_types(decls), arrays, temp) if temp else None
    body_v = _block(body, arrays, names, filename, hoist)
    if hoist:
        by_type: dict = {}
        for temp_name, typ in hoist.temps:
            by_type.setdefault(typ, []).append(mk("declarator", temp_name, None, None, 0))
        decls_v.extend(mk("varDecl", typ, (), tuple(declarators)) for typ, declarators in by_type.items())
    return Node("procedure", (names[name], kind, tuple(params) + (NBDIRS,), result, rtype, attrs, tuple(decls_v),
                              body_v, contains), proc.ann)


def _block(block: Node, arrays: dict, names: dict, filename: str, hoist=None) -> Node:
    out, run = [], []

    def flush():
        if run and hoist:
            run[:] = hoist.partials_of(run, out)
        if run:
            out.append(mk("do", mk("ident", DIRECTION), mk("intCst", 1, None), mk("ident", NBDIRS), None,
                          mk("block", *run)))
            run.clear()

    for stmt in block.kids:
        if stmt.ann.get("derivative") or _writes_derivative(stmt, arrays):
            if stmt.op == "call":
                flush()
                out.append(_call(stmt, arrays, names, filename))
                continue
            run.append(_indexed(stmt, arrays, filename, names))
            continue
        flush()
        out.append(_statement(stmt, arrays, names, filename, hoist))
    flush()
    return Node("block", tuple(out), block.ann)


def _writes_derivative(stmt: Node, arrays: dict) -> bool:
    return stmt.op == "assign" and _root(stmt.kids[0]) in arrays


def _statement(stmt: Node, arrays: dict, names: dict, filename: str, hoist=None) -> Node:
    """A statement with no derivative of its own: its blocks are vectorized; a call of a
    differentiated procedure gets nbdirs."""
    if stmt.op == "call":
        return _call(stmt, arrays, names, filename)
    kids = tuple(_block(k, arrays, names, filename, hoist) if isinstance(k, Node) and k.op == "block" else k
                 for k in stmt.kids)
    if stmt.op == "switch":
        kids = (kids[0], tuple(_statement(c, arrays, names, filename, hoist) for c in stmt.kids[1]), kids[2])
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


# --- partials computed once for all directions ------------------------------------------------
_ARITHMETIC = frozenset({"add", "sub", "mul", "div", "power", "neg", "pos"})
_LEAVES = frozenset({"ident", "intCst", "realCst", "arrayAccess", "boolCst"})


def _variable_types(decls) -> dict:
    """name -> (type node, is an array), for the variables the procedure declares."""
    return {x.kids[0]: (d.kids[0], bool(x.kids[1])) for d in decls if d.op == "varDecl" for x in d.kids[2]}


def _keeps_type(intrinsic: str) -> bool:
    """An elemental function whose value has its arguments' type (sin, exp, max, atan2...):
    in the table, with a derivative through every argument; not a conversion."""
    entry = derivative(intrinsic, "fortran")
    return entry is not None and not entry.linear and not entry.inactive and not entry.all_inactive


class _NotHoisted(Exception):
    pass


class _Hoister:
    """Moves the direction-independent partials of a run of derivative statements out of
    its direction loop, into temporaries assigned just before the loop. Only arithmetic is
    searched (a partial under `merge` or a call stays put), and only a scalar expression of
    one known real type, with no call but to an intrinsic, is moved: it then has the same
    value in the temporary as in place."""

    def __init__(self, types: dict, arrays: dict, temp):
        self.types, self.arrays, self.temp = types, arrays, temp
        self.temps: list = []  # (name, type) to declare

    def partials_of(self, run: list, out: list) -> list:
        """The run with its partials replaced by temporaries; their assignments go to out.
        A derivative statement writes no original variable, so each partial has the same
        value before the loop as in it."""
        given: dict = {}
        return [self._statement(stmt, given, out) for stmt in run]

    def _statement(self, stmt: Node, given: dict, out: list) -> Node:
        if stmt.op != "assign" or not self._varies(stmt.kids[1]):
            return stmt
        return stmt.with_kids(stmt.kids[0], self._expr(stmt.kids[1], given, out))

    def _expr(self, expr: Node, given: dict, out: list) -> Node:
        if expr.op not in _ARITHMETIC:
            return expr
        kids = []
        for kid in expr.kids:
            if self._varies(kid):
                kids.append(self._expr(kid, given, out))
            elif kid.op not in _LEAVES and (typ := self._type_of(kid)) is not None:
                kids.append(self._temporary(kid, typ, given, out))
            else:
                kids.append(kid)
        return expr.with_kids(*kids)

    def _temporary(self, partial: Node, typ: Node, given: dict, out: list) -> Node:
        name = given.get(partial)
        if name is None:
            name = given[partial] = self.temp("temp")
            self.temps.append((name, typ))
            out.append(mk("assign", mk("ident", name), partial))
        return mk("ident", name)

    def _varies(self, expr: Node) -> bool:
        return any(n.op == "ident" and n.kids[0] in self.arrays for n in walk(expr))

    def _type_of(self, expr: Node) -> Node | None:
        """The type of a scalar expression whose variables all have one real type; None for
        anything else (an integer, an array, a call that may have effects)."""
        try:
            found = set(self._value_types(expr))
        except _NotHoisted:
            return None
        typ = found.pop() if len(found) == 1 else None
        return typ if typ is not None and typ.kids[0] in ("real", "double") else None

    def _value_types(self, expr: Node):
        op = expr.op
        if op in ("intCst", "realCst"):
            return
        if op in _ARITHMETIC or (op == "intrinsic" and _keeps_type(expr.kids[0])):
            for kid in (expr.kids if op != "intrinsic" else expr.kids[1]):
                yield from self._value_types(kid)
            return
        if op == "arrayAccess" and not any(i.op == "arrayTriplet" for i in expr.kids[1]):
            base, element = expr.kids[0], True
        elif op == "ident":
            base, element = expr, False
        else:
            raise _NotHoisted
        typ, is_array = self.types.get(base.kids[0], (None, None)) if base.op == "ident" else (None, None)
        if typ is None or is_array != element:
            raise _NotHoisted
        yield typ
