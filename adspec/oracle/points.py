"""The shapes of a procedure's formals and the random points it is checked at.

A formal's shape comes from its declaration (Fortran x(n), C a[3]) evaluated with the integer
arguments' values, else from the arguments file (`shape`), else, for a C pointer the procedure
only dereferences, one element. Integers are never drawn: their values come from the arguments
file (`[proc.arg]`, then `[arg]`), for a callee also from the head's argument of the same name.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from adspec.engine.errors import SourceError

from .argsfile import Args, evaluate_dims, lower_bounds, size_of
from .harness import TYPES, Arg
from .prototype import Procedure


INTEGERS = ("i4", "i8", "l4")


class NotCheckable(Exception):
    """A callee whose sizes are not known: the bottom-up check skips it and says why."""


@dataclass(frozen=True)
class Layout:
    """One procedure's formals resolved: harness Args (flat arrays), lower bounds, integer values."""
    proc: Procedure
    args: tuple          # of harness Arg, in the primal's order
    lower: dict          # formal -> lower bounds of its dims (source indices)
    shapes: dict         # formal -> its shape (() for a scalar)
    integers: dict       # integer formal -> value (scalars) or values (arrays)
    fields: dict = None  # C struct formal -> ((field, offset, count), ...)

    def arg(self, name: str) -> Arg:
        return next(a for a in self.args if a.name == name)

    def index(self, name: str, flat: int) -> list:
        """Source-language indices of element `flat` (memory order) of formal `name`."""
        shape = self.shapes.get(name, ())
        if self.fields and name in self.fields:
            field, offset, count = next(f for f in self.fields[name] if f[1] <= flat < f[1] + f[2])
            return [field] + ([flat - offset] if count > 1 else [])
        if not shape:
            return []
        order = "F" if self.proc.lang == "fortran" else "C"
        return [int(i) + lo for i, lo in zip(np.unravel_index(flat, shape, order=order), self.lower[name])]


def layout(proc: Procedure, args: Args, head: "Layout | None" = None, callee: bool = False) -> Layout:
    """The formals of `proc` resolved. For the head, a missing size is bad input (SourceError,
    pointing into the arguments file or the source); for a callee, NotCheckable."""
    def missing(message):
        if callee:
            return NotCheckable(message)
        return SourceError(message + f" (give it in the arguments file: `adspec check --init` writes a template)",
                           args.filename if args.text else proc.filename, None if args.text else proc.line)

    def unsupported(message):
        return NotCheckable(message) if callee else SourceError(message, proc.filename, proc.line)
    if proc.static:
        raise unsupported(f"{proc.name} is static: a driver cannot call it")
    if proc.result_type is not None and proc.result_type.startswith("other"):
        raise unsupported(f"{proc.name}: a result of type {proc.result_type[7:]} is not supported by adspec check yet")
    scope = proc.name if callee else None
    integers = {}
    for f in proc.formals:
        if f.type in INTEGERS and f.dims is None:
            value = args.value(f.name, scope)
            if f.pointer and isinstance(value, list):
                continue   # a C pointer to integers: an array
            if value is None and head is not None and f.name in head.integers:
                value = head.integers[f.name]
            if value is None:
                raise missing(f"{proc.name}: integer argument {f.name!r} needs a value ([{_table(f.name, scope)}] value = ...)")
            if not isinstance(value, int) or isinstance(value, bool):
                raise args.error(f"{f.name}: value must be an integer, got {value!r}", args.table(f.name, scope)[1],
                                 "value")
            integers[f.name] = value
    harness_args, lower, shapes, struct_fields = [], {}, {}, {}
    for f in proc.formals:
        if f.type.startswith("other"):
            raise unsupported(f"{proc.name}: argument {f.name!r} of type {f.type[7:]} is not supported by adspec check yet")
        shape = args.shape(f.name, integers, scope)
        if f.fields:   # a struct of doubles: one array of them
            offset, layout_of = 0, []
            for field, count in f.fields:
                layout_of.append((field, offset, count))
                offset += count
            struct_fields[f.name] = tuple(layout_of)
            shape = (offset,)
        int_array = f.type in INTEGERS and f.name not in integers
        if shape is None and int_array and f.pointer and isinstance(args.value(f.name, scope), list):
            shape = (len(args.value(f.name, scope)),)
        if shape is None and head is not None and f.name in head.shapes and callee and not f.dims:
            shape = head.shapes[f.name] or None
        if shape is None and f.dims:
            shape = evaluate_dims(f.dims, integers, proc.lang)
            if shape is None:
                raise missing(f"{proc.name}: the size of array {f.name!r} is not known from its declaration "
                              f"([{_table(f.name, scope)}] shape = [...])")
        if shape is None and f.pointer and f.name in proc.indexed:
            raise missing(f"{proc.name}: the size of C pointer argument {f.name!r} is not known "
                          f"([{_table(f.name, scope)}] shape = [...])")
        lower[f.name] = lower_bounds(f.dims, integers, proc.lang) if f.dims and shape and len(f.dims) == len(shape) \
            else tuple(0 if proc.lang == "c" else 1 for _ in shape or ())
        shapes[f.name] = tuple(shape or ())
        harness_args.append(Arg(f.name, f.type, tuple(shape) if shape else None, bool(f.pointer) and not shape))
        if int_array:
            values = args.value(f.name, scope)
            n = size_of(shape)
            if not isinstance(values, list) or len(values) != n:
                raise missing(f"{proc.name}: integer array {f.name!r} needs its {n} values "
                              f"([{_table(f.name, scope)}] value = [...])")
            integers[f.name] = values
    return Layout(proc, tuple(harness_args), lower, shapes, integers, struct_fields)


def _table(name, scope):
    return f"{scope}.{name}" if scope else name


def draw_point(lay: Layout, args: Args, rng, callee: bool = False) -> dict:
    """Random values of the formals (flat arrays in memory order; 0-d for scalars)."""
    values = {}
    scope = lay.proc.name if callee else None
    for a in lay.args:
        dtype = TYPES[a.type][0]
        if a.name in lay.integers:
            values[a.name] = np.asarray(lay.integers[a.name], dtype=dtype).reshape(-1 if a.dims else ())
        elif args.value(a.name, scope) is not None:   # a real given a fixed value
            values[a.name] = np.resize(np.asarray(args.value(a.name, scope), dtype=dtype), a.size).reshape(
                -1 if a.dims else ())
        else:
            low, high = args.range(a.name, scope)
            drawn = rng.uniform(low, high, a.size).astype(dtype)
            values[a.name] = drawn if a.dims else drawn.reshape(())
    return values
