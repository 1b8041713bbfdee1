"""The AD stack of adjoint code, as the runtime has it (backends/runtime/, Tapenade's API):
the forward sweep pushes values and branches, the backward sweep pops them. Generated code
calls `pushReal8(x)` / `popReal8(&x)` in C and `CALL PUSHREAL8(x)` / `CALL POPREAL8(x)` in
Fortran; when the file defines no procedure of that name, the interpreter runs it here, so
adjoints run without a compiler.

Every entry keeps its type: a pop of another type, or from an empty stack, is an error of
the generated code, not a value read from the wrong place. `it.ad_stack` counts the bytes
pushed and the peak size, as the runtime does.
"""
from __future__ import annotations

import re

import numpy as np

from ..il import Node
from . import places
from .values import err

# Tapenade's routine names: push/pop/look of Real4, Real8, Integer4, Integer8, Boolean, ControlNb
# and the arrays' variants of the numbers (pushReal8Array(a, n): n elements)
_ROUTINE = re.compile(r"^(push|pop|look)(real4|real8|integer4|integer8|boolean|control[1-8]b)$"
                      r"|^(push|pop|look)(real4|real8|integer4|integer8)array$")
_BYTES = {"real4": 4, "real8": 8, "integer4": 4, "integer8": 8, "boolean": 4}


class ADStack:
    """The entries (type, value), the bytes pushed in all and the peak bytes on the stack."""

    def __init__(self):
        self.entries: list = []
        self.size = 0
        self.pushed_bytes = 0
        self.peak_bytes = 0

    def push(self, kind: str, value) -> None:
        size = _BYTES.get(kind.removesuffix("array"), 1) * max(1, np.size(value))
        self.entries.append((kind, value, size))
        self.size += size
        self.pushed_bytes += size
        self.peak_bytes = max(self.peak_bytes, self.size)

    def top(self, kind: str, node: Node, name: str):
        if not self.entries:
            raise err(node, f"{name}: the AD stack is empty")
        found = self.entries[-1][0]
        if found != kind:
            raise err(node, f"{name}: the top of the AD stack holds {found}, not {kind}")
        return self.entries[-1][1]

    def pop(self, kind: str, node: Node, name: str):
        value = self.top(kind, node, name)
        self.size -= self.entries.pop()[2]
        return value


def stack_routine(it, name: str) -> bool:
    """A call of name runs the AD stack: no procedure of the file has that name."""
    return name not in it.procs and _ROUTINE.match(name.lower()) is not None


def run(it, node: Node):
    """push(x) / pop(x) (C: pop(&x)) / look(x): one argument, the value or the place; the
    arrays' variants take the array (C: its address) and its number of elements, which the
    pop checks against the pushed entry."""
    match = _ROUTINE.match(node.name.lower())
    verb, kind = match.group(1) or match.group(3), match.group(2) or match.group(4)
    array = match.group(3) is not None
    if len(node.args) != 1 + array:
        raise err(node, f"{node.name} takes {2 if array else 1} argument{'s' if array else ''}")
    arg = node.args[0]
    count = int(it.eval(node.args[1])) if array else None
    if verb == "push":
        value = np.array(it.eval(arg), copy=True)
        if array and value.size != count:
            raise err(node, f"{node.name}: {count} elements said, the array has {value.size}")
        it.ad_stack.push(kind + "array" * array, value if array else value[()])
        return None
    if it.is_c and arg.op != "address" and not array:
        raise err(node, f"{node.name} takes the address of the variable it restores")
    entry = kind + "array" * array
    value = it.ad_stack.pop(entry, node, node.name) if verb == "pop" else it.ad_stack.top(entry, node, node.name)
    if array and np.size(value) != count:
        raise err(node, f"{node.name}: {count} elements asked, the entry holds {np.size(value)}")
    places.store(it, arg.kids[0] if it.is_c and arg.op == "address" else arg, value, node)
    return None
