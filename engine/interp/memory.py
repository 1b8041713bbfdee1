"""Storage of the IL interpreter: creating variables, arrays, records, unions and COMMON
blocks, initializing them, storing into a cell, and the sizes C's sizeof sees.

The storage model is in values.py. A C declarator dim(None, n) declares n elements (hi is the
C count, as the C front end writes it); a Fortran COMMON member is a typed view of its block's
byte buffer at its sequence offset (storage association). Expressions met in declarations
(bounds, initial values) are evaluated through the interpreter (`it.eval`).
"""
from __future__ import annotations

from math import prod

import numpy as np

from ..il import Node
from .intrinsics import COMPLEX_KINDS, INT_KINDS, REAL_KINDS
from .complex_step import C128
from .scope import Frame, ScopeInfo, VarSpec, attr_word
from .values import CArr, FArr, InterpError, Ptr, Record, UNASSOCIATED, UnionRecord, _copy_binding, err, flatten_c

_COMMON_MIN_BYTES = 1 << 16  # room to spare: a later procedure may declare a block longer


def _bad_kind(type_node):
    raise err(type_node, f"kind {type_node.kind} of {type_node.base} is not supported")


def spec_type(it, spec: VarSpec, info: ScopeInfo):
    if spec.type is not None:
        return spec.type
    t = info.implicit_type(spec.name) if not it.is_c else None
    if t is None:
        raise err(spec.node, f"no type for {spec.name!r}")
    return t


def elem_kind(it, type_node: Node, ptr: int = 0):
    """(numpy dtype, factory of one object element or None) for a declared element type."""
    if ptr:
        return np.dtype(object), None
    op = type_node.op
    if op == "pointerType":
        return np.dtype(object), None
    if op == "typeRef":
        name = type_node.name
        tdef = it.types.get(name)  # before aliases: `typedef struct s {..} s;` names both
        if tdef is None:
            alias = it.aliases.get(name)
            if alias is None or alias == type_node:
                raise err(type_node, f"unknown type {name!r}")
            return elem_kind(it, alias)
        return np.dtype(object), lambda: new_record(it, tdef)
    base, kind = type_node.base, type_node.kind
    if base == "integer":
        return INT_KINDS.get(kind or 4) or _bad_kind(type_node), None
    if base == "real":
        dtype = REAL_KINDS.get(kind or 4) or _bad_kind(type_node)
        return (C128 if it.complex_step else dtype), None
    if base == "complex":
        if it.complex_step:
            raise err(type_node, "complex step on a program with complex variables is not supported")
        return COMPLEX_KINDS.get(kind or 4) or _bad_kind(type_node), None
    if base == "logical":
        return (np.dtype(np.int32) if it.is_c else np.dtype(np.bool_)), None
    if base == "character":
        if it.is_c:
            return np.dtype(np.int8), None
        blank = " " * char_len(it, type_node)
        return np.dtype(object), lambda: blank
    if base == "void":
        return np.dtype(object), None
    raise err(type_node, f"type {base} is not supported by the interpreter")


def char_len(it, type_node):
    n = type_node.len
    if n is None:
        return 1
    if n.op == "intCst":
        return n.value
    if n.op == "star":
        return 0  # len=*: takes the actual's length
    return int(eval_in(it, it.frame, n)) if it.frame is not None else 0


def new_array(it, shape, dtype, factory):
    if factory is None:
        if dtype == object:
            return np.full(shape, None, dtype=object, order="F")
        return np.zeros(shape, dtype=dtype, order="F")
    a = np.empty(shape, dtype=object, order="F")
    for idx in np.ndindex(*shape):
        a[idx] = factory()
    return a


def new_storage(it, spec: VarSpec, frame: Frame):
    dtype, factory = elem_kind(it, spec_type(it, spec, frame.info), spec.ptr)
    if spec.dims is None:
        if not it.is_c and ("pointer" in spec.attrs):
            return UNASSOCIATED
        return new_array(it, (), dtype, factory)
    if it.is_c:
        sizes = tuple(None if d.hi is None else int(eval_in(it, frame, d.hi)) for d in spec.dims)
        if sizes and sizes[0] is None:
            init = spec.init
            if init is None or init.op != "arrayConstructor":
                raise err(spec.node, f"array {spec.name} has no size")
            sizes = (len(init.items),) + sizes[1:]
        return CArr(new_array(it, (prod(sizes),), dtype, factory), 0, sizes)
    if "allocatable" in spec.attrs or "pointer" in spec.attrs or any(d.hi is None for d in spec.dims):
        return FArr(None, None)
    lb, shape = bounds(it, frame, spec.dims, spec.node)
    return FArr(new_array(it, shape, dtype, factory), lb)


