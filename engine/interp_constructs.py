"""Interpreter semantics of Fortran's masked, forall and initialisation constructs: WHERE,
FORALL, implied DO (array constructors, I/O lists, DATA), DATA statements and OPTIONAL
dummies.

`FortranConstructs` is a mixin of `engine.interp.Interpreter`: it relies on the interpreter's
evaluation (`eval`, `_f_place`, `_store`, `_store_cell`) and frames. The rules:
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
- An absent OPTIONAL dummy: PRESENT is false, using it is an error, passing it on to another
  optional dummy leaves that one absent too.
"""
from __future__ import annotations

import itertools
from contextlib import contextmanager
from math import prod

import numpy as np

from . import interp as _interp  # circular (interp imports this mixin): names used at call time

ABSENT = object()  # the actual argument of an absent OPTIONAL dummy passed on

_IN_WHERE = frozenset(("assign", "where", "comment", "nop"))
_PASSIVE = frozenset(("comment", "nop"))


def _err(node, msg):
    return _interp._err(node, msg)


class FortranConstructs:
    # --- statement-scoped index variables ----------------------------------------------------
    def _implied_values(self, node):
        """The index values of an implied DO or a FORALL range (bounds evaluated once)."""
        _, lo, hi, step = node.kids[1:]
        lo_v, hi_v = int(self.eval(lo)), int(self.eval(hi))
        step_v = 1 if step is None else int(self.eval(step))
        if step_v == 0:
            raise _err(node, "implied DO or FORALL range with a zero step")
        trips = max(0, _interp._trunc_div(hi_v - lo_v + step_v, step_v))
        return [lo_v + k * step_v for k in range(trips)]

    @contextmanager
    def _index_vars(self, names):
        """Fresh integer cells for the index variables `names` of the current frame; the
        bindings they hide are restored on exit."""
        vars_ = self.frame.vars
        hidden = {n: vars_.get(n) for n in names}
        cells = {n: np.zeros((), dtype=self._index_dtype(n)) for n in names}
        vars_.update(cells)
        try:
            yield cells
        finally:
            for n, b in hidden.items():
                if b is None:
                    vars_.pop(n, None)
                else:
                    vars_[n] = b

    def _index_dtype(self, name):
        spec = self.frame.info.specs.get(name)
        t = spec.type if spec is not None else None
        if t is not None and t.op == "type" and t.base == "integer":
            return self.elem_kind(t)[0]
        return np.dtype(np.int32)

    @staticmethod
    def _set_indices(cells, env):
        for name, value in env.items():
            cells[name][()] = value

    def _implied_loop(self, node):
        """Run an implied DO: yields once per trip with its variable set. Callers exhaust it."""
        name = node.var.name
        values = self._implied_values(node)
        with self._index_vars((name,)) as cells:
            for v in values:
                cells[name][()] = v
                yield

    def e_impliedDo(self, node):
        """(items, i = lo, hi, step) in an array constructor or an output list: the items'
        values, trip after trip, as one 1-d array."""
        values = []
        for _ in self._implied_loop(node):
            values.extend(self.eval(item) for item in node.items)
        return self._concat_values(values)

    # --- WHERE ---------------------------------------------------------------------------------
    def s_where(self, node):
        mask, then, els = node.kids
        frame = self.frame
        outer = frame.mask
        m = np.asarray(self.eval(mask)).astype(bool)  # once, at entry
        if outer is not None and m.shape != outer.shape:
            raise _err(node, f"WHERE mask of shape {m.shape} inside a mask of shape {outer.shape}")
        try:
            frame.mask = m if outer is None else outer & m
            self._masked_block(then)
            if els is not None:
                frame.mask = ~m if outer is None else outer & ~m
                self._masked_block(els)
        finally:
            frame.mask = outer
        return None

    def _masked_block(self, block):
        for s in block.kids:
            if s.op not in _IN_WHERE:
                raise _err(s, f"{s.op} statement inside WHERE")
        self.exec_block(block)

    def _masked_value(self, lhs, value, node):
        """The value a masked assignment stores: `value` where the control mask holds, the
        current elements of lhs elsewhere."""
        mask = self.frame.mask
        current = np.asarray(self.eval(lhs))
        if current.shape != mask.shape:
            raise _err(node, f"assignment of shape {current.shape} under a WHERE mask of shape {mask.shape}")
        return np.where(mask, value, current).astype(current.dtype, copy=False)

    # --- FORALL --------------------------------------------------------------------------------
    def s_forall(self, node):
        self._forall_body(node.body, self._forall_envs(node, [{}]))
        return None

    def _forall_envs(self, node, outer):
        """The active index combinations (dicts name -> value): for each outer combination,
        those of this FORALL's ranges where its mask holds."""
        ranges, mask, _ = node.kids
        names = tuple(r.var.name for r in ranges)
        active = []
        with self._index_vars(tuple(outer[0]) + names if outer else ()) as cells:
            for env in outer:
                self._set_indices(cells, env)
                axes = [self._implied_values(r) for r in ranges]
                for combo in itertools.product(*axes):
                    full = {**env, **dict(zip(names, combo))}
                    self._set_indices(cells, full)
                    if mask is None or self._truth(self.eval(mask)):
                        active.append(full)
        return active

    def _forall_body(self, body, envs):
        for s in body.kids:
            if s.op == "forall":
                self._forall_body(s.body, self._forall_envs(s, envs))
            elif s.op == "assign":
                self._forall_assign(s, envs)
            elif s.op not in _PASSIVE:
                raise _err(s, f"{s.op} statement inside FORALL is not supported by the interpreter")

    def _forall_assign(self, s, envs):
        lhs, rhs = s.kids
        with self._index_vars(tuple(envs[0]) if envs else ()) as cells:
            values = []
            for env in envs:  # every right-hand side before any assignment
                self._set_indices(cells, env)
                v = self.eval(rhs)
                values.append(v.copy() if isinstance(v, np.ndarray) else v)
            for env, v in zip(envs, values):
                self._set_indices(cells, env)
                self._store(lhs, v, s)

    # --- DATA ----------------------------------------------------------------------------------
    def _apply_data(self, frame):
        """Store the initial values of the scope's DATA statements (once)."""
        info = frame.info
        info.data_done = True
        saved, self.frame = self.frame, frame
        try:
            for d in info.data:
                places = [p for o in d.objects for p in self._data_places(o)]
                values = [v for item in d.values for v in self._data_values(item)]
                if len(places) != len(values):
                    raise _err(d, f"DATA with {len(places)} object elements and {len(values)} values")
                for (container, key), v in zip(places, values):
                    self._store_cell(container, key, v)
        finally:
            self.frame = saved

    def _data_places(self, obj):
        """(container, key) of every element a DATA object stands for, in order."""
        if obj.op == "impliedDo":
            for _ in self._implied_loop(obj):
                for item in obj.items:
                    yield from self._data_places(item)
            return
        container, key = self._f_place(obj)
        if key is not Ellipsis and all(type(k) is int for k in key):
            yield container, key
            return
        view = container[key]  # a whole array or a section: its elements in array element order
        for flat in range(prod(view.shape)):
            yield view, np.unravel_index(flat, view.shape, order="F")

    def _data_values(self, item):
        if item.op == "dataRepeat":
            count = int(self.eval(item.count))
            return [self.eval(item.value)] * max(count, 0)
        return [self.eval(item)]

    # --- OPTIONAL ------------------------------------------------------------------------------
    @staticmethod
    def _absent(frame, name) -> bool:
        """Is `name` an OPTIONAL dummy of `frame` that the call did not give?"""
        present = frame.present
        if present is None or name in present or name not in frame.info.params:
            return False
        spec = frame.info.specs.get(name)
        return spec is not None and "optional" in spec.attrs
