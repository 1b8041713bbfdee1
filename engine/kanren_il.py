"""IL trees as miniKanren terms: `Node` registered with `unification`'s `_unify`/`_reify`.

A *pattern* is an IL `Node` whose children contain logic variables:

    lhs, rhs = var(), var()
    eq(stmt, pattern("assign", lhs, rhs))

It unifies with a real IL tree when the operators are equal and the children unify
pairwise (children may be Nodes, tuples, str/int/bool/None, or logic variables).
Annotations never take part in matching, as they never take part in IL equality.
Reifying a pattern rebuilds a plain `Node` with the pattern's own annotations.

Rules over several operators (a reference of any kind, any operator of the derivative
table) match them with a logic variable for the operator, bound to a member of the rule's
set: `lall(eq(ref, pattern(op, base, rest=others)), member(op, ACCESS_OPS))`. A rule that
rebuilds its subject with new children keeps the subject's annotations (line, label, how
the source wrote it) with `ann=`: `eq(stmt, pattern("if", c, t, e, ann=a))` binds `a` to
them, and the conclusion `pattern("if", c, td, ed, ann=a)` carries them over.

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
immutable; a node built of plain values and ground nodes is known ground when built, `Node(...)`),
so reifying a real tree returns it as it is, without rebuilding or rescanning it. A premise's
output is bound by a `binder` made once (one copy of the state for a variable or a tuple of them).
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

__all__ = ["pattern", "member", "conda", "is_ground", "reify_term", "ground_value", "grounder", "binder", "UnboundVariable",
           "unify_terms",
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


def pattern(op, *kids, rest=None, ann=None, **annotations) -> Node:
    """An IL node whose children may be logic variables (no check of the children's kinds).

    `op` may be a logic variable (an operator of a set: `member`); `rest` (a logic
    variable) stands for the remaining children of the node itself; `ann` (a logic
    variable) for its annotations, bound by matching a real node, else `annotations`.
    """
    if type(op) is str and op not in OPS:
        raise ILError(f"unknown IL operator {op!r} in a pattern")
    ann = ann if ann is not None else _ann(annotations)
    if rest is None:
        return Node(op, kids, ann)
    return _node_with_kids(op, cons(*kids, rest) if kids else rest, ann)


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
        if type(node.kids) is not tuple or type(node.op) is not str or type(node.ann) in _VARS:
            ground = False                    # a pattern: `rest`, operator or annotations variables
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
        kids = term.kids if type(term.kids) is tuple else _rest_kids(term.kids, s)
        if kids is None:                   # a `rest` the fast path does not read: the generic path
            value = reify(term, s)
            if not is_ground(value):
                raise UnboundVariable(term)
            return value
        node = _rebuilt(term, _ground_kids(kids, s), s)
        if type(node.op) is not str or type(node.ann) in _VARS:
            raise UnboundVariable(term)
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
            if type(value) is Node and value._ground is True:   # a real tree, most often
                return value
            return value if _known_ground(value) else slow(s)
        return ground_variable
    if type(term) is tuple and all(type(t) is FreshVar for t in term):
        # one, two or no variables, most often (a premise on the node, or the node and an
        # input): read without the generic loop
        if not term:
            def ground_variables(s):
                return term
        elif len(term) == 1:
            first, = term

            def ground_variables(s):
                value = s.get(first, first)
                if (type(value) is Node and value._ground is True) or _known_ground(value):
                    return (value,)
                return slow(s)
        elif len(term) == 2:
            first, second = term

            def ground_variables(s):
                one, two = s.get(first, first), s.get(second, second)
                if ((type(one) is Node and one._ground is True) or _known_ground(one)) and \
                        ((type(two) is Node and two._ground is True) or _known_ground(two)):
                    return one, two
                return slow(s)
        else:
            def ground_variables(s):
                values = tuple(map(s.get, term, term))   # s.get(t, t) for each, without a Python frame
                for value in values:   # a real tree, most often: known without a call
                    if (type(value) is not Node or value._ground is not True) and not _known_ground(value):
                        return slow(s)
                return values
        return ground_variables
    return slow


def binder(term):
    """`(value, state) -> unify_terms(term, value, state)`, made once for a term bound again
    and again (a premise's result): an unbound variable, or a tuple of distinct unbound
    variables and a tuple of as many values, is bound by one copy of the state."""
    if type(term) is FreshVar:
        def bind_variable(value, s):
            if term in s or type(value) in _VARS:
                return unify_terms(term, value, s)
            s = s.copy()
            s[term] = value
            return s
        return bind_variable
    if type(term) is tuple and term and all(type(t) is FreshVar for t in term) and len(set(term)) == len(term):
        size = len(term)

        def bind_variables(value, s):
            if type(value) is not tuple or len(value) != size or any(t in s for t in term) or \
                    any(type(v) in _VARS for v in value):
                return unify_terms(term, value, s)
            s = s.copy()
            s.update(zip(term, value))
            return s
        return bind_variables
    return lambda value, s: unify_terms(term, value, s)


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


def _ground_kids(kids: tuple, s: Mapping) -> tuple:
    """The children of a pattern grounded (a new tuple: the node is rebuilt anyway); a
    variable bound to a real tree or a plain value, most often, by one look-up."""
    values = []
    for t in kids:
        kind = type(t)
        if kind is FreshVar:
            value = s.get(t, t)
            kind = type(value)
            if (kind is Node and value._ground is True) or kind in _PLAIN:
                values.append(value)
                continue
        elif (kind is Node and t._ground is True) or kind in _PLAIN:
            values.append(t)
            continue
        values.append(ground_value(t, s))
    return tuple(values)


def reify_term(term, s: Mapping):
    """reify(term, s) for IL terms: the bound variables replaced by their values."""
    kind = type(term)
    if kind is Node:
        ground = term._ground
        if ground is True or (ground is None and _tree_is_ground(term)):
            return term
        kids = term.kids if type(term.kids) is tuple else _rest_kids(term.kids, s)
        if kids is not None:
            return _rebuilt(term, _reify_tuple(kids, s), s)
        return reify(term, s)            # an unbound `rest`: the generic path
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


def _rest_kids(kids, s: Mapping):
    """The children of a pattern with `rest` (a variable, or a cons of the first children
    and the variable) as a tuple of terms, when `rest` is bound to a tuple; else None."""
    first = []
    while type(kids) is ConsPair:
        first.append(kids.car)
        kids = kids.cdr
    if type(kids) in _VARS:
        kids = _walk(kids, s)
    return tuple(first) + kids if type(kids) is tuple else None


def _rebuilt(term: Node, kids: tuple, s: Mapping) -> Node:
    """A node of the pattern `term` with these children, its operator and annotations read
    through the state when they are variables."""
    op, ann = term.op, term.ann
    if type(op) is not str:
        op = _walk(op, s)
    if type(ann) in _VARS:
        ann = _walk(ann, s)
    return Node(op, kids, ann)


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
        if type(u.op) is str and type(v.op) is str:
            return False
        s = unify_terms(u.op, v.op, s)   # an operator variable
        if s is False:
            return False
    if is_ground(u) and is_ground(v):
        return s if u.kids == v.kids else False
    if type(u.ann) in _VARS or type(v.ann) in _VARS:
        s = unify_terms(u.ann, v.ann, s)
    ku, kv = u.kids, v.kids
    if type(ku) is tuple:
        if type(kv) is tuple:
            return _unify_pairwise(ku, kv, s)
        ku, kv = kv, ku
    if type(kv) is tuple:                # a `rest` pattern against real children
        i = 0
        while type(ku) is ConsPair:
            if i == len(kv):
                return False
            s = unify_terms(ku.car, kv[i], s)
            if s is False:
                return False
            ku, i = ku.cdr, i + 1
        return unify_terms(ku, kv[i:], s)
    return unify(ku, kv, s)              # two `rest` patterns: the generic path


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
    if type(u) is FreshVar and type(v) is Node and not is_ground(v) and \
            (type(v.kids) is tuple or type(v.kids) in _VARS):
        return _match(u, v)

    def eq_step(state):
        state = unify_terms(u, v, state)
        return None if state is False else state
    return Goal(eq_step)


def _match(subject: FreshVar, p: Node) -> Goal:
    """eq(subject, p) for a rule's pattern: when the subject is a real tree, its operator,
    children and annotations are matched against p's with one copy of the state for the
    variables they bind (the same state as unify_terms; anything else takes unify_terms)."""
    op, kids, ann = p.op, p.kids, p.ann
    op_var, ann_var, rest = type(op) in _VARS, type(ann) in _VARS, type(kids) in _VARS
    if not (op_var or ann_var or rest):
        return Goal(_match_children(subject, p))

    def match_step(state):
        node = state.get(subject)
        if type(node) is not Node or node._ground is not True:
            state = unify_terms(subject, p, state)
            return None if state is False else state
        if not op_var and op != node.op:
            return None
        s = state.copy()
        for term, value in ((op, node.op), (ann, node.ann), (kids, node.kids)) if op_var or ann_var or rest else ():
            if type(term) in _VARS:
                if term in s:
                    s = unify_terms(term, value, s)
                    if s is False:
                        return None
                else:
                    s[term] = value
        if rest:
            return s
        return _bound_children(kids, node.kids, s) if len(node.kids) == len(kids) else None
    return Goal(match_step)


def _bound_children(kids: tuple, values: tuple, s: dict):
    """s (a copy of the caller's) with a pattern's children matched against a real node's,
    as many: a fresh variable not bound yet is set, anything else unified; or None."""
    for term, value in zip(kids, values):
        if type(term) is FreshVar and term not in s:
            s[term] = value
        else:
            s = unify_terms(term, value, s)
            if s is False:
                return None
    return s


def _match_children(subject: FreshVar, p: Node):
    """_match's step for a pattern of a fixed operator and number of children, its
    annotations not asked (most patterns): the operator and the number of children
    compared before the state is copied."""
    op, kids = p.op, p.kids
    size = len(kids)

    def match_children_step(state):
        node = state.get(subject)
        if type(node) is not Node or node._ground is not True:
            state = unify_terms(subject, p, state)
            return None if state is False else state
        values = node.kids
        if op != node.op or len(values) != size:
            return None
        return _bound_children(kids, values, state.copy())
    return match_children_step


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


def member(x, values) -> Goal:
    """kanren's `membero` for a term bound when the goal runs (a pattern's operator
    variable): x is one of `values`."""
    values = frozenset(values)

    def member_step(state):
        value = state.get(x, x)
        if type(value) in _VARS:
            value = _walk(value, state)
        if type(value) in _VARS:
            raise UnboundVariable(x)
        return state if value in values else None
    return Goal(member_step)


def conda(*clauses) -> Goal:
    """miniKanren's `conda`, of deterministic goals: the first clause whose first goal
    succeeds, then the rest of that clause (committed choice: a later clause is not tried)."""
    steps = tuple((first.step, lall(*rest).step) for first, *rest in clauses)

    def conda_step(state):
        for first, rest in steps:
            held = first(state)
            if held is not None:
                return rest(held)
        return None
    return Goal(conda_step)


_fresh = count(1)


def var(*args, **kwargs) -> Var:
    """kanren's `var`. A fresh variable (no token given) is a FreshVar, outside kanren's
    registry of named variables (which gives back the same variable for the same token)."""
    if args or kwargs:
        return Var(*args, **kwargs)
    fresh = object.__new__(FreshVar)
    fresh.token = f"_il{next(_fresh)}"
    return fresh
