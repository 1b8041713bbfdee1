"""Run-time values of the IL interpreter: the storage model, control signals and errors.

Values are numpy scalars (np.int32, np.float32, np.float64, ..., np.bool_) so that single
precision and integer arithmetic behave like the compiled code; arrays are numpy arrays.
One word per kind of variable binding:
- a scalar variable is a 0-d numpy array (a "cell"); references alias it, C `&x` views it;
- a Fortran array is an `FArr`: a column-major numpy view plus its lower bounds (data None
  while an allocatable is unallocated or a pointer unassociated);
- a C array is a `CArr`: a flat buffer, an offset and the dimensions (row-major);
- a C pointer value is a `Ptr`: a flat buffer and an offset (NULL is None);
- a struct / derived-type value is a `Record` of field bindings; arrays of them and pointer
  variables live in numpy object arrays.
Statements return None or a control signal (EXIT, CYCLE, RETURN, a `Goto`), which blocks and
loops consume. Every other interpreter module builds on this one, which imports none of them.
"""
from __future__ import annotations

from math import prod

import numpy as np

from ..il import Node
from .intrinsics import promote

class InterpError(Exception):
    """An IL construct the interpreter does not support, or a run-time fault (bounds, NULL)."""


class KernelError(InterpError):
    """A CUDA kernel run that has no meaning: a data race, or a barrier not reached by all the
    threads of a block (cuda.py)."""


class ProgramStop(Exception):
    """Fortran STOP: ends the whole run (Interpreter.call records it in `stopped`)."""

    def __init__(self, code):
        super().__init__(f"STOP {code}")
        self.code = code


# --- run-time objects ---------------------------------------------------------------------------

class FArr:
    """A Fortran array variable: column-major data (a numpy view) and lower bounds."""
    __slots__ = ("data", "lb")

    def __init__(self, data, lb):
        self.data = data
        self.lb = lb


class CArr:
    """A C array (or row of one): flat buffer, offset of the first element, dimensions."""
    __slots__ = ("buf", "off", "dims")

    def __init__(self, buf, off, dims):
        self.buf, self.off, self.dims = buf, off, dims


class Ptr:
    """A C pointer value: a flat numpy buffer and an element offset into it."""
    __slots__ = ("buf", "off")

    def __init__(self, buf, off):
        self.buf, self.off = buf, off

    def __repr__(self):
        return f"Ptr(+{self.off} of {len(self.buf)})"


class Record:
    """A struct / derived-type value: field name -> binding (cell, FArr or CArr)."""
    __slots__ = ("tname", "fields")

    def __init__(self, tname, fields):
        self.tname, self.fields = tname, fields

    def copy(self) -> "Record":
        return Record(self.tname, {k: _copy_binding(b) for k, b in self.fields.items()})

    def __repr__(self):
        return f"{self.tname}({', '.join(f'{k}={_show(b)}' for k, b in self.fields.items())})"


class ComponentPlaces:
    """The places of one component (or one element of an array component) across an array
    of Fortran records: `ps%mass`, `cd%p%x(nd)` (Fortran's one part with a rank is the
    array of records). places[...] gathers their values into an array of the records' shape,
    places[...] = v scatters v (or a scalar) into them. cells: (container, key) per record, in
    np.ndindex order of shape."""
    __slots__ = ("cells", "shape")

    def __init__(self, cells, shape):
        self.cells, self.shape = cells, shape

    @property
    def dtype(self):
        return self.cells[0][0].dtype if self.cells else np.dtype(np.float64)

    def __getitem__(self, _key):
        return np.array([c[k] for c, k in self.cells], dtype=self.dtype).reshape(self.shape)

    def __setitem__(self, _key, value):
        for idx, (c, k) in zip(np.ndindex(self.shape), self.cells):
            c[k] = value[idx] if isinstance(value, np.ndarray) else value


