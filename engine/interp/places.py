"""References in the IL interpreter: the place a variable reference denotes, and assignment.

A place is (container, key) with container[key] reading or writing it: a Fortran reference
gives a numpy array and a key of subscripts (0-based, bounds checked) or slices (sections), a
component of an array of records gives ComponentPlaces; a C reference gives a buffer and an
offset, or a row (CArr) of a multi-dimensional array. Fortran character substrings are places
too.
"""
from __future__ import annotations

from math import prod

import numpy as np

from ..symbols import used_name
from . import frames, memory
from .values import CArr, ComponentPlaces, FArr, Ptr, Record, UNASSOCIATED, err, is_records, trunc_div


def store(it, lhs, value, node):
    """Assign an evaluated value to the reference lhs (node: the statement, for errors)."""
    if it.is_c:
        container, key = c_place(it, lhs)
        return c_store(it, container, key, value, node)
    if lhs.op == "ident":
        b = frames.binding(it, lhs.name, node=lhs)
        if isinstance(b, FArr):
            assign_whole_array(it, b, value, node)
            return None
        if b is UNASSOCIATED:
            raise err(node, f"pointer {lhs.name} is not associated")
        memory.store_cell(it, b, (), value)
        return None
    if lhs.op == "arrayAccess" and is_substring(it, lhs):
        text, lo, hi = substring(it, lhs)
        frames.binding(it, lhs.base.name)[()] = text[:lo] + str(value)[:hi - lo].ljust(hi - lo) + text[hi:]
        return None
    container, key = f_place(it, lhs)
    if isinstance(container, FArr):
        assign_whole_array(it, container, value, node)
    elif container.dtype == object:
        if key is Ellipsis or any(type(k) is slice for k in key):
            target = container[key]
            for idx in np.ndindex(target.shape):
                v = value[idx] if isinstance(value, np.ndarray) else value
                target[idx] = v.copy() if isinstance(v, Record) else v
        else:
            memory.store_cell(it, container, key, value)
    else:
        container[key] = value
    return None


def c_store(it, container, key, value, node):
    """Store value into the C place (container, key) found by c_place."""
    if isinstance(container, CArr):
        raise err(node, "assignment to an array")
    if container.dtype == object or isinstance(value, (Record, tuple)):
        memory.store_cell(it, container, key, value)
    else:
        if isinstance(value, (Ptr, CArr)):
            raise err(node, "pointer assigned to a number")
        container[key] = value
    return None


def assign_whole_array(it, b: FArr, value, node):
    if b.data is None:  # Fortran 2003: assignment allocates an unallocated allocatable
        if not isinstance(value, np.ndarray):
            raise err(node, "assignment of a scalar to an unallocated array")
        b.data = np.asfortranarray(value).copy(order="F")
        b.lb = (1,) * value.ndim
        return
    if isinstance(value, np.ndarray) and value.shape != b.data.shape:
        raise err(node, f"array shapes {value.shape} and {b.data.shape} do not conform")
    if b.data.dtype == object:
        for idx in np.ndindex(b.data.shape):
            v = value[idx] if isinstance(value, np.ndarray) else value
            b.data[idx] = v.copy() if isinstance(v, Record) else v
    else:
        b.data[...] = value


def is_pointer(it, target):
    spec = f_spec_of(it, target)
    return "pointer" in spec.attrs


def f_spec_of(it, target):
    if target.op == "ident":
        f = it.frame
        while f is not None:
            if target.name in f.info.specs:
                return f.info.specs[target.name]
            for module, only, renames in f.info.uses:
                m = frames.module_frame(it, module).info
                remote = used_name(only, renames, target.name)
                if remote in m.specs:
                    return m.specs[remote]
            f = f.host
    if target.op == "fieldAccess":
        rec = it.eval(target.base)
        for spec in it._record_fields.get(rec.tname, ()):
            if spec.name == target.field:
                return spec
    raise err(target, "cannot find the declaration of the allocated object")


