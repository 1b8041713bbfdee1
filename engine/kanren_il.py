"""IL trees as miniKanren terms: `Node` registered with `unification`'s `_unify`/`_reify`.

A *pattern* is an IL `Node` whose children contain logic variables:

    lhs, rhs = var(), var()
    eq(stmt, pattern("assign", lhs, rhs))

It unifies with a real IL tree when the operators are equal and the children unify
pairwise (children may be Nodes, tuples, str/int/bool/None, or logic variables).
Annotations never take part in matching, as they never take part in IL equality.
Reifying a pattern rebuilds a plain `Node` with the pattern's own annotations.

Children of variable length:
- a logic variable in place of a tuple child (the `args` of a call) matches the whole tuple;
- `cons(first, rest)` (from the `cons` package) matches a tuple of at least one element;
- for the variadic operators, whose children are the list itself (`block`), the keyword
  `rest=` of `pattern` stands for the remaining children: `pattern("block", rest=stmts)`
  matches any block, `pattern("block", first, rest=others)` a non-empty one.

The rules are written with `eq`, `lall` and `var` from this module: kanren's, made to know
deterministic goals. A `Goal` has at most one state for a state (unification, the rule
runner's premises): `goal.step(state)` is that state or None, and calling it, as kanren calls
a goal, gives the stream of that one state. A `lall` of such goals is one too and runs them
in sequence: the same states, without the generators of kanren's stream machinery. A `lall`
holding any other kanren goal (a `conde`, a relation of kanren's) is kanren's own `lconj`.

Speed: unifying and reifying IL terms is done by plain recursive functions (`unify_terms`,
`reify_term`) rather than by `unification`'s generic path (a dispatch and a generator per
child); they are registered for Node, so kanren's `eq` reaches them too, and they hand
anything else (a `cons`, a `rest` variable) back to the generic path. A real IL tree holds no
logic variable: whether a tree is ground is computed once and cached on the node (nodes are
immutable), so reifying a real tree returns it as it is, without rebuilding or rescanning it.
"""
from __future__ import annotations

from collections.abc import Mapping
from itertools import count

from cons import cons
from cons.core import ConsPair
from kanren.core import lconj_seq
from unification import reify, unify, isvar
from unification.core import _reify, _unify, construction_sentinel
from unification.variable import Var

from .il import EMPTY_ANN, ILError, Node, OPS

__all__ = ["pattern", "is_ground", "reify_term", "ground_value", "grounder", "UnboundVariable", "unify_terms",
           "Goal", "eq", "lall", "var", "FreshVar", "cons"]

_PLAIN = frozenset((str, int, float, bool, type(None)))


class FreshVar(Var):
    """A fresh logic variable (kanren's `var()`): equal only to itself, so it is hashed and
    compared by identity (kanren's Var compares tokens, in Python)."""

    __slots__ = ()
    __eq__ = object.__eq__
    __hash__ = object.__hash__


_VARS = frozenset((Var, FreshVar))
_set_ground = Node._ground.__set__   # the cache's slot, past Node.__setattr__ (nodes are immutable)


def pattern(op: str, *kids, rest=None, **ann) -> Node:
    """An IL node whose children may be logic variables (no check of the children's kinds).

    `rest` (a logic variable) stands for the remaining children of the node itself.
    """
    if op not in OPS:
        raise ILError(f"unknown IL operator {op!r} in a pattern")
    if rest is None:
        return Node(op, kids, _ann(ann))
    return _node_with_kids(op, cons(*kids, rest) if kids else rest, _ann(ann))


def _ann(ann: dict):
    return EMPTY_ANN.update(ann) if ann else EMPTY_ANN


def _node_with_kids(op: str, kids, ann) -> Node:
    # Node() would turn `kids` into a tuple; a pattern's kids may be a variable or a cons.
    node = object.__new__(Node)
    for slot, value in (("op", op), ("kids", kids), ("ann", ann), ("_hash", None), ("_ground", False)):
        object.__setattr__(node, slot, value)
    return node


def is_ground(term) -> bool:
    """True when `term` (a Node, tuple or plain value) contains no logic variable."""
    kind = type(term)
    if kind is Node:
        ground = term._ground
        return _tree_is_ground(term) if ground is None else ground
    if kind is tuple:
        for t in term:
            if not is_ground(t):
                return False
        return True
    if kind in _PLAIN:
        return True
    return not (kind in _VARS or isvar(term) or isinstance(term, ConsPair))


