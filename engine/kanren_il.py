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

Speed: a real IL tree holds no logic variable, so `_reify` returns it as it is after one
flat scan, without rebuilding it; the generic path (a generator per child) is only taken
for patterns, which are small. Within `remembering_ground_trees()` (the rule runner opens it
for each top-level application) a tree is scanned once, not at every level that contains it.
"""
from __future__ import annotations

from collections.abc import Mapping
from contextlib import contextmanager

from cons import cons
from cons.core import ConsPair
from unification import var, isvar
from unification.core import _reify, _unify, construction_sentinel

from .il import EMPTY_ANN, ILError, Node, OPS

__all__ = ["pattern", "is_ground", "remembering_ground_trees", "var", "cons"]

_PLAIN = (str, int, float, bool, type(None))


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
    for slot, value in (("op", op), ("kids", kids), ("ann", ann), ("_hash", None)):
        object.__setattr__(node, slot, value)
    return node


_known_ground: dict | None = None
"""While `remembering_ground_trees()` is active: id -> node of trees already proved ground.
The dict holds the nodes, so their ids cannot be reused while it lives."""


@contextmanager
def remembering_ground_trees():
    """Within the block, a tree once proved ground is not scanned again. A rule application
    reifies results that contain the results of its premises: without this, each level
    would rescan everything below it (quadratic on a sum of many terms)."""
    global _known_ground
    if _known_ground is not None:
        yield
        return
    _known_ground = {}
    try:
        yield
    finally:
        _known_ground = None


def is_ground(term) -> bool:
    """True when `term` (a Node, tuple or plain value) contains no logic variable."""
    known = _known_ground
    stack, scanned = [term], []
    while stack:
        t = stack.pop()
        if isinstance(t, Node):
            if known is not None and id(t) in known:
                continue
            if type(t.kids) is not tuple:      # a pattern with a `rest` variable
                return False
            scanned.append(t)
            stack.extend(t.kids)
        elif type(t) is tuple:
            stack.extend(t)
        elif type(t) in _PLAIN:
            continue
        elif isvar(t) or isinstance(t, ConsPair):
            return False
    if known is not None:
        known.update((id(n), n) for n in scanned)
    return True


def _unify_node(u: Node, v: Node, s: Mapping):
    if u is v:
        return s
    if u.op != v.op:
        return False
    # kids: tuple/tuple, variable/tuple or cons/tuple, all handled by the generic dispatch
    return _unify(u.kids, v.kids, s)


def _reify_node(node: Node, s: Mapping):
    if is_ground(node):
        return node
    return _rebuild(node, s)


def _rebuild(node: Node, s: Mapping):
    kids = yield _reify(node.kids, s)
    yield construction_sentinel
    if type(kids) is tuple:
        yield Node(node.op, kids, node.ann)
    else:                # an unbound `rest`: still a pattern
        yield _node_with_kids(node.op, kids, node.ann)


_unify.add((Node, Node, Mapping), _unify_node)
_reify.add((Node, Mapping), _reify_node)
