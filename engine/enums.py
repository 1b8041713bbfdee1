"""C enumerations: the integer value of each enumerator, and the int type an enum tag names.

An enumerator without a value is the previous one plus one (the first is 0); a value is an
integer constant expression that may use earlier enumerators. The symbol tables, the zones
and the interpreter all take enumerators as named integer constants from here.
"""
from __future__ import annotations

from typing import Callable

from .constants import int_constant
from .il import Node, mk

__all__ = ["ENUM_TYPE", "ENUM_OPS", "enumerator_values"]

ENUM_OPS = frozenset(("enumDef", "typedefEnum"))
ENUM_TYPE = mk("type", "integer", 4, None)  # the type of an enumerator and of an enum variable


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
