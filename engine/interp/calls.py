"""Calls in the IL interpreter: finding the procedure, evaluating the actual arguments,
binding them to the dummies, running the body and returning the result.

Fortran passes by reference (argument association): a variable, an array element (the tail of
the array from it on, for an array dummy: sequence association) or a section is passed as a
reference; an expression as a temporary; a non-contiguous section is copied in and out.
Assumed-shape dummies take the actual's shape, explicit-shape ones reshape its memory.
C passes by value: a pointer argument is a `Ptr` into the caller's memory, a `T a[][n]`
parameter a CArr with an unchecked first dimension, a struct a copy.
"""
from __future__ import annotations

import sys
import warnings
from math import prod

import numpy as np

from ..il import Node
from ..symbols import used_name
from . import frames, memory, places, stack
from . import intrinsics as ii
from .scope import Frame, VarSpec
from .values import (ABSENT, CArr, ComponentPlaces, FArr, Goto, InterpError, ProgramStop, Ptr, Record,
                     UNASSOCIATED, err)

_ComplexWarning = getattr(getattr(np, "exceptions", np), "ComplexWarning")


def run_from_python(it, name, run):
    """run() with the numeric environment of compiled code (no floating-point exceptions)
    and room for deep recursion; a Fortran STOP ends it normally."""
    old_limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old_limit, 20000))
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", _ComplexWarning)
            return run()
    except ProgramStop as stop:
        it.stopped = stop.code
        return None
    except RecursionError:
        raise InterpError(f"recursion too deep while running {name}") from None
    finally:
        sys.setrecursionlimit(old_limit)


def external_actual(a):
    """An argument given from Python: arrays by reference, numbers as numpy scalars."""
    if isinstance(a, np.ndarray):
        return a
    if isinstance(a, (Ptr, Record)) or a is None:
        return a
    return ii.as_value(a)


def find_proc(it, name: str, node) -> Node:
    """The procedure a call of `name` means: internal, then global, then USE-renamed."""
    f = it.frame
    while f is not None:
        p = f.info.contains.get(name)
        if p is not None:
            return p
        f = f.host
    p = it.procs.get(name) or used_proc(it, name)
    if p is None or p.body is None:
        if has_interface(it, name):
            raise err(node, f"call of procedure {name!r}: it has an interface but no definition in the files")
        raise err(node, f"call of unknown procedure {name!r}")
    return p


def used_proc(it, name: str):
    """The module procedure a USE rename makes visible as `name` (None if none)."""
    f = it.frame
    while f is not None:
        for module, only, renames in f.info.uses:
            remote = used_name(only, renames, name)
            mod = it.modules.get(module)
            if remote is not None and remote != name and mod is not None:
                p = frames.module_frame(it, module).info.contains.get(remote)
                if p is not None:
                    return p
        f = f.host
    return None


def has_interface(it, name: str) -> bool:
    f = it.frame
    while f is not None:
        if name in f.info.externals:
            return True
        f = f.host
    return False


def invoke(it, proc: Node, actuals: list, named: dict, host: Frame | None):
    """Run `proc` on evaluated actuals (positional and by keyword): bind, run, copy back, result."""
    info = frames.scope_info(it, proc, host.info if host is not None and host.info.node.op == "procedure" else None)
    frame = Frame(info, host)
    params = info.params
    if len(actuals) > len(params):
        raise err(proc, f"too many arguments in call of {proc.name}")
    bound = dict(zip(params, actuals))
    for k, v in named.items():
        if k not in params:
            raise err(proc, f"{proc.name} has no argument {k!r}")
        if k in bound:
            raise err(proc, f"argument {k!r} of {proc.name} given twice")
        bound[k] = v
    bound = {k: v for k, v in bound.items() if v is not ABSENT}  # absent optional actuals
    frame.present = set(bound)
    saved, it.frame = it.frame, frame  # actuals are evaluated: the callee is current now
    try:
        if it.is_c:
            bind_c(it, frame, proc, bound)
        else:
            bind_fortran(it, frame, bound)
            materialize_locals(it, frame)
        sig = it.exec_block(proc.body)
    finally:
        it.frame = saved
    if isinstance(sig, Goto):
        raise err(proc, f"GOTO {sig.label}: label not found in an enclosing block of {proc.name}")
    if frame.copyback:
        for orig, tmp in frame.copyback:
            orig[...] = np.reshape(tmp, orig.shape, order="F")
    return result(it, proc, frame)