def bounds(it, frame, dims, node, assumed_last=None):
    lbs, shape = [], []
    for k, d in enumerate(dims):
        lo = 1 if d.lo is None else int(eval_in(it, frame, d.lo))
        if d.hi is not None and d.hi.op == "star":
            if assumed_last is None:
                raise err(node, "assumed-size array needs an actual argument")
            hi = lo + assumed_last // max(1, prod(shape)) - 1
        else:
            hi = int(eval_in(it, frame, d.hi))
        lbs.append(lo)
        shape.append(max(0, hi - lo + 1))
    return tuple(lbs), tuple(shape)


def eval_in(it, frame, node):
    saved, it.frame = it.frame, frame
    try:
        return it.eval(node)
    finally:
        it.frame = saved


def initialize(it, b, spec: VarSpec, frame: Frame):
    value = eval_in(it, frame, spec.init)
    if isinstance(b, np.ndarray):
        store_cell(it, b, (), value)
    elif isinstance(b, FArr):
        b.data[...] = np.reshape(value, b.data.shape, order="F") if isinstance(value, np.ndarray) else value
    elif isinstance(b, CArr) and b.buf.dtype == object and isinstance(b.buf[b.off], Record):
        # an array of structs: the values go to the components in memory order, the rest is 0 (C)
        _fill_c((cell for rec in b.buf[b.off:b.off + prod(b.dims)] for cell in _leaf_cells(rec)), value)
    elif isinstance(b, CArr):
        flat = flatten_c(value)
        b.buf[b.off:b.off + len(flat)] = flat
    else:
        raise err(spec.node, f"cannot initialize {spec.name}")


def _fill_c(cells, value) -> None:
    """C's brace initialisation of records: the values go to the cells in order, the rest is 0."""
    flat = flatten_c(value)
    for k, (container, key) in enumerate(cells):
        container[key] = flat[k] if k < len(flat) else 0


def _leaf_cells(rec: Record):
    """(container, key) of each elementary component of a record, in memory order."""
    for binding in rec.fields.values():
        if isinstance(binding, CArr):
            for i in range(binding.off, binding.off + prod(binding.dims)):
                inner = binding.buf[i]
                yield from _leaf_cells(inner) if isinstance(inner, Record) else ((binding.buf, i),)
        elif isinstance(binding, np.ndarray) and binding.shape == () and isinstance(binding[()], Record):
            yield from _leaf_cells(binding[()])
        elif isinstance(binding, Record):
            yield from _leaf_cells(binding)
        else:
            yield binding, ()


def store_cell(it, container, key, value):
    if isinstance(value, Record):
        old = container[key]
        if it.is_c and isinstance(old, Record) and old.fields.keys() == value.fields.keys():
            _copy_into(it, old, value)  # C copies the values into the struct's own memory (views of it see them)
        else:
            container[key] = value.copy()
    elif isinstance(value, CArr):
        container[key] = Ptr(value.buf, value.off)
    elif isinstance(value, str) and container.dtype == object:
        old = container[key]
        n = len(old) if isinstance(old, str) and old else len(value)
        container[key] = value[:n].ljust(n)  # Fortran blank-pads to the declared length
    elif isinstance(value, tuple) and not any(isinstance(v, tuple) for v in value):
        # C brace initializer of a struct without inner braces ({0}): the values go to the
        # elementary components in memory order (nested structs too), the rest is 0
        _fill_c(_leaf_cells(container[key]), value)
    elif isinstance(value, tuple):  # C brace initializer of a struct
        rec = container[key]
        for field, v in zip(rec.fields, value):
            fb = rec.fields[field]
            if isinstance(fb, CArr):
                flat = flatten_c(v)
                fb.buf[fb.off:fb.off + len(flat)] = flat
            else:
                store_cell(it, fb, (), v)
    else:
        container[key] = value


def _copy_into(it, old: Record, new: Record):
    """The values of record new into the bindings of record old, field by field."""
    for name, binding in old.fields.items():
        source = new.fields[name]
        if isinstance(binding, CArr) and isinstance(source, CArr):
            count = prod(binding.dims)
            values = source.buf[source.off:source.off + count]
            if binding.buf.dtype == object:
                for i, v in enumerate(values):
                    store_cell(it, binding.buf, binding.off + i, v)
            else:
                binding.buf[binding.off:binding.off + count] = values
        elif isinstance(binding, np.ndarray) and binding.shape == () and isinstance(source, np.ndarray):
            store_cell(it, binding, (), source[()])
        else:
            old.fields[name] = _copy_binding(source)


