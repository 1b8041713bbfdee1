"""Interpreter semantics of Fortran's masked, forall and initialisation constructs: WHERE,
FORALL, implied DO (array constructors, I/O lists, DATA) and DATA statements.

Functions of the interpreter `it`; expressions are evaluated through `it.eval`, blocks run
through `it.exec_block`. The rules:
- WHERE: the mask is evaluated once, at entry; an assignment inside assigns the elements where
  the control mask holds (ELSEWHERE: the complement); nested WHEREs AND their masks.
  The control mask lives in the frame, so a function called from a masked statement runs
  unmasked.
- FORALL: the active index combinations (ranges, then the mask) are computed first; then each
  body assignment evaluates its right-hand side for every combination before assigning any.
- Implied DO and FORALL index variables are statement-scoped: a variable of the same name
  outside keeps its value.
- DATA: initial values given when the scope's saved variables first come to exist (DATA
  implies SAVE); `r*value` repeats a value; whole arrays are filled in column-major order.
"""
from __future__ import annotations

import itertools
from contextlib import contextmanager
from math import prod

import numpy as np

from . import memory, places
from .values import concat_values, err, trunc_div, truth

_IN_WHERE = frozenset(("assign", "where", "comment", "nop"))
_PASSIVE = frozenset(("comment", "nop"))


def implied_values(it, node):
    """The index values of an implied DO or a FORALL range (bounds evaluated once)."""
    _, lo, hi, step = node.kids[1:]
    lo_v, hi_v = int(it.eval(lo)), int(it.eval(hi))
    step_v = 1 if step is None else int(it.eval(step))
    if step_v == 0:
        raise err(node, "implied DO or FORALL range with a zero step")
    trips = max(0, trunc_div(hi_v - lo_v + step_v, step_v))
    return [lo_v + k * step_v for k in range(trips)]


@contextmanager
def index_vars(it, names):
    """Fresh integer cells for the index variables `names` of the current frame; the
    bindings they hide are restored on exit."""
    vars_ = it.frame.vars
    hidden = {n: vars_.get(n) for n in names}
    cells = {n: np.zeros((), dtype=index_dtype(it, n)) for n in names}
    vars_.update(cells)
    try:
        yield cells
    finally:
        for n, b in hidden.items():
            if b is None:
                vars_.pop(n, None)
            else:
                vars_[n] = b


def index_dtype(it, name):
    spec = it.frame.info.specs.get(name)
    t = spec.type if spec is not None else None
    if t is not None and t.op == "type" and t.base == "integer":
        return memory.elem_kind(it, t)[0]
    return np.dtype(np.int32)


def set_indices(cells, env):
    for name, value in env.items():
        cells[name][()] = value


def implied_loop(it, node):
    """Run an implied DO: yields once per trip with its variable set. Callers exhaust it."""
    name = node.var.name
    values = implied_values(it, node)
    with index_vars(it, (name,)) as cells:
        for v in values:
            cells[name][()] = v
            yield


def e_impliedDo(it, node):
    """(items, i = lo, hi, step) in an array constructor or an output list: the items'
    values, trip after trip, as one 1-d array."""
    values = []
    for _ in implied_loop(it, node):
        values.extend(it.eval(item) for item in node.items)
    return concat_values(values)


def s_where(it, node):
    """WHERE: the mask evaluated once; the assignments inside store where it holds (ELSEWHERE: where not)."""
    mask, then, els = node.kids
    frame = it.frame
    outer = frame.mask
    m = np.asarray(it.eval(mask)).astype(bool)  # once, at entry
    if outer is not None and m.shape != outer.shape:
        raise err(node, f"WHERE mask of shape {m.shape} inside a mask of shape {outer.shape}")
    try:
        frame.mask = m if outer is None else outer & m
        masked_block(it, then)
        if els is not None:
            frame.mask = ~m if outer is None else outer & ~m
            masked_block(it, els)
    finally:
        frame.mask = outer
    return None


def masked_block(it, block):
    for s in block.kids:
        if s.op not in _IN_WHERE:
            raise err(s, f"{s.op} statement inside WHERE")
    it.exec_block(block)


def masked_value(it, lhs, value, node):
    """The value a masked assignment stores: `value` where the control mask holds, the
    current elements of lhs elsewhere."""
    mask = it.frame.mask
    current = np.asarray(it.eval(lhs))
    if current.shape != mask.shape:
        raise err(node, f"assignment of shape {current.shape} under a WHERE mask of shape {mask.shape}")
    return np.where(mask, value, current).astype(current.dtype, copy=False)


def s_forall(it, node):
    """FORALL: all the right-hand sides for the active indices before any assignment."""
    forall_body(it, node.body, forall_envs(it, node, [{}]))
    return None


def forall_envs(it, node, outer):
    """The active index combinations (dicts name -> value): for each outer combination,
    those of this FORALL's ranges where its mask holds."""
    ranges, mask, _ = node.kids
    names = tuple(r.var.name for r in ranges)
    active = []
    with index_vars(it, tuple(outer[0]) + names if outer else ()) as cells:
        for env in outer:
            set_indices(cells, env)
            axes = [implied_values(it, r) for r in ranges]
            for combo in itertools.product(*axes):
                full = {**env, **dict(zip(names, combo))}
                set_indices(cells, full)
                if mask is None or truth(it.eval(mask)):
                    active.append(full)
    return active


def forall_body(it, body, envs):
    for s in body.kids:
        if s.op == "forall":
            forall_body(it, s.body, forall_envs(it, s, envs))
        elif s.op == "assign":
            forall_assign(it, s, envs)
        elif s.op not in _PASSIVE:
            raise err(s, f"{s.op} statement inside FORALL is not supported by the interpreter")


def forall_assign(it, s, envs):
    lhs, rhs = s.kids
    with index_vars(it, tuple(envs[0]) if envs else ()) as cells:
        values = []
        for env in envs:  # every right-hand side before any assignment
            set_indices(cells, env)
            v = it.eval(rhs)
            values.append(v.copy() if isinstance(v, np.ndarray) else v)
        for env, v in zip(envs, values):
            set_indices(cells, env)
            places.store(it, lhs, v, s)


def apply_data(it, frame):
    """Store the initial values of the scope's DATA statements (once)."""
    info = frame.info
    info.data_done = True
    saved, it.frame = it.frame, frame
    try:
        for d in info.data:
            targets = [p for o in d.objects for p in data_places(it, o)]
            values = [v for item in d.values for v in data_values(it, item)]
            if len(targets) != len(values):
                raise err(d, f"DATA with {len(targets)} object elements and {len(values)} values")
            for (container, key), v in zip(targets, values):
                memory.store_cell(it, container, key, v)
    finally:
        it.frame = saved


def data_places(it, obj):
    """(container, key) of every element a DATA object stands for, in order."""
    if obj.op == "impliedDo":
        for _ in implied_loop(it, obj):
            for item in obj.items:
                yield from data_places(it, item)
        return
    container, key = places.f_place(it, obj)
    if key is not Ellipsis and all(type(k) is int for k in key):
        yield container, key
        return
    view = container[key]  # a whole array or a section: its elements in array element order
    for flat in range(prod(view.shape)):
        yield view, np.unravel_index(flat, view.shape, order="F")


def data_values(it, item):
    """The values of one DATA item: r*value gives r copies."""
    if item.op == "dataRepeat":
        count = int(it.eval(item.count))
        return [it.eval(item.value)] * max(count, 0)
    return [it.eval(item)]
