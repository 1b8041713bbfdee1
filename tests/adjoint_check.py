"""Checking adjoint code by the dot-product test.

For P with independents X and dependents Y, the tangent gives Ẏ = J Ẋ and the adjoint
X̄ = Jᵀ Ȳ, so <Ẋ, X̄> = <Ẏ, Ȳ> for any Ẋ, Ȳ. Both run in the IL interpreter: the tangent
is adspec's own (tests/tangent_check.py, itself checked against complex step), the adjoint
P_b on the same inputs with random Ȳ.

    check = AdjointCase(source, "fortran", "f(y)/(x)", args, seed=1).check()
    assert check.error < 1e-12, check.report()

The adjoint of an independent that is no dependent is passed holding GARBAGE when P_b
says it overwrites it (`x:out`), zeroed when it says it increments it (`x:incr`).

The stack is the interpreter's (engine/interp/stack.py, Tapenade's push/pop API): a pop of
the wrong type or from an empty stack is an error, and the stack must be empty when P_b
returns. The bytes pushed and the peak are reported.
"""
from __future__ import annotations

import copy
import re
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import adspec
from adspec.engine.il import mk
from adspec.engine.interp import Interpreter
from harness import DERIVATIVE_TAG, RESULT, Arg, Call, Spec, compile_calls_and_run, with_derivatives
from adspec.oracle.check import runtime_dir
from adspec.oracle.runs import GARBAGE
from tangent_check import TangentCase, relative_error

RUNTIME = runtime_dir()
ADJOINT_TAG = "__b"   # the driver's name of an argument's adjoint: x -> x__b

@contextmanager
def parsed_once():
    """Within it, source text is parsed once: P, P_D and P_b of one case read the same IL
    (immutable) instead of parsing the text three times (reading C costs most of a random
    case: the preprocessor and pycparser)."""
    import adspec.frontends as frontends
    original, seen = frontends.parse_source, {}

    def parse_source(text, filename="<string>", lang=None, form=None, modules=None):
        if modules is not None:
            return original(text, filename, lang, form, modules)
        key = (text, filename, lang, form)
        if key not in seen:
            seen.clear()   # one case at a time: keep the last text only
            seen[key] = original(text, filename, lang, form)
        return seen[key]
    frontends.parse_source = parse_source
    try:
        yield
    finally:
        frontends.parse_source = original


@dataclass
class AdjointCheck:
    adjoint_text: str
    tangent_side: float      # <Ẏ, Ȳ>
    adjoint_side: float      # <Ẋ, X̄>
    stack_state: int         # entries left on the stack
    pushed_bytes: int = 0
    peak_bytes: int = 0
    interpreter_error: float = 0.0   # compiled: max relative difference of X̄ from the interpreted P_b's

    @property
    def error(self) -> float:
        scale = max(abs(self.tangent_side), abs(self.adjoint_side), 1e-300)
        return abs(self.tangent_side - self.adjoint_side) / scale

    def report(self) -> str:
        return (f"<Ydot, Ybar> = {self.tangent_side!r}, <Xdot, Xbar> = {self.adjoint_side!r}, "
                f"relative error {self.error:.3g}, stack state {self.stack_state}\n{self.adjoint_text}")