def materialize_locals(it, frame):
    """Fortran locals exist from entry: automatic arrays take their size now."""
    info = frame.info
    for name in info.order:
        if name in frame.vars or name in info.externals or name in info.params:
            continue
        spec = info.specs[name]
        if spec.type is None and spec.dims is None and name not in info.commons:
            continue  # only named by SAVE & co: typed implicitly when first used
        frame.vars[name] = frames.materialize(it, frame, spec)


def result(it, proc, frame):
    """A function's result: C the returned value, Fortran the result variable's value."""
    if proc.kind != "function":
        return None
    if it.is_c:
        return frame.retval
    name = proc.result or proc.name
    b = frames.binding(it, name, frame, proc)
    if isinstance(b, FArr):
        return b.data.copy(order="F")
    return b[()]


def bind_fortran(it, frame: Frame, bound: dict):
    info = frame.info
    arrays = []
    for name, actual in bound.items():
        spec = info.specs.get(name) or VarSpec(name, None)
        if spec.dims is None or "allocatable" in spec.attrs or "pointer" in spec.attrs:
            frame.vars[name] = bind_scalar_dummy(it, frame, spec, actual)
        else:
            arrays.append((spec, actual))
    for spec, actual in arrays:  # after scalars: their bounds may use the scalar dummies
        frame.vars[spec.name] = bind_array_dummy(it, frame, spec, actual)


def dummy_dtype(it, frame, spec):
    return memory.elem_kind(it, memory.spec_type(it, spec, frame.info), spec.ptr)[0]


def bind_scalar_dummy(it, frame, spec, actual):
    if isinstance(actual, FArr):
        if spec.dims is not None:
            return actual  # allocatable / pointer dummy: the caller's descriptor itself
        actual = actual.data
    if isinstance(actual, tuple):  # array element (data, index)
        data, key = actual
        actual = data[key + (Ellipsis,)]
    if isinstance(actual, np.ndarray):
        if spec.dims is not None:
            return FArr(actual, (1,) * actual.ndim)
        if actual.ndim and actual.size >= 1:
            actual = actual.reshape(-1, order="A")[:1].reshape(())
        return check_dtype(it, frame, spec, actual)
    cell = np.empty((), dtype=dummy_dtype(it, frame, spec)) if not isinstance(actual, (Record, str)) \
        else np.empty((), dtype=object)
    memory.store_cell(it, cell, (), actual)
    return cell


def check_dtype(it, frame, spec, arr):
    want = dummy_dtype(it, frame, spec)
    have = arr.dtype
    if have != want and not (want.kind == "b" and have.kind in "iu") and not (want == object == have):
        raise InterpError(f"argument {spec.name}: actual of type {have} for a dummy of type {want}")
    return arr


def bind_array_dummy(it, frame, spec, actual):
    if isinstance(actual, FArr):
        if actual.data is None:
            raise InterpError(f"argument {spec.name}: unallocated array")
        actual = actual.data
    if isinstance(actual, tuple):  # array element: the tail of the array from it on
        data, key = actual
        flat = memory_flat(data, spec)
        pos = int(np.ravel_multi_index(key, data.shape, order="F")) if data.ndim else 0
        flat, shape_src = flat[pos:], None
    elif isinstance(actual, np.ndarray):
        if not (actual.flags.f_contiguous or actual.flags.c_contiguous):
            tmp = np.asfortranarray(actual)
            frame.copyback = (frame.copyback or []) + [(actual, tmp)]
            actual = tmp
        flat, shape_src = memory_flat(actual, spec), actual.shape
    else:  # an expression value
        value = np.asarray(actual)
        flat, shape_src = value.astype(dummy_dtype(it, frame, spec)).ravel(order="F"), value.shape
    check_dtype(it, frame, spec, flat)
    if any(d.hi is None for d in spec.dims):  # assumed shape: the actual's shape
        if shape_src is None or len(shape_src) != len(spec.dims):
            raise InterpError(f"argument {spec.name}: actual of rank {len(shape_src or ())} "
                              f"for assumed-shape dummy of rank {len(spec.dims)}")
        lb = tuple(1 if d.lo is None else int(memory.eval_in(it, frame, d.lo)) for d in spec.dims)
        shape = shape_src
    else:
        lb, shape = memory.bounds(it, frame, spec.dims, spec.node, assumed_last=len(flat))
    n = prod(shape)
    if n > len(flat):
        raise InterpError(f"argument {spec.name}: dummy of {n} elements on an actual of {len(flat)}")
    return FArr(flat[:n].reshape(shape, order="F"), lb)