def _tree_is_ground(tree: Node) -> bool:
    """Compute and cache `_ground` on every node of `tree` not yet known, leaves first (with
    a stack, not recursion: a sum of thousands of terms is that deep)."""
    stack = [tree]
    while stack:
        node = stack[-1]
        if type(node.kids) is not tuple:      # a pattern with a `rest` variable
            ground = False
        else:
            ground = _from_kids(node.kids)
            if ground is None:                # a node below is not known yet: it goes first
                stack.extend(_unknown_nodes(node.kids))
                continue
        _set_ground(node, ground)
        stack.pop()
    return tree._ground


def _unknown_nodes(kids: tuple) -> list:
    out = []
    for kid in kids:
        if type(kid) is Node:
            if kid._ground is None:
                out.append(kid)
        elif type(kid) is tuple:
            out.extend(_unknown_nodes(kid))
    return out


def _from_kids(kids: tuple):
    """Whether children are ground: True, False, or None when a node among them is not known yet."""
    for kid in kids:
        kind = type(kid)
        if kind is Node:
            ground = kid._ground
            if ground is not True:
                return ground
        elif kind is tuple:
            ground = _from_kids(kid)
            if ground is not True:
                return ground
        elif kind not in _PLAIN and (kind in _VARS or isvar(kid) or isinstance(kid, ConsPair)):
            return False
    return True


class UnboundVariable(Exception):
    """ground_value met a variable with no value."""


def ground_value(term, s: Mapping):
    """reify_term(term, s) when the result holds no logic variable; UnboundVariable otherwise.
    (One pass: the rule runner reads every premise's inputs this way.)"""
    kind = type(term)
    if kind is Node:
        ground = term._ground
        if ground is True or (ground is None and _tree_is_ground(term)):
            return term
        if type(term.kids) is not tuple:   # a `rest` pattern: the generic path
            value = reify(term, s)
            if not is_ground(value):
                raise UnboundVariable(term)
            return value
        node = Node(term.op, _ground_tuple(term.kids, s), term.ann)
        _set_ground(node, True)
        return node
    if kind in _VARS:
        value = _walk(term, s)
        kind = type(value)
        if kind is Node and value._ground is True:
            return value
        if kind in _VARS:
            raise UnboundVariable(term)
        return ground_value(value, s)
    if kind is tuple:
        return _ground_tuple(term, s)
    if kind in _PLAIN:
        return term
    value = reify(term, s)
    if not is_ground(value):
        raise UnboundVariable(term)
    return value


def grounder(term, unbound=UnboundVariable):
    """`state -> ground_value(term, state)`, made once for a term read again and again (a
    premise's inputs): a variable, or a tuple of variables, bound to real trees is read by
    one lookup each; anything else takes ground_value. A variable still unbound raises
    `unbound()` (a caller's exception naming what was read)."""
    def slow(s):
        try:
            return ground_value(term, s)
        except UnboundVariable:
            raise unbound() from None

    if type(term) is FreshVar:
        def ground_variable(s):
            value = s.get(term, term)
            return value if _known_ground(value) else slow(s)
        return ground_variable
    if type(term) is tuple and all(type(t) is FreshVar for t in term):
        def ground_variables(s):
            values = tuple([s.get(t, t) for t in term])
            for value in values:
                if not _known_ground(value):
                    return slow(s)
            return values
        return ground_variables
    return slow


def _known_ground(value) -> bool:
    """value is ground as it is, known without a walk: a real tree, a plain value, or a tuple
    of those (the operands of an expression, their derivatives with None for zero); what
    ground_value would give back unchanged."""
    kind = type(value)
    if kind is Node:
        return value._ground is True
    if kind is tuple:
        for v in value:
            if not (type(v) is Node and v._ground is True) and type(v) not in _PLAIN:
                return False
        return True
    return kind in _PLAIN


def _ground_tuple(terms: tuple, s: Mapping) -> tuple:
    for i, t in enumerate(terms):
        kind = type(t)
        if (kind is Node and t._ground is True) or kind in _PLAIN:
            continue
        value = ground_value(t, s)
        if value is not t:      # rebuilt from here on; a tuple of real trees stays as it is
            values = list(terms[:i])
            values.append(value)
            for t in terms[i + 1:]:
                kind = type(t)
                values.append(t if (kind is Node and t._ground is True) or kind in _PLAIN else ground_value(t, s))
            return tuple(values)
    return terms