def f_binding_of(it, target):
    if target.op == "ident":
        return frames.binding(it, target.name, node=target)
    if target.op == "fieldAccess":
        return field_of(it, it.eval(target.base), target)
    raise err(target, f"cannot allocate {target.op}")


def is_substring(it, node):
    base = node.kids[0]
    if base.op != "ident" or len(node.kids[1]) != 1 or node.kids[1][0].op != "arrayTriplet":
        return False
    b = frames.binding(it, base.name, node=base)
    return type(b) is np.ndarray and b.dtype == object and isinstance(b[()], str)


def substring(it, node):
    """(text, start, stop) of a character substring s(lo:hi), as a Python slice."""
    text = it.eval(node.kids[0])
    t = node.kids[1][0]
    lo = 1 if t.lo is None else int(it.eval(t.lo))
    hi = len(text) if t.hi is None else int(it.eval(t.hi))
    if t.stride is not None or lo < 1 or hi > len(text):
        raise err(node, f"substring ({lo}:{hi}) out of range of a string of length {len(text)}")
    return text, lo - 1, max(lo - 1, hi)


def field_of(it, rec, node):
    if isinstance(rec, np.ndarray) and rec.dtype == object and not it.is_c:
        # a component of an array of records: the array of the components' values
        out = [field_of(it, r, node) for r in rec.ravel(order="F")]
        vals = [b[()] if isinstance(b, np.ndarray) else b for b in out]
        return np.array(vals).reshape(rec.shape, order="F")
    if not isinstance(rec, Record):
        raise err(node, f"field {node.field} of a non-record value")
    b = rec.fields.get(node.field)
    if b is None:
        raise err(node, f"{rec.tname} has no field {node.field!r}")
    return b


def f_place(it, node):
    """(container, key) of a Fortran variable reference; container[key] reads or writes it."""
    op = node.op
    if op == "ident":
        b = frames.binding(it, node.name, node=node)
        if isinstance(b, FArr):
            if b.data is None:
                raise err(node, f"array {node.name} is not allocated")
            return b.data, Ellipsis
        return b, ()
    if op == "fieldAccess":
        rec = it.eval(node.base)
        if is_records(rec):  # ps%mass: the component in every record
            return component_places(it, rec, node), ()
        b = field_of(it, rec, node)
        if isinstance(b, FArr):
            return b.data, Ellipsis
        return b, ()
    if op == "arrayAccess":
        base = node.base
        if base.op == "ident":
            b = frames.binding(it, base.name, node=base)
        elif base.op == "fieldAccess":
            rec = it.eval(base.base)
            if is_records(rec):  # cd%p%x(nd): the element of the component in every record
                return component_places(it, rec, base, node), ()
            b = field_of(it, rec, base)
        else:
            raise err(node, f"indexing of {base.op}")
        if type(b) is not FArr:
            if isinstance(b, np.ndarray) and b.dtype == object and isinstance(b[()], str):
                raise err(node, "character substrings are not supported by the interpreter")
            raise err(node, f"{base.kids[0]} is not an array")
        data = b.data
        if data is None:
            raise err(node, "array is not allocated")
        return data, f_key(it, node, data.shape, b.lb)
    if op == "deref":
        raise err(node, "deref in Fortran")
    raise err(node, f"{op} is not a variable")


def component_places(it, records, field, indexed=None) -> ComponentPlaces:
    """The places of component field.field of each record (indexed: the arrayAccess of
    field whose element is meant, `x(nd)` of `p%x(nd)`)."""
    cells = []
    for idx in np.ndindex(records.shape):
        b = field_of(it, records[idx], field)
        if indexed is None:
            cells.append((b.data, Ellipsis) if isinstance(b, FArr) else (b, ()))
        elif type(b) is FArr and b.data is not None:
            cells.append((b.data, f_key(it, indexed, b.data.shape, b.lb)))
        else:
            raise err(indexed, f"component {field.field} is not an allocated array")
    return ComponentPlaces(cells, records.shape)