def bind_c(it, frame: Frame, proc: Node, bound: dict):
    info = frame.info
    for name, actual in bound.items():
        spec = info.specs.get(name)
        if spec is None:
            raise err(proc, f"parameter {name} of {proc.name} is not declared")
        if spec.dims is not None:  # T a[][n]: a pointer to rows
            ptr = memory.as_ptr(actual, spec.name)
            dims = tuple(None if d.hi is None else int(memory.eval_in(it, frame, d.hi)) for d in spec.dims)
            frame.vars[name] = CArr(ptr.buf, ptr.off, (None,) + dims[1:])  # C does not check rows
            continue
        dtype, factory = memory.elem_kind(it, spec.type, spec.ptr)
        cell = np.empty((), dtype=dtype)
        if spec.ptr:
            cell[()] = memory.as_ptr(actual, spec.name) if actual is not None else None
        elif isinstance(actual, np.ndarray):  # a by-value argument given as a 1-element array
            memory.store_cell(it, cell, (), actual.reshape(-1)[0])
        else:
            memory.store_cell(it, cell, (), actual)
        frame.vars[name] = cell


def call_user(it, node: Node):
    """A call of a user procedure (or of a CUDA built-in in C, or of the AD stack): its result."""
    if stack.stack_routine(it, node.name):
        return stack.run(it, node)
    if it.is_c and node.name not in it.procs and it.is_cuda_call(node.name):
        return it.cuda_call(node)
    proc = find_proc(it, node.name, node)
    if "__global__" in proc.attrs:
        raise err(node, f"kernel {proc.name} called without a launch {proc.name}<<<grid, block>>>(...)")
    if it.kernel is None and "__device__" in proc.attrs and "__host__" not in proc.attrs:
        raise err(node, f"{proc.name} is a __device__ function: host code cannot call it")
    positional, named = [], {}
    for a in node.args:
        if a.op == "namedArg":
            named[a.name] = actual_argument(it, a.value)
        else:
            if named:
                raise err(node, "positional argument after a keyword argument")
            positional.append(actual_argument(it, a))
    return invoke(it, proc, positional, named, frames.host_frame(it, proc, it.frame))


def actual_argument(it, node: Node):
    """An actual argument: a reference for variables/elements/sections (Fortran), a value otherwise."""
    if it.is_c:
        v = it.eval(node)
        return v.copy() if isinstance(v, Record) else v
    op = node.op
    if op == "ident":
        if frames.absent(it.frame, node.name):
            return ABSENT  # passed on as absent to an optional dummy
        if node.name not in it.frame.info.specs and node.name not in it.frame.vars and (
                node.name in it.procs or node.name in it.frame.info.externals):
            raise err(node, f"procedure argument {node.name} is not supported by the interpreter")
        b = frames.binding(it, node.name, node=node)
        if b is UNASSOCIATED:
            raise err(node, f"pointer {node.name} is not associated")
        return b
    if op == "arrayAccess":
        data, key = places.f_place(it, node)
        if type(data) is ComponentPlaces:  # cd%p%x(1): passed by value
            return data[key]
        if all(type(k) is int for k in key):
            return (data, key)
        return data[key]
    if op == "fieldAccess":
        rec = it.eval(node.base)
        b = places.field_of(it, rec, node)
        return b
    v = it.eval(node)
    if isinstance(v, np.ndarray):
        return np.asfortranarray(v).copy(order="F") if v.base is not None else v
    return v


def memory_flat(arr, spec):
    """The 1-D view of an array's memory, in column-major order for a Fortran array."""
    if arr.flags.f_contiguous:
        return arr.ravel(order="F")
    if arr.ndim <= 1 or arr.flags.c_contiguous:
        return arr.ravel(order="K")
    raise InterpError(f"argument {spec.name}: actual array is not contiguous")