class AdjointCase(TangentCase):
    """TangentCase (P, P_D, inputs and directions) plus P_b (adspec -b)."""

    def __init__(self, source: str, lang: str, head: str, args, seed: int = 1, filename: str | None = None,
                 form: str | None = None, **options):
        super().__init__(source, lang, head, args, seed=seed, filename=filename, form=form, **options)
        self.adjoint = adspec.differentiate(source, head=head, mode="adjoint", lang=lang, filename=self.filename,
                                            form=self.form, **options)
        rng = np.random.default_rng(seed + 2000)
        self.weights = {name: rng.uniform(-1, 1, size=np.shape(self._dependent_value(name)))
                        for name in self.dependents}
        self.adjoint_file = mk("file", *self.original.kids, *self.adjoint.tree.kids, lang=lang, form=self.form,
                               filename=self.filename)

    def variant(self, **options) -> "AdjointCase":
        """The same case (P, P_D, inputs, directions, weights) with P_b differentiated under
        other options (e.g. nooptim=...): only the adjoint is made again."""
        other = copy.copy(self)
        other.adjoint = adspec.differentiate(self.source, head=self.head, mode="adjoint", lang=self.lang,
                                             filename=self.filename, form=self.form, **options)
        other.adjoint_file = mk("file", *self.original.kids, *other.adjoint.tree.kids, lang=self.lang,
                                form=self.form, filename=self.filename)
        return other

    def _dependent_value(self, name):
        return self.values[name] if name in self.values else np.zeros(())

    def _adjoint_inputs(self) -> dict:
        """name -> the adjoint passed for it: Ȳ for a dependent, else GARBAGE where P_b
        overwrites it (`out`), 0 where it increments it (`incr`)."""
        out = {}
        for name in self.adjoint.diff_formals:
            if name in self.weights:
                out[name] = self.weights[name]
            else:
                out[name] = np.full(np.shape(self.values[name]), GARBAGE if self.adjoint.statuses[name] == "out" else 0.0)
        return out

    def run_adjoint(self) -> tuple:
        """P_b on the inputs with the weights Ȳ: ({independent: X̄}, the interpreter's stack)."""
        adjoints = self._adjoint_inputs()
        actuals, slots, passed = [], {}, []
        for name in self._formal_names():
            actuals.append(self._array(self.values[name]))
            passed.append(self._interp_actual(name, actuals[-1]))
            if name in self.adjoint.diff_formals:
                value = adjoints[name]
                if self.lang == "c" and np.shape(value) == ():
                    value = np.reshape(value, (1,))  # a by-value formal's adjoint is a pointer
                slots[name] = len(actuals)
                actuals.append(self._array(value))
                passed.append(self._interp_actual(name, actuals[-1], pointer=True))  # a struct's: a pointer
        if self._result_name() is not None:   # P_b takes the adjoint of an active value only
            weight = self.weights[self._result_name()]
            actuals.append(self._array(weight))
            passed.append(float(weight) if self.lang == "c" else actuals[-1])
        interpreter = Interpreter(self.adjoint_file)
        interpreter.call(self.adjoint.procedure_names[self.proc], passed)
        return ({name: actuals[slots[name]].reshape(np.shape(self.values[name])) for name in self.independents},
                interpreter.ad_stack)

    def check(self) -> AdjointCheck:
        ydot = self.interp_tangent()
        xbar, stack = self.run_adjoint()
        tangent_side = sum(float(np.sum(np.asarray(ydot[n]) * self.weights[n])) for n in self.dependents)
        adjoint_side = sum(float(np.sum(self.directions[n] * xbar[n])) for n in self.independents)
        return AdjointCheck(self.adjoint.text, tangent_side, adjoint_side, len(stack.entries), stack.pushed_bytes,
                            stack.peak_bytes)

    # --- compiled ----------------------------------------------------------------------------------
    def compiled_check(self, workdir, flags=("-O2",), checked: bool = False, runtime: Path = RUNTIME) -> AdjointCheck:
        """P, P_D and P_b compiled with the runtime (backends/runtime/) in one program with
        gcc/gfortran and `flags`; the driver runs P_D on Ẋ and P_b on Ȳ. `checked`: built and
        run once more under the sanitizers / -fcheck=all, which must report nothing."""
        spec = self._harness_spec()
        inputs = {name: self._flat(value) for name, value in self.values.items()}
        function_result = ("f_value" if self.lang == "c" else "result__") if self.is_function else None
        tangent = with_derivatives(spec, self.result.procedure_names[self.proc], self.result.diff_formals, self.lang,
                                   function_result=function_result)
        derivs = {name + DERIVATIVE_TAG: self._flat(self.directions[name] if name in self.directions
                                                    else self._buffer(name, self.result))
                  for name in self.result.diff_formals}
        result_slot = {function_result: np.zeros(1)} if function_result else {}
        adjoint_args = []
        for arg in spec.args:
            adjoint_args.append(arg)
            if arg.name in self.adjoint.diff_formals:   # C: a by-value formal's adjoint is a pointer
                adjoint_args.append(Arg(arg.name + ADJOINT_TAG, arg.type, arg.dims, arg.pointer or arg.dims is None))
        adjoints = {name + ADJOINT_TAG: self._flat(v) for name, v in self._adjoint_inputs().items()}
        if self._result_name() is not None:
            adjoint_args.append(Arg("result" + ADJOINT_TAG, "r8"))
            adjoints["result" + ADJOINT_TAG] = np.asarray(self.weights[self._result_name()]).reshape(())
        adjoint = Spec(self.adjoint.procedure_names[self.proc], tuple(adjoint_args))
        calls = [Call(tangent, {**inputs, **derivs, **result_slot}, "t_"), Call(adjoint, {**inputs, **adjoints}, "a_")]
        suffix = (".f90" if self.form != "fixed" else ".f") if self.lang == "fortran" else ".c"
        runtime = [(p.name, p.read_text()) for p in sorted(Path(runtime).iterdir()) if p.suffix in (".h", ".c")]
        tangent_text = _own_modules(self.result.text, self.adjoint.text) if self.lang == "fortran" else self.result.text
        sources = runtime + [("original" + suffix, self.source), ("tangent" + suffix, tangent_text),
                             ("adjoint" + suffix, self.adjoint.text)]
        reports = [] if checked else None
        tangent_out, adjoint_out = compile_calls_and_run(sources, self.lang, calls, workdir, reports=reports,
                                                         flags=(*flags, "-I."))
        if reports and reports[0]:
            raise AssertionError(reports[0])
        ydot = {n: _tangent_output(tangent_out, n, self._result_name()) for n in self.dependents}
        tangent_side = sum(float(np.sum(np.asarray(ydot[n]).reshape(-1) * self._flat(self.weights[n])))
                           for n in self.dependents)
        adjoint_side = sum(float(np.sum(self._flat(self.directions[n]) * adjoint_out[n + ADJOINT_TAG].reshape(-1)))
                           for n in self.independents)
        interpreted, stack = self.run_adjoint()
        compiled = {n: self._shaped(adjoint_out[n + ADJOINT_TAG], np.shape(self.values[n])) for n in self.independents}
        return AdjointCheck(self.adjoint.text, tangent_side, adjoint_side, len(stack.entries),
                            interpreter_error=relative_error(compiled, interpreted))


def _own_modules(tangent: str, adjoint: str) -> str:
    """The tangent with its modules renamed m_diff -> m_diff_t where the adjoint has one of
    the same name (both are m_diff, Tapenade's name, with wd and wb): one program links both."""
    for name in re.findall(r"(?im)^\s*module\s+(\w+)\s*$", adjoint):
        if re.search(rf"(?im)^\s*module\s+{name}\s*$", tangent):
            tangent = re.sub(rf"(?i)\b{name}\b", f"{name}_t", tangent)
    return tangent


def _tangent_output(outputs: dict, name: str, result_name) -> np.ndarray:
    """Ẏ of dependent `name` in the compiled P_D's outputs: a function's value derivative
    is what P_D returns."""
    return outputs[RESULT] if name == result_name else outputs[name + DERIVATIVE_TAG]
