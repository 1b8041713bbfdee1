"""Checking tangent code by numbers: the tangent P_D, run in the IL interpreter beside the
original P, against central divided differences of P (also in the interpreter).

    result = check_tangent(source, "fortran", "f(y)/(x)", args, seed=1)
    assert result.max_error < 1e-6, result.report()

`args` lists P's formal arguments in order as (name, kind, shape, value or None): kind
"real" (a random value and, for an independent, a random direction), "int" (a fixed value).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

import adspec
from adspec.engine.il import mk
from adspec.engine.interp import Interpreter

STEP = 1e-6


@dataclass
class TangentCheck:
    tangent_text: str
    analytic: dict = field(default_factory=dict)
    divided: dict = field(default_factory=dict)

    @property
    def max_error(self) -> float:
        worst = 0.0
        for name, value in self.divided.items():
            scale = max(1.0, float(np.max(np.abs(value))))
            worst = max(worst, float(np.max(np.abs(self.analytic[name] - value))) / scale)
        return worst

    def report(self) -> str:
        lines = [self.tangent_text]
        for name in self.divided:
            lines.append(f"{name}: tangent {self.analytic[name]}  divided differences {self.divided[name]}")
        return "\n".join(lines)


def _values(args, seed):
    rng = np.random.default_rng(seed)
    values = {}
    for name, kind, shape, fixed in args:
        if fixed is not None:
            values[name] = np.array(fixed, dtype=np.int32 if kind == "int" else np.float64).reshape(shape)
        elif kind == "real":
            values[name] = rng.uniform(0.5, 1.5, size=shape).astype(np.float64)
        else:
            values[name] = np.array(rng.integers(1, 4), dtype=np.int32).reshape(shape)
    return values


def _run(tree, proc, args, values):
    actuals = [np.array(values[name], copy=True) for name, *_ in args]
    Interpreter(tree).call(proc, actuals)
    return {name: actual for (name, *_), actual in zip(args, actuals)}


def check_tangent(source: str, lang: str, head: str, args, seed: int = 1, filename: str | None = None,
                  form: str | None = None, step: float = STEP, **options) -> TangentCheck:
    filename = filename or ("t.f90" if lang == "fortran" else "t.c")
    result = adspec.differentiate(source, head=head, mode="tangent", lang=lang, filename=filename, form=form,
                                  **options)
    original = adspec.parse(source, lang=lang, filename=filename, form=form)
    combined = mk("file", *original.kids, *result.tree.kids, lang=lang, form=original.ann.get("form"),
                  filename=filename)
    spec = result.heads[0]
    proc = spec.procedure
    values = _values(args, seed)
    rng = np.random.default_rng(seed + 1000)
    directions = {name: rng.uniform(-1, 1, size=values[name].shape) for name in spec.independents}
    # the tangent: each differentiated formal followed by its derivative
    tangent_args, tangent_values = [], {}
    for name, kind, shape, fixed in args:
        tangent_args.append((name, kind, shape, fixed))
        tangent_values[name] = values[name]
        if name in result.diff_formals:
            tangent_args.append((name + "~d", kind, shape, None))
            tangent_values[name + "~d"] = directions.get(name, np.zeros(np.shape(values[name])))
    out = _run(combined, result.procedure_names[proc], tangent_args, tangent_values)
    check = TangentCheck(result.text)
    for name in spec.dependents:
        check.analytic[name] = out[name + "~d"]
        plus = _run(original, proc, args, {k: v + step * directions[k] if k in directions else v
                                           for k, v in values.items()})
        minus = _run(original, proc, args, {k: v - step * directions[k] if k in directions else v
                                            for k, v in values.items()})
        check.divided[name] = (plus[name] - minus[name]) / (2 * step)
    return check
