"""Checking adjoint code by the dot-product test.

For P with independents X and dependents Y, the tangent gives Ẏ = J Ẋ and the adjoint
X̄ = Jᵀ Ȳ, so <Ẋ, X̄> = <Ẏ, Ȳ> for any Ẋ, Ȳ. Both run in the IL interpreter: the tangent
is adspec's own (tests/tangent_check.py, itself checked against complex step), the adjoint
P_b on the same inputs with random Ȳ.

    check = AdjointCase(source, "fortran", "f(y)/(x)", args, seed=1).check()
    assert check.error < 1e-12, check.report()

The adjoint of an independent that is no dependent is passed holding GARBAGE when P_b
says it overwrites it (`x:out`), zeroed when it says it increments it (`x:incr`).

The stack: until the interpreter has the runtime's stack, P_b runs against STACK, the
runtime's push/pop API written in the source language itself (Fortran and C). Every entry
is tagged with its type, so that a pop of the wrong type is caught, and the stack must be
empty when P_b returns.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

import adspec
from adspec.engine.il import mk
from adspec.engine.interp import Interpreter
from tangent_check import GARBAGE, TangentCase

_F_ENTRIES = [("real8", "real(8)", 1), ("real4", "real(4)", 2), ("integer4", "integer", 3), ("control1b", "integer", 4)]
_C_ENTRIES = [("Real8", "double", 1), ("Real4", "float", 2), ("Integer4", "int", 3), ("Control1b", "int", 4)]


def _fortran_stack() -> str:
    out = ["module adstack_check", "  real(8) :: adstack_values(20000)", "  integer :: adstack_tags(20000)",
           "  integer :: adstack_top = 0, adstack_errors = 0", "end module"]
    for name, typ, tag in _F_ENTRIES:
        out += [f"subroutine push{name}(x)", "  use adstack_check", f"  {typ} x",
                "  adstack_top = adstack_top + 1", "  adstack_values(adstack_top) = x",
                f"  adstack_tags(adstack_top) = {tag}", "end subroutine",
                f"subroutine pop{name}(x)", "  use adstack_check", f"  {typ} x",
                f"  if (adstack_top < 1) then", "    adstack_errors = adstack_errors + 1", "    return", "  end if",
                f"  if (adstack_tags(adstack_top) /= {tag}) adstack_errors = adstack_errors + 1",
                "  x = adstack_values(adstack_top)", "  adstack_top = adstack_top - 1", "end subroutine"]
    out += ["integer function adstack_state()", "  use adstack_check",
            "  adstack_state = adstack_top + 1000000*adstack_errors", "end function"]
    return "\n".join(out) + "\n"


def _c_stack() -> str:
    out = ["static double adstack_values[20000];", "static int adstack_tags[20000];",
           "static int adstack_top = 0;", "static int adstack_errors = 0;"]
    for name, typ, tag in _C_ENTRIES:
        out += [f"void push{name}({typ} x) {{ adstack_values[adstack_top] = x; adstack_tags[adstack_top] = {tag};"
                f" adstack_top = adstack_top + 1; }}",
                f"void pop{name}({typ} *x) {{ if (adstack_top < 1) {{ adstack_errors = adstack_errors + 1; return; }}"
                f" adstack_top = adstack_top - 1; if (adstack_tags[adstack_top] != {tag}) adstack_errors ="
                f" adstack_errors + 1; *x = adstack_values[adstack_top]; }}"]
    out += ["int adstack_state(void) { return adstack_top + 1000000*adstack_errors; }"]
    return "\n".join(out) + "\n"


STACK = {"fortran": _fortran_stack(), "c": _c_stack()}


@lru_cache(maxsize=None)
def _parsed_stack(lang: str):
    return adspec.parse(STACK[lang], lang=lang, filename="adstack" + (".f90" if lang == "fortran" else ".c"))


@dataclass
class AdjointCheck:
    adjoint_text: str
    tangent_side: float      # <Ẏ, Ȳ>
    adjoint_side: float      # <Ẋ, X̄>
    stack_state: int         # entries left + 1e6 * pops of a wrong type or of an empty stack

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
        stack = _parsed_stack(lang)
        self.adjoint_file = mk("file", *self.original.kids, *self.adjoint.tree.kids, *stack.kids, lang=lang,
                               form=self.form, filename=self.filename)

    def _dependent_value(self, name):
        return self.values[name] if name in self.values else np.zeros(())

    def run_adjoint(self) -> tuple:
        """P_b on the inputs with the weights Ȳ: ({independent: X̄}, stack state)."""
        statuses = self.adjoint.statuses
        actuals, slots, passed = [], {}, []
        for name in self._formal_names():
            actuals.append(self._array(self.values[name]))
            passed.append(self._interp_actual(name, actuals[-1]))
            if name in self.adjoint.diff_formals:
                if name in self.weights:
                    value = self.weights[name]
                else:
                    value = np.full(np.shape(self.values[name]), GARBAGE if statuses[name] == "out" else 0.0)
                if self.lang == "c" and np.shape(value) == ():
                    value = np.reshape(value, (1,))  # a by-value formal's adjoint is a pointer
                slots[name] = len(actuals)
                actuals.append(self._array(value))
                passed.append(actuals[-1])
        if self.is_function:
            weight = self.weights[self._result_name()]
            actuals.append(self._array(weight))
            passed.append(float(weight) if self.lang == "c" else actuals[-1])
        interpreter = Interpreter(self.adjoint_file)
        interpreter.call(self.adjoint.procedure_names[self.proc], passed)
        state = int(interpreter.call("adstack_state", []))
        return {name: actuals[slots[name]].reshape(np.shape(self.values[name])) for name in self.independents}, state

    def check(self) -> AdjointCheck:
        ydot = self.interp_tangent()
        xbar, state = self.run_adjoint()
        tangent_side = sum(float(np.sum(np.asarray(ydot[n]) * self.weights[n])) for n in self.dependents)
        adjoint_side = sum(float(np.sum(self.directions[n] * xbar[n])) for n in self.independents)
        return AdjointCheck(self.adjoint.text, tangent_side, adjoint_side, state)
