"""Intrinsic calls in the IL interpreter: the `intrinsic` operator. The functions of values are
in intrinsics.py (complex_step.py in complex-step mode); here, the intrinsics that inquire about
a variable rather than its value (size, shape, lbound, ubound, allocated, associated, present)
and printf, which writes to the interpreter's output.
"""
from __future__ import annotations

import re

import numpy as np

from . import frames, places
from .values import FArr, Ptr, UNASSOCIATED, err, render


def e_intrinsic(it, node):
    """An intrinsic call: an inquiry or printf below, else the table of intrinsics.py (or of
    complex_step.py) on the evaluated arguments, else a CUDA built-in."""
    name = node.name
    special = _SPECIAL.get(name)
    if special is not None:
        return special(it, node)
    fn = it._intrinsics.get(name)
    if fn is None:
        if it.is_c and it.is_cuda_call(name):
            return it.cuda_call(node)
        raise err(node, f"intrinsic {name} is not supported by the interpreter")
    args, kw = [], {}
    for a in node.args:
        if a.op == "namedArg":
            kw[a.name] = it.eval(a.value)
        else:
            args.append(it.eval(a))
    try:
        r = fn(*args, **kw)
    except (TypeError, ValueError, KeyError, IndexError) as e:
        raise err(node, f"bad call of intrinsic {name}: {e}") from None
    if isinstance(r, np.ndarray) and r.ndim == 0:
        return r[()]
    return r


def array_desc(it, node):
    """(data, lower bounds) of an array argument of an inquiry intrinsic."""
    if node.op in ("ident", "fieldAccess"):
        b = frames.binding(it, node.name, node=node) if node.op == "ident" else \
            places.field_of(it, it.eval(node.base), node)
        if isinstance(b, FArr):
            if b.data is None:
                raise err(node, "inquiry on an unallocated array")
            return b.data, b.lb
    v = np.asarray(it.eval(node))
    return v, (1,) * v.ndim


def inquiry_args(it, node):
    pos = [a for a in node.args if a.op != "namedArg"]
    kw = {a.name: a.value for a in node.args if a.op == "namedArg"}
    names = ("array", "dim", "kind")
    for n, a in zip(names, pos):
        kw[n] = a
    data, lb = array_desc(it, kw["array"])
    dim = int(it.eval(kw["dim"])) if "dim" in kw else None
    if dim is not None and not 1 <= dim <= data.ndim:
        raise err(node, f"dim={dim} out of range for rank {data.ndim}")
    return data, lb, dim


def i_size(it, node):
    data, lb, dim = inquiry_args(it, node)
    return np.int32(data.size if dim is None else data.shape[dim - 1])


def i_shape(it, node):
    data, lb, dim = inquiry_args(it, node)
    return np.array(data.shape, dtype=np.int32)


def i_lbound(it, node):
    data, lb, dim = inquiry_args(it, node)
    lbs = [l if n > 0 else 1 for l, n in zip(lb, data.shape)]
    return np.int32(lbs[dim - 1]) if dim is not None else np.array(lbs, dtype=np.int32)


def i_ubound(it, node):
    data, lb, dim = inquiry_args(it, node)
    ubs = [l + n - 1 if n > 0 else 0 for l, n in zip(lb, data.shape)]
    return np.int32(ubs[dim - 1]) if dim is not None else np.array(ubs, dtype=np.int32)


def i_allocated(it, node):
    b = places.f_binding_of(it, node.args[0])
    return np.bool_(isinstance(b, FArr) and b.data is not None)


def i_associated(it, node):
    arg = node.args[0]
    b = places.f_binding_of(it, arg)
    if isinstance(b, FArr):
        return np.bool_(b.data is not None)
    return np.bool_(b is not UNASSOCIATED)


def i_present(it, node):
    arg = node.args[0]
    if arg.op != "ident":
        raise err(node, "present() of a non-name")
    return np.bool_(arg.name in (it.frame.present or ()))


def i_null(it, node):
    raise err(node, "null() outside a pointer assignment")


def i_printf(it, node):
    args = [it.eval(a) for a in node.args]
    if not args or not isinstance(args[0], str):
        raise err(node, "printf without a literal format")
    fmt = re.sub(r"%([-+ #0]*\d*(?:\.\d+)?)(?:hh|h|ll|l|z|L)?([diouxXeEfgGcsp%])",
                 lambda m: "%" + m.group(1) + ("d" if m.group(2) in "iu" else m.group(2)), args[0])
    vals = tuple(_printf_value(v) for v in args[1:])
    try:
        text = fmt % vals
    except (TypeError, ValueError):
        text = args[0] + " " + " ".join(map(render, vals))
    it.output += text
    return np.int32(len(text))


def i_alloc_call(it, node):
    raise err(node, f"{node.name} outside the allocate/deallocate forms")


# The intrinsics that read a variable (not only its value), and printf, which writes output.
_SPECIAL = {"size": i_size, "shape": i_shape, "lbound": i_lbound, "ubound": i_ubound,
            "allocated": i_allocated, "associated": i_associated, "present": i_present,
            "null": i_null, "printf": i_printf, "malloc": i_alloc_call, "free": i_alloc_call}


def _printf_value(v):
    if isinstance(v, np.generic):
        return v.item()
    if type(v) is Ptr:
        return f"0x{v.off:x}"
    return v