def reify_term(term, s: Mapping):
    """reify(term, s) for IL terms: the bound variables replaced by their values."""
    kind = type(term)
    if kind is Node:
        ground = term._ground
        if ground is True or (ground is None and _tree_is_ground(term)):
            return term
        if type(term.kids) is tuple:
            return Node(term.op, _reify_tuple(term.kids, s), term.ann)
        return reify(term, s)            # a `rest` pattern: the generic path
    if kind in _VARS:
        value = _walk(term, s)
        return value if value is term else reify_term(value, s)
    if kind is tuple:
        return _reify_tuple(term, s)
    if kind in _PLAIN:
        return term
    return reify(term, s)


def _reify_tuple(terms: tuple, s: Mapping) -> tuple:
    for i, t in enumerate(terms):
        if type(t) is Node and t._ground is True:
            continue
        value = reify_term(t, s)
        if value is not t:      # rebuilt from here on; a tuple of real trees stays as it is
            return terms[:i] + (value,) + tuple(reify_term(t, s) for t in terms[i + 1:])
    return terms


def _walk(term: Var, s: Mapping):
    """The value of a variable in s, through chains of variables (the variable if unbound)."""
    while True:
        value = s.get(term, term)
        if value is term or type(value) not in _VARS:
            return value
        term = value


def unify_terms(u, v, s: Mapping):
    """unify(u, v, s) for IL terms: the extended state, or False."""
    if u is v:
        return s
    if type(u) in _VARS:
        u = _walk(u, s)
    if type(v) in _VARS:
        v = _walk(v, s)
    if u is v:
        return s
    ku, kv = type(u), type(v)
    if ku in _VARS:
        s = s.copy()
        s[u] = v
        return s
    if kv in _VARS:
        s = s.copy()
        s[v] = u
        return s
    if ku is Node and kv is Node:
        return _unify_node(u, v, s)
    if ku is tuple and kv is tuple:
        return _unify_pairwise(u, v, s)
    if ku in _PLAIN and kv in _PLAIN:
        return s if u == v else False
    return unify(u, v, s)


def _unify_node(u: Node, v: Node, s: Mapping):
    if u is v:
        return s
    if u.op != v.op:
        return False
    if is_ground(u) and is_ground(v):
        return s if u.kids == v.kids else False
    if type(u.kids) is tuple and type(v.kids) is tuple:
        return _unify_pairwise(u.kids, v.kids, s)
    return unify(u.kids, v.kids, s)      # a cons or a `rest` variable: the generic path


def _unify_pairwise(u: tuple, v: tuple, s: Mapping):
    if len(u) != len(v):
        return False
    for a, b in zip(u, v):
        s = unify_terms(a, b, s)
        if s is False:
            return False
    return s


def _reify_node(node: Node, s: Mapping):
    return reify_term(node, s) if type(node.kids) is tuple else _rebuild(node, s)


def _rebuild(node: Node, s: Mapping):
    kids = yield _reify(node.kids, s)
    yield construction_sentinel
    if type(kids) is tuple:
        yield Node(node.op, kids, node.ann)
    else:                # an unbound `rest`: still a pattern
        yield _node_with_kids(node.op, kids, node.ann)


_unify.add((Node, Node, Mapping), _unify_node)
_reify.add((Node, Mapping), _reify_node)


# ---------------------------------------------------------------------------
# Goals: kanren's eq, lall and var, knowing deterministic goals
# ---------------------------------------------------------------------------

class Goal:
    """A deterministic miniKanren goal: `step(state)` is its one state, or None (it fails)."""

    __slots__ = ("step",)

    def __init__(self, step):
        self.step = step

    def __call__(self, state):
        """kanren's protocol: the stream of the goal's states (zero or one)."""
        state = self.step(state)
        return iter(()) if state is None else iter((state,))


def eq(u, v) -> Goal:
    """kanren's `eq`: u and v unify."""
    def eq_step(state):
        state = unify_terms(u, v, state)
        return None if state is False else state
    return Goal(eq_step)


def lall(*goals):
    """kanren's `lall`, the conjunction, left to right. Of deterministic goals it is a Goal
    that runs them in sequence; with any other goal, kanren's `lconj` stream."""
    for g in goals:
        if type(g) is not Goal:
            return lconj_seq(goals)
    steps = tuple(g.step for g in goals)

    def all_step(state):
        for step in steps:
            state = step(state)
            if state is None:
                return None
        return state
    return Goal(all_step)


_fresh = count(1)


def var(*args, **kwargs) -> Var:
    """kanren's `var`. A fresh variable (no token given) is a FreshVar, outside kanren's
    registry of named variables (which gives back the same variable for the same token)."""
    if args or kwargs:
        return Var(*args, **kwargs)
    fresh = object.__new__(FreshVar)
    fresh.token = f"_il{next(_fresh)}"
    return fresh