def new_record(it, tdef: Node) -> Record:
    if tdef.style in ("union", "typedefUnion"):
        return new_union(it, tdef)
    fields = it._record_fields.get(tdef.name)
    if fields is None:
        fields = it._record_fields[tdef.name] = [
            VarSpec(decl.name, d.type, decl.dims, decl.init, decl.ptr,
                    frozenset(attr_word(a) for a in d.attrs), decl)
            for d in tdef.fields if d.op == "varDecl" for decl in d.declarators]
    # Fortran: the bounds of the components are constants seen where the type is (nbdirsmax
    # of a USEd module, in a vector T_diff): evaluated where the structure is created
    frame = it.globals or it.frame or Frame(ScopeInfo(Node("module", (tdef.name, (), ())), it.lang), None)
    rec = {}
    for spec in fields:
        b = new_storage(it, spec, frame)
        if spec.init is not None:
            initialize(it, b, spec, frame)
        rec[spec.name] = b
    return Record(tdef.name, rec)


def new_union(it, tdef: Node) -> UnionRecord:
    layout = it._record_fields.get(tdef.name)
    if layout is None:
        frame = it.globals or Frame(ScopeInfo(Node("module", (tdef.name, (), ())), it.lang), None)
        layout = []
        for d in tdef.fields:
            for decl in (d.declarators if d.op == "varDecl" else ()):
                dtype, factory = elem_kind(it, d.type, decl.ptr)
                if factory is not None or dtype == object:
                    raise err(d, f"union {tdef.name}: field {decl.name} is not a number")
                dims = None if decl.dims is None else tuple(int(eval_in(it, frame, x.hi)) for x in decl.dims)
                layout.append((decl.name, dtype, dims))
        it._record_fields[tdef.name] = layout
    align = max((dtype.itemsize for _, dtype, _ in layout), default=1)
    size = max((dtype.itemsize * (prod(dims) if dims else 1) for _, dtype, dims in layout), default=0)
    return UnionRecord(tdef.name, layout, np.zeros(-(-size // align) * align, dtype=np.uint8))


def common_binding(it, frame: Frame, spec: VarSpec):
    """A COMMON member: a typed view of the block's byte buffer at its sequence offset."""
    info = frame.info
    block, _ = info.commons[spec.name]
    layout = info.common_layout.get(block)
    if layout is None:
        layout, off = {}, 0
        for name in info.common_members[block]:
            s = info.specs[name]
            dtype, factory = elem_kind(it, spec_type(it, s, info), s.ptr)
            if factory is not None or dtype == object:
                raise err(s.node, f"COMMON member {name} of a derived or character type is not supported")
            lb, shape = bounds(it, frame, s.dims, s.node) if s.dims else (None, ())
            layout[name] = (off, dtype, lb, shape)
            off += dtype.itemsize * prod(shape)
        info.common_layout[block] = layout
    size = sum(d.itemsize * prod(sh) for _, d, _, sh in layout.values())
    buf = it._commons.get(block)
    if buf is None:
        # room to spare: a later procedure may declare the block longer (blank COMMON)
        buf = it._commons[block] = np.zeros(max(size, _COMMON_MIN_BYTES), dtype=np.uint8)
    elif len(buf) < size:
        raise err(spec.node, f"COMMON /{block}/ is declared longer here than where first used")
    off, dtype, lb, shape = layout[spec.name]
    view = buf[off:off + dtype.itemsize * prod(shape)].view(dtype)
    if lb is None:
        return view.reshape(())
    return FArr(view.reshape(shape, order="F"), lb)


def as_ptr(v, name=""):
    if isinstance(v, Ptr) or v is None:
        return v
    if isinstance(v, CArr):
        return Ptr(v.buf, v.off)
    if isinstance(v, np.ndarray):
        flat = v.ravel(order="K")
        if not np.shares_memory(flat, v) and v.size > 1:
            raise InterpError(f"argument {name}: a non-contiguous array cannot be passed by pointer")
        return Ptr(flat, 0)
    if isinstance(v, (int, np.integer)) and v == 0:
        return None
    raise InterpError(f"argument {name}: {type(v).__name__} given for a pointer")


def sizeof_type(it, t):
    dtype, factory = elem_kind(it, t)
    if factory is not None:
        return sizeof_elem(it, factory())
    return 8 if dtype == object else dtype.itemsize


def sizeof_elem(it, x):
    if isinstance(x, np.dtype):
        return 8 if x == object else x.itemsize
    if isinstance(x, UnionRecord):
        return len(x.raw)
    if isinstance(x, Record):
        return sum(sizeof_binding(it, b) for b in x.fields.values())
    return 8


def sizeof_binding(it, b):
    if isinstance(b, CArr):
        return prod(b.dims) * sizeof_elem(it, b.buf[0] if b.buf.dtype == object else b.buf.dtype)
    return sizeof_elem(it, b[()] if b.dtype == object else b.dtype)
