"""C enumerations: the integer value of each enumerator, and the int type an enum tag names.

An enumerator without a value is the previous one plus one (the first is 0); a value is an
integer constant expression that may use earlier enumerators. The symbol tables, the zones
and the interpreter all take enumerators as named integer constants from here.
"""
from __future__ import annotations

from typing import Callable

from .il import Node, mk

__all__ = ["ENUM_TYPE", "ENUM_OPS", "enumerator_values", "int_constant"]

ENUM_OPS = frozenset(("enumDef", "typedefEnum"))
ENUM_TYPE = mk("type", "integer", 4, None)  # the type of an enumerator and of an enum variable


def _trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


_BINARY = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
    "div": lambda a, b: _trunc_div(a, b) if b else None,
    "mod": lambda a, b: a - b * _trunc_div(a, b) if b else None,
    "lShift": lambda a, b: a << b if b >= 0 else None, "rShift": lambda a, b: a >> b if b >= 0 else None,
    "bitAnd": lambda a, b: a & b, "bitOr": lambda a, b: a | b, "bitXor": lambda a, b: a ^ b,
}
_UNARY = {"neg": lambda a: -a, "pos": lambda a: a, "bitNot": lambda a: ~a}


def int_constant(e: Node | None, lookup: Callable[[str], "int | None"], depth: int = 0) -> int | None:
    """The value of a C integer constant expression, names resolved by `lookup`; None when
    it is not one."""
    if e is None or depth > 50:
        return None
    op = e.op
    if op == "intCst":
        return e.kids[0]
    if op == "ident":
        return lookup(e.kids[0])
    if op == "cast":
        return int_constant(e.kids[1], lookup, depth + 1)
    if op in _UNARY:
        a = int_constant(e.kids[0], lookup, depth + 1)
        return None if a is None else _UNARY[op](a)
    if op in _BINARY:
        a = int_constant(e.kids[0], lookup, depth + 1)
        b = int_constant(e.kids[1], lookup, depth + 1)
        return None if a is None or b is None else _BINARY[op](a, b)
    return None


def enumerator_values(enum: Node, lookup: Callable[[str], "int | None"]) -> list[tuple[str, int | None]]:
    """(name, value) of each enumerator of an enumDef / typedefEnum; a value that is no
    constant expression is None (and so are the implicit ones after it)."""
    out, local = [], {}
    previous: int | None = -1
    for item in enum.kids[1]:
        name, value = item.kids
        if value is None:
            v = None if previous is None else previous + 1
        else:
            v = int_constant(value, lambda n: local[n] if n in local else lookup(n))
        out.append((name, v))
        local[name] = v
        previous = v
    return out