def f_key(it, node, shape, lb):
    idx = node.kids[1]
    if len(idx) != len(shape):
        raise err(node, f"{len(idx)} subscripts for an array of rank {len(shape)}")
    key = []
    for d, i in enumerate(idx):
        if i.op == "arrayTriplet":
            key.append(f_slice(it, i, lb[d], shape[d]))
            continue
        v = it.eval(i)
        if isinstance(v, np.ndarray):
            k = v.astype(np.int64) - lb[d]
            if k.size and (k.min() < 0 or k.max() >= shape[d]):
                raise err(node, "vector subscript out of bounds")
            key.append(k)
            continue
        k = int(v) - lb[d]
        if not 0 <= k < shape[d]:
            raise err(node, f"subscript {int(v)} out of bounds {lb[d]}:{lb[d] + shape[d] - 1}")
        key.append(k)
    return tuple(key)


def f_slice(it, t, lb, extent):
    lo, hi, st = t.kids
    lo_v = lb if lo is None else int(it.eval(lo))
    hi_v = lb + extent - 1 if hi is None else int(it.eval(hi))
    st_v = 1 if st is None else int(it.eval(st))
    if st_v == 0:
        raise err(t, "array section with a zero stride")
    start = lo_v - lb
    n = max(0, trunc_div(hi_v - lo_v + st_v, st_v))
    if n == 0:
        return slice(0, 0)
    last = start + (n - 1) * st_v
    if not (0 <= start < extent and 0 <= last < extent):
        raise err(t, "array section out of bounds")
    stop = last + (1 if st_v > 0 else -1)
    return slice(start, None if stop < 0 else stop, st_v)


def c_place(it, node):
    op = node.op
    if op == "ident":
        b = it.frame.vars.get(node.name)
        if b is None:
            b = frames.binding(it, node.name, node=node)
        return (b, ()) if type(b) is np.ndarray else (b, None)
    if op == "arrayAccess":
        place = c_index(it, node)
        return place if type(place) is tuple else (place, None)
    if op == "deref":
        p = it.eval(node.expr)
        if isinstance(p, CArr):
            p = Ptr(p.buf, p.off)
        if type(p) is not Ptr:
            raise err(node, "dereference of a null or non-pointer value")
        if not 0 <= p.off < len(p.buf):
            raise err(node, "dereference out of bounds")
        return p.buf, p.off
    if op == "fieldAccess":
        b = field_of(it, it.eval(node.base), node)
        return (b, ()) if type(b) is np.ndarray else (b, None)
    if op == "cast":
        return c_place(it, node.expr)
    raise err(node, f"{op} is not assignable")


def c_index(it, node):
    """C a[i]: an element place (buf, k) or, for a row of a multi-dimensional array, a CArr."""
    base = it.eval(node.kids[0])
    idx = node.kids[1]
    if len(idx) != 1:
        raise err(node, "C array access with several indices")
    i = int(it.eval(idx[0]))
    if type(base) is CArr:
        return c_row(it, base, i, node)
    if type(base) is Ptr:
        k = base.off + i
        if not 0 <= k < len(base.buf):
            raise err(node, "pointer index out of bounds")
        return base.buf, k
    raise err(node, "indexing of a non-array value")


def c_row(it, arr: CArr, i, node):
    dims = arr.dims
    if dims[0] is not None and not 0 <= i < dims[0]:
        raise err(node, f"index {i} out of bounds 0:{dims[0] - 1}")
    if len(dims) == 1:
        k = arr.off + i
        if not 0 <= k < len(arr.buf):
            raise err(node, "index out of bounds")
        return arr.buf, k
    return CArr(arr.buf, arr.off + i * prod(dims[1:]), dims[1:])
