"""Which C full expressions with side effects the C front end can split into statements.

The front end hoists `++`, `--`, assignments and the comma operator out of expressions into
statements (a prefix effect before the statement, a postfix one after it). That is only the
C meaning when C itself fixes no order that the split would change: an object modified
twice, or modified and also read, in one full expression without a sequence point between
is unspecified or undefined in C (`i++ + i`, `a[i] = i++`, `f(i++, i)`), and is refused.
Effects are tracked per object path: a variable, its fields and its elements at constant
indices (`a.x = a.y = 0` and `b[0] = b[1] = e` modify different objects; `b[i]` may be any
element of b). A read inside an assignment comes before that assignment's own write
(`x = y = y + 1`). Writes through pointers (`*p`, `p->f`) have no name and are not tracked.

`check_full_expression(n, statement)` raises `SequencingError(message, node)`; with
statement=True, `n` is an assignment or `++`/`--` statement whose own target may also be read
(`x = x + 1`) but not modified again (`x = x++`).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from pycparser import c_ast

from ..engine.il import Node, mk

__all__ = ["check_full_expression", "SequencingError", "is_side_effect", "INC_DEC_OPS", "Hoisted",
           "with_after_effects", "guarded_loop_body"]

INC_DEC_OPS = frozenset(("p++", "p--", "++", "--"))


class SequencingError(Exception):
    def __init__(self, message: str, node):
        super().__init__(message)
        self.message, self.node = message, node


def is_side_effect(n) -> bool:
    return isinstance(n, c_ast.Assignment) or (isinstance(n, c_ast.UnaryOp) and n.op in INC_DEC_OPS)


@dataclass
class _Mod:
    key: tuple | None   # the object modified, a path (None: through a pointer)
    post: bool          # a postfix ++/--: its write is hoisted after the statement
    node: object
    place_keys: frozenset = frozenset()  # objects its target's place depends on (a[k]: k)


@dataclass
class _Accesses:
    mods: list = field(default_factory=list)   # of _Mod
    reads: dict = field(default_factory=dict)  # object path -> the nodes reading it

    def add(self, other: "_Accesses") -> "_Accesses":
        self.mods += other.mods
        for k, nodes in other.reads.items():
            self.read(k, *nodes)
        return self

    def read(self, key: tuple, *nodes) -> None:
        self.reads.setdefault(key, []).extend(nodes)


def _constant_index(n) -> int | None:
    if isinstance(n, c_ast.Constant) and n.type == "int":
        digits = n.value.rstrip("uUlL")
        base = 16 if digits[:2].lower() == "0x" else 8 if len(digits) > 1 and digits[0] == "0" else 10
        return int(digits, base)
    return None


def lvalue_key(n) -> tuple | None:
    """The object an lvalue names, as a path: (("", variable), (".", field) or ("[", constant
    index or None for any)...); None when it is reached through a pointer."""
    parts = []
    while True:
        if isinstance(n, c_ast.ID):
            return (("", n.name),) + tuple(reversed(parts))
        if isinstance(n, c_ast.ArrayRef):
            parts.append(("[", _constant_index(n.subscript)))
            n = n.name
        elif isinstance(n, c_ast.StructRef) and n.type == ".":
            parts.append((".", n.field.name))
            n = n.name
        elif isinstance(n, c_ast.Cast):
            n = n.expr
        else:
            return None


def _overlap(a: tuple, b: tuple) -> bool:
    """Whether two object paths may share storage: one holds the other, or an index is unknown."""
    return all(x == y or x[1] is None or y[1] is None for x, y in zip(a, b))


def _name(key: tuple) -> str:
    return key[0][1]


def _address(n) -> _Accesses:
    """What finding the place of an lvalue reads (indices, pointer values), not its value."""
    if isinstance(n, c_ast.ID):
        return _Accesses()
    if isinstance(n, c_ast.ArrayRef):
        return _address(n.name).add(_accesses(n.subscript))
    if isinstance(n, c_ast.StructRef):
        return _address(n.name) if n.type == "." else _accesses(n.name)
    if isinstance(n, c_ast.Cast):
        return _address(n.expr)
    if isinstance(n, c_ast.UnaryOp) and n.op == "*":
        return _accesses(n.expr)
    return _accesses(n)


def _side_effect(n, target, post: bool) -> _Accesses:
    acc = _address(target)
    place = frozenset(acc.reads) | frozenset(m.key for m in acc.mods if m.key is not None)
    if isinstance(n, c_ast.Assignment):
        acc.add(_accesses(n.rvalue))
    acc.mods.append(_Mod(lvalue_key(target), post, n, place))
    return acc


def _sequenced(first, later: list, where: str) -> _Accesses:
    """`first` then a sequence point then one of `later` (&&, ||, ?:): side effects of the
    later operands would have to be conditional, which hoisting cannot express."""
    acc = _accesses(first)
    for n in later:
        after = _accesses(n)
        if after.mods:
            raise SequencingError(f"a side effect in {where} is not supported", after.mods[0].node)
        for key, nodes in after.reads.items():
            if any(m.key is not None and _overlap(m.key, key) and m.post for m in acc.mods):
                raise SequencingError(f"{_name(key)}++/-- before {where} that reads {_name(key)} is not supported",
                                      nodes[0])
            if not any(m.key == key for m in acc.mods):
                acc.read(key, *nodes)
    return acc


def _comma(n) -> _Accesses:
    """Each left operand is a full expression of its own, finished (postfix writes included)
    before the next operand: later operands may read what it modified."""
    acc = _Accesses()
    for left in n.exprs[:-1]:
        check_full_expression(left, statement=is_side_effect(left))
        sub = _accesses(left)
        acc.mods += [_Mod(m.key, False, m.node) for m in sub.mods]
        for k, nodes in sub.reads.items():
            acc.read(k, *nodes)
    last = _accesses(n.exprs[-1])
    acc.mods += last.mods
    for k, nodes in last.reads.items():
        if not any(m.key == k for m in acc.mods):
            acc.read(k, *nodes)
    return acc


def _accesses(n) -> _Accesses:
    if n is None or isinstance(n, (c_ast.Constant, c_ast.Typename)):
        return _Accesses()
    if isinstance(n, (c_ast.ID, c_ast.ArrayRef)) or (isinstance(n, c_ast.StructRef) and n.type == "."):
        key = lvalue_key(n)
        if key is not None:
            acc = _address(n)
            acc.read(key, n)
            return acc
    if isinstance(n, c_ast.StructRef):   # p->f reads p, not a variable named f
        return _accesses(n.name)
    if isinstance(n, c_ast.Assignment):
        return _side_effect(n, n.lvalue, False)
    if isinstance(n, c_ast.UnaryOp):
        if n.op in INC_DEC_OPS:
            return _side_effect(n, n.expr, n.op.startswith("p"))
        if n.op == "sizeof":
            return _Accesses()
        if n.op == "&":
            return _address(n.expr)
    if isinstance(n, c_ast.BinaryOp) and n.op in ("&&", "||"):
        return _sequenced(n.left, [n.right], f"the right operand of {n.op}")
    if isinstance(n, c_ast.TernaryOp):
        return _sequenced(n.cond, [n.iftrue, n.iffalse], "a branch of ?:")
    if isinstance(n, c_ast.ExprList):
        return _comma(n)
    if isinstance(n, c_ast.FuncCall):  # arguments are evaluated in an unspecified order
        acc = _Accesses()
        for a in n.args.exprs if n.args is not None else ():
            acc.add(_accesses(a))
        return acc
    acc = _Accesses()
    for _, child in n.children():
        acc.add(_accesses(child))
    return acc


def _has_nested_side_effect(n, statement: bool) -> bool:
    """Whether n holds a side effect (other than its own, for a statement)."""
    stack = [child for _, child in n.children()] if statement else [n]
    while stack:
        x = stack.pop()
        if is_side_effect(x):
            return True
        stack.extend(child for _, child in x.children())
    return False


def check_full_expression(n, statement: bool = False) -> None:
    """Raise SequencingError when splitting the side effects of the full expression `n` out
    could change its meaning (C leaves their order unspecified) or is not supported."""
    if not _has_nested_side_effect(n, statement):
        return  # the common case: nothing to order
    if statement:
        target = n.lvalue if isinstance(n, c_ast.Assignment) else n.expr
        acc = _address(target)
        if isinstance(n, c_ast.Assignment):
            acc.add(_accesses(n.rvalue))
        acc.mods.append(_Mod(lvalue_key(target), False, None))  # the statement's own write
    else:
        acc = _accesses(n)
    modified = [m.key for m in acc.mods if m.key is not None]
    for m in acc.mods:
        if m.post and any(_overlap(k, other) for k in m.place_keys for other in modified):
            # the write is hoisted after the statement: its place must not have changed then
            raise SequencingError(f"a postfix {m.node.op[1:]} whose target depends on a variable the same "
                                  f"expression modifies is not supported", m.node)
        if m.node is None or m.key is None:
            continue
        before = _subtree(m.node)   # what m's own computation reads comes before its write
        if sum(_overlap(m.key, other) for other in modified) > 1 or any(
                _overlap(m.key, key) and id(node) not in before for key, nodes in acc.reads.items() for node in nodes):
            raise SequencingError(f"{_name(m.key)} is modified and also used elsewhere in the same expression: "
                                  f"unspecified order of evaluation", m.node)


def _subtree(n) -> set:
    stack, seen = [n], set()
    while stack:
        x = stack.pop()
        seen.add(id(x))
        stack.extend(child for _, child in x.children())
    return seen


# ---------------------------------------------------------------------------------------------
# Statements around hoisted side effects
# ---------------------------------------------------------------------------------------------
@dataclass
class Hoisted:
    """The statements split out of one full expression: prefix effects and assignments run
    before the statement using its value, postfix ++/-- after it."""
    before: list = field(default_factory=list)
    after: list = field(default_factory=list)


def with_after_effects(after: list, block: Node) -> Node:
    """The block run once the condition that had postfix effects is decided."""
    if not after:
        return block
    return Node("block", tuple(after) + block.kids, block.ann)


def guarded_loop_body(before: list, cond: Node, after: list, body: Node) -> Node:
    """The body of `for (;;)` / `while (1)` standing for a loop whose condition has side
    effects: they run at the top of every trip, then the test leaves the loop."""
    leave = mk("if", mk("not", cond), mk("block", *after, mk("exit")), None)
    return Node("block", tuple(before) + (leave,) + tuple(after) + body.kids, body.ann)