class UnionRecord(Record):
    """A C union value: every field is a typed view of one shared byte buffer, so reading
    a field after writing another reinterprets the bytes as C does."""
    __slots__ = ("raw", "layout")

    def __init__(self, tname, layout, raw):
        self.raw, self.layout = raw, layout  # layout: (field, dtype, dims or None) in order
        super().__init__(tname, {name: _bytes_view(raw, dtype, dims) for name, dtype, dims in layout})

    def copy(self) -> "UnionRecord":
        return UnionRecord(self.tname, self.layout, self.raw.copy())




def _bytes_view(raw, dtype, dims):
    """A cell (dims None) or a CArr over the first bytes of a union's buffer."""
    n = prod(dims) if dims else 1
    view = raw[:n * dtype.itemsize].view(dtype)
    return CArr(view, 0, dims) if dims else view.reshape(())



def _copy_binding(b):
    if isinstance(b, np.ndarray):
        if b.dtype == object:
            return _object_copy(b)
        return b.copy(order="K")
    if isinstance(b, FArr):
        return FArr(None if b.data is None else _object_copy(b.data) if b.data.dtype == object
                    else b.data.copy(order="F"), b.lb)
    if isinstance(b, CArr):
        n = prod(b.dims)
        return CArr(_object_copy(b.buf[b.off:b.off + n]), 0, b.dims)
    return b


def _object_copy(a):
    if a.dtype != object:
        return a.copy(order="K")
    out = np.empty(a.shape, dtype=object, order="F")
    for idx in np.ndindex(a.shape):
        v = a[idx]
        out[idx] = v.copy() if isinstance(v, Record) else v
    return out


def _show(b):
    if isinstance(b, np.ndarray) and b.ndim == 0:
        return repr(b[()])
    if isinstance(b, FArr):
        return repr(b.data)
    return repr(b)



UNASSOCIATED = object()  # binding of a Fortran scalar pointer not associated with a target
ABSENT = object()        # the actual argument of an absent OPTIONAL dummy passed on
EXIT, CYCLE, RETURN = "exit", "cycle", "return"


class Goto:
    """The signal of `goto label`: the enclosing blocks look the label up."""
    __slots__ = ("label",)

    def __init__(self, label):
        self.label = label


def err(node, msg):
    """An InterpError about `node`, with its line when it has one."""
    line = node.ann.get("line") if isinstance(node, Node) else None
    error = InterpError(f"{msg} (line {line})" if line is not None else msg)
    error.line = line
    return error


def truth(v):
    """The truth of a condition's value (a C pointer is true unless NULL)."""
    if type(v) is Ptr:
        return True
    if v is None:
        return False
    if isinstance(v, np.ndarray):
        raise InterpError("array used as a condition")
    return bool(v)


def concat_values(vals):
    """The values (scalars, arrays, implied DO expansions) one after the other, as one 1-d
    array of their common type; empty expansions do not take part in the type."""
    parts = [np.asarray(v).ravel(order="F") for v in vals]
    parts = [p for p in parts if p.size] or parts[:1]
    if not parts:
        return np.zeros(0, dtype=np.float32)
    dt = parts[0].dtype
    for p in parts[1:]:
        dt = promote(dt, p.dtype) if dt.kind in "biufc" and p.dtype.kind in "biufc" else np.dtype(object)
    return np.concatenate([p.astype(dt) for p in parts])


def is_records(value) -> bool:
    """An array of Fortran records (derived-type values)."""
    return (isinstance(value, np.ndarray) and value.dtype == object and value.ndim > 0 and value.size > 0
            and isinstance(value.flat[0], Record))



def trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q



def flatten_c(value):
    if isinstance(value, tuple):
        out = []
        for v in value:
            out.extend(flatten_c(v))
        return out
    if isinstance(value, np.ndarray):
        return list(value.ravel())
    return [value]




def render(v):
    if isinstance(v, np.ndarray):
        return " ".join(render(x) for x in v.ravel(order="F"))
    if isinstance(v, (np.bool_, bool)):
        return "T" if v else "F"
    if isinstance(v, np.generic):
        return repr(v.item()) if v.dtype.kind == "f" else str(v.item())
    return str(v)


