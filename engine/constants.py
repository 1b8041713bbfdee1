"""Integer constant expressions of the IL (array bounds, kinds, PARAMETERs, C enumerators):
their value, or None when the expression is not a constant. One evaluator for the front ends,
the zones and the enums; each says how a name is resolved."""
from __future__ import annotations

from typing import Callable

from .il import Node

__all__ = ["int_constant"]


def _trunc_div(a: int, b: int) -> int:
    """Integer division truncating toward zero, as in Fortran and C."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


_BINARY = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
    "div": lambda a, b: _trunc_div(a, b) if b else None,
    "mod": lambda a, b: a - b * _trunc_div(a, b) if b else None,
    "power": lambda a, b: a ** b if b >= 0 else None,
    "lShift": lambda a, b: a << b if b >= 0 else None, "rShift": lambda a, b: a >> b if b >= 0 else None,
    "bitAnd": lambda a, b: a & b, "bitOr": lambda a, b: a | b, "bitXor": lambda a, b: a ^ b,
}
_UNARY = {"neg": lambda a: -a, "pos": lambda a: a, "bitNot": lambda a: ~a}
_MIN_MAX = {"min": min, "max": max}


def int_constant(e: Node | None, lookup: Callable[[str], "int | None"],
                 intrinsic: Callable[[str, tuple], "int | None"] | None = None, depth: int = 0) -> int | None:
    """The value of integer constant expression `e`; names are resolved by `lookup`, and
    intrinsics other than min/max by `intrinsic` (name, arguments) when given."""
    if e is None or depth > 50:
        return None
    op = e.op
    if op == "intCst":
        return e.kids[0]
    if op == "ident":
        return lookup(e.kids[0])
    if op == "cast":
        return int_constant(e.kids[1], lookup, intrinsic, depth + 1)
    if op in _UNARY:
        a = int_constant(e.kids[0], lookup, intrinsic, depth + 1)
        return None if a is None else _UNARY[op](a)
    if op in _BINARY:
        a = int_constant(e.kids[0], lookup, intrinsic, depth + 1)
        b = int_constant(e.kids[1], lookup, intrinsic, depth + 1) if a is not None else None
        return None if a is None or b is None else _BINARY[op](a, b)
    if op in ("intrinsic", "call"):
        name, args = e.kids
        if name in _MIN_MAX and args:
            values = [int_constant(a, lookup, intrinsic, depth + 1) for a in args]
            return None if None in values else _MIN_MAX[name](values)
        return intrinsic(name, args) if intrinsic is not None else None
    return None
