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
from . import memory, places
from .values import err

# Tapenade's routine names: push/pop/look of Real4, Real8, Integer4, Integer8, Boolean, ControlNb, Pointer8
_ROUTINE = re.compile(r"^(push|pop|look)(real4|real8|integer4|integer8|boolean|character|control[1-8]b|pointer8)"
                      r"(array)?$")
_BYTES = {"real4": 4, "real8": 8, "integer4": 4, "integer8": 8, "boolean": 4, "character": 1, "pointer8": 8}


class ADStack:
    """The entries (type, value), the bytes pushed in all and the peak bytes on the stack."""

    def __init__(self):
        self.entries: list = []
        self.size = 0
        self.pushed_bytes = 0
        self.peak_bytes = 0

    def push(self, kind: str, value, size: int | None = None) -> None:
        size = _BYTES.get(kind, 1) if size is None else size
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
    """push(x) / pop(x) (C: pop(&x)) / look(x): one argument, the value or the place."""
    verb, kind, array = _ROUTINE.match(node.name.lower()).groups()
    if array:
        return _run_array(it, node, verb, kind)
    if len(node.args) != 1:
        raise err(node, f"{node.name} takes one argument")
    arg = node.args[0]
    if it.is_c and kind == "pointer8" and arg.op == "cast":   # popPointer8((void **)&p)
        arg = arg.kids[1]
    if verb == "push":
        it.ad_stack.push(kind, np.array(it.eval(arg), copy=True)[()])
        return None
    if it.is_c and arg.op != "address":
        raise err(node, f"{node.name} takes the address of the variable it restores")
    value = it.ad_stack.pop(kind, node, node.name) if verb == "pop" else it.ad_stack.top(kind, node, node.name)
    places.store(it, arg.kids[0] if it.is_c else arg, value, node)
    return None


def _run_array(it, node: Node, verb: str, kind: str):
    """push/pop/look of n elements: pushReal8Array(a, n) in C, the n elements from where the
    pointer a points; CALL PUSHREAL8ARRAY(a, n) in Fortran, the array or section a, of n
    elements. One entry of n*size bytes: a pop of another length is an error."""
    if len(node.args) != 2:
        raise err(node, f"{node.name} takes the array and its length")
    arg, n = node.args[0], int(it.eval(node.args[1]))
    if it.is_c:
        cells = _array_cells(it, arg, node)
        if n < 0 or n > cells.size:
            raise err(node, f"{node.name}: length {n} for an array of {cells.size} elements")
        cells = cells[:n]
    if verb == "push":
        value = cells.copy() if it.is_c else np.array(it.eval(arg), copy=True)
        if kind == "character" and not it.is_c:   # CHARACTER(len=n) s: one string of n characters
            value = np.array(list(str(value[()]).ljust(n)[:n]), dtype=object)
        if value.size != n:
            raise err(node, f"{node.name}: {n} elements said, the array has {value.size}")
        it.ad_stack.push(kind + "array", value, n * _BYTES[kind])
        return None
    top = it.ad_stack.top(kind + "array", node, node.name)
    if top.size != n:
        raise err(node, f"{node.name}: the top of the AD stack holds {top.size} elements, not {n}")
    if verb == "pop":
        it.ad_stack.pop(kind + "array", node, node.name)
    if it.is_c:
        cells[...] = top
    else:
        places.store(it, arg, "".join(top) if kind == "character" else top, node)
    return None


def _array_cells(it, arg: Node, node: Node):
    """The flat memory (a numpy view) from where the C pointer argument points."""
    ptr = memory.as_ptr(it.eval(arg), node.name)
    return ptr.buf[ptr.off:]
