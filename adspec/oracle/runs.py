"""Calls of a derivative procedure in the driver, and what they give back.

`Side` is one derivative procedure (the candidate's, or adspec's reference) at one layout: it
builds the harness Call of a tangent run (directions in, dependents' derivatives out) or of an
adjoint run (the dependents' adjoints in, the independents' adjoints out), and reads the
results. Head variables are keyed by name: a formal, or the function's result (`result_name`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .harness import RESULT, TYPES, Arg, Call, Spec
from .points import Layout
from .prototype import DiffPrototype

GARBAGE = 1e3   # what an `out` derivative argument holds on entry: a candidate that reads it shows


@dataclass
class Side:
    dp: DiffPrototype
    layout: Layout
    result_name: str | None = None   # the head variable that is a function's result
    probe_stack: bool = False        # after each call, the driver reports the push/pop stack

    @property
    def name(self) -> str:
        return self.dp.procedure.name

    def spec(self) -> Spec:
        args = []
        lang = self.dp.procedure.lang
        for f in self.dp.procedure.formals:
            if f.name in self.dp.derivative_of:
                base = self.layout.arg(self.dp.derivative_of[f.name])
                args.append(Arg(f.name, f.type, base.dims, bool(f.pointer) and not base.dims))
            elif f.name == self.dp.value_formal:
                args.append(Arg(f.name, self.dp.primal.result_type, None, lang == "c"))
            elif f.name == self.dp.result_adjoint:
                args.append(Arg(f.name, f.type, None, bool(f.pointer)))
            else:
                args.append(self.layout.arg(f.name))
        return Spec(self.name, tuple(args), self.dp.procedure.result_type, self.dp.procedure.symbol)

    def size(self, var: str) -> int:
        return 1 if var == self.result_name else self.layout.arg(var).size

    def has(self, var: str) -> bool:
        """The procedure has a derivative slot for head variable `var`."""
        if var == self.result_name:
            return self.dp.value_formal is not None or self.dp.result_adjoint is not None \
                or self.dp.procedure.result_type is not None
        return self.dp.derivative(var) is not None

    def _inputs(self, point: dict, derivs: dict) -> dict:
        inputs = {k: np.array(v, copy=True) for k, v in point.items()}
        spec = self.spec()
        for a in spec.args:
            if a.name in inputs:
                continue
            primal = self.dp.derivative_of.get(a.name)
            value = derivs.get(primal if primal is not None else a.name)
            if value is None and a.name == self.dp.result_adjoint:
                value = derivs.get(self.result_name)
            if value is None:
                value = np.zeros(a.size)
            dtype = TYPES[a.type][0]
            inputs[a.name] = np.asarray(value, dtype=dtype).reshape(-1 if a.dims else ())
        return inputs

    def call(self, point: dict, derivs: dict, tag: str) -> Call:
        """A call on `point` with derivative arguments `derivs` (head variable -> flat values;
        missing ones zero)."""
        return Call(self.spec(), self._inputs(point, derivs), tag, self.probe_stack)

    def derivatives(self, out: dict) -> dict:
        """Head variable -> its derivative argument after the call (flat); a tangent function's
        result derivative (what it returns) under result_name."""
        got = {}
        for d, p in self.dp.derivative_of.items():
            got[p] = np.asarray(out[d], dtype=np.float64).reshape(-1)
        if self.result_name is not None:
            if self.dp.mode == "tangent" and RESULT in out:
                got[self.result_name] = np.asarray(out[RESULT], dtype=np.float64).reshape(-1)
            elif self.dp.result_adjoint is not None:
                got[self.result_name] = np.asarray(out[self.dp.result_adjoint], dtype=np.float64).reshape(-1)
        return got

    def primal_values(self, out: dict) -> dict:
        return {f.name: out[f.name] for f in self.dp.primal.formals if f.name in out}
