"""Checking tangent code by numbers.

The tangent P_D of P, run in the IL interpreter beside the original P, against

- complex step of P in the interpreter (engine/interp_complex_step.py): relative 1e-12;
- central divided differences of P (in the interpreter): 1e-6;
- the compiled tangent (gcc/gfortran -O0 through tests/harness.py): 1e-14; in the same
  compilation, vector mode F_DV with nbdirs = 3 against three compiled F_D runs: 1e-14;
  the same program built once more under the sanitizers / -fcheck=all runs clean (`checks`).

    result = check_tangent(source, "fortran", "f(y)/(x)", args, seed=1)
    assert result.max_error < 1e-6 and result.complex_step_error < 1e-12, result.report()

    case = TangentCase(source, "fortran", "f(y)/(x)", args)
    runs = case.compiled(workdir)          # CompiledRuns: .tangent, .scalar_runs, .vector, .checks
    errors = compiled_errors(case, runs)   # {"complex step": 3e-16, "interpreter": 0.0, ...}

`args` lists P's formal arguments in order as (name, kind, shape, value or None): kind
"real" (a random value in (0.5, 1.5) and, for an independent, a random direction in (-1, 1)),
"int" (a fixed value, else random in 1..3), "struct" (a C pointer to a structure of reals,
random values; shape (k,) for its k reals in memory order and, in place of a value, its
fields ((name, size), ...)), "struct value" (the same structure passed by value; interpreter only). A C pointer argument has shape (1,); a C scalar of shape () is
passed by value. The derivative of an argument that is no independent is passed zeroed, or
filled with GARBAGE when it is an active array or pointer whose derivative F_D says it zeroes
itself ("Plus diff mem management of": F_D must not read what it holds). A function head's dependent (the function name, or f_result
in C) is the function's result.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np

import adspec
from adspec.engine.errors import UnsupportedError
from adspec.engine.il import mk, walk
from adspec.engine.interp import CArr, Interpreter, InterpError, Ptr, Record
from adspec.engine.interp_complex_step import NonSmoothPoint
from adspec.oracle.check import keeps_state
from adspec.oracle.reference import complex_perturbed, complex_step_derivative
from adspec.oracle.runs import GARBAGE
from adspec.frontends import language_of
from harness import DERIVATIVE_TAG, RESULT, Arg, Call, Spec, compile_calls_and_run, with_derivatives

STEP = 1e-6
NBDIRS = 3
DIFFSIZES = f"module diffsizes\n  integer, parameter :: nbdirsmax = {NBDIRS}\nend module\n"
C_DIFFSIZES = f"#define NBDirsMax {NBDIRS}\n"


def relative_error(got: dict, want: dict) -> float:
    """max over names of max|got - want| / max(|got|, |want|) over the array: relative to the
    array's scale, so a component that cancels to near zero does not fail spuriously."""
    worst = 0.0
    for name, value in want.items():
        a, b = np.asarray(got[name], dtype=np.float64), np.asarray(value, dtype=np.float64)
        scale = max(float(np.max(np.abs(a), initial=0.0)), float(np.max(np.abs(b), initial=0.0)))
        if scale > 0:
            worst = max(worst, float(np.max(np.abs(a - b))) / scale)
    return worst


# gfortran warns on every arithmetic IF (deleted in Fortran 2018): the derivative code keeps
# the ones of the source, which are no fault of it
_SOURCE_CONSTRUCT = re.compile(r"^(\S+:\d+:\d+:)\n(?:(?!Warning:).*\n)*?Warning: Fortran 2018 deleted feature: "
                               r"Arithmetic IF", re.M)


def _derivative_code_warnings(messages: str, files: tuple) -> list:
    """The locations of the compiler's warnings in the derivative files."""
    copied = set(_SOURCE_CONSTRUCT.findall(messages))
    return [line for line in messages.splitlines() if line.startswith(files) and line not in copied]


@dataclass
class TangentCheck:
    tangent_text: str
    analytic: dict = field(default_factory=dict)
    divided: dict = field(default_factory=dict)
    complex_step: dict | None = None
    complex_step_skipped: str | None = None   # why complex step is not valid here

    @property
    def max_error(self) -> float:
        """Against central differences, relative to max(1, |derivative|)."""
        worst = 0.0
        for name, value in self.divided.items():
            scale = max(1.0, float(np.max(np.abs(value))))
            worst = max(worst, float(np.max(np.abs(self.analytic[name] - value))) / scale)
        return worst

    @property
    def complex_step_error(self) -> float:
        return 0.0 if self.complex_step is None else relative_error(self.analytic, self.complex_step)

    def report(self) -> str:
        lines = [self.tangent_text]
        for name in self.divided:
            cs = "" if self.complex_step is None else f"  complex step {self.complex_step[name]}"
            lines.append(f"{name}: tangent {self.analytic[name]}  divided differences {self.divided[name]}{cs}")
        if self.complex_step_skipped:
            lines.append(f"complex step skipped: {self.complex_step_skipped}")
        return "\n".join(lines)


def _values(args, seed):
    rng = np.random.default_rng(seed)
    values = {}
    for name, kind, shape, fixed in args:
        if fixed is not None and not kind.startswith("struct"):
            values[name] = np.array(fixed, dtype=np.int32 if kind == "int" else np.float64).reshape(shape)
        elif kind in ("real", "struct", "struct value"):
            values[name] = rng.uniform(0.5, 1.5, size=shape).astype(np.float64)
        else:
            values[name] = np.array(rng.integers(1, 4), dtype=np.int32).reshape(shape)
    return values


class TangentCase:
    """One program prepared for checking: P and P_D parsed, inputs and a direction drawn.
    `options` go to adspec.differentiate (e.g. nooptim={"activity"})."""

    def __init__(self, source: str, lang: str, head: str, args, seed: int = 1, filename: str | None = None,
                 form: str | None = None, **options):
        self.source, self.lang, self.head, self.args, self.options = source, lang, head, list(args), options
        self.filename = filename or ("t.f90" if lang == "fortran" else "t.c")
        if form is None and lang == "fortran":
            form = language_of(self.filename)[1]  # a .f file is fixed form
        self.result = adspec.differentiate(source, head=head, mode="tangent", lang=lang, filename=self.filename,
                                           form=form, **options)
        self.original = adspec.parse(source, lang=lang, filename=self.filename, form=form)
        self.form = self.original.ann.get("form")
        self.combined = self._file(self.result)
        names = self.result.heads[0]
        self.proc = names.procedure
        # a C struct's fields (s->x, v.y) are checked as the formal, all its reals
        self.independents, self.dependents = (tuple(dict.fromkeys(re.split(r"->|\.", n)[0] for n in names))
                                              for names in (names.independents, names.dependents))
        self.values = {name: self._array(v) for name, v in _values(self.args, seed).items()}
        rng = np.random.default_rng(seed + 1000)
        self.directions = {name: self._array(rng.uniform(-1, 1, size=self.values[name].shape))
                           for name in self.independents}
        # the head is a function (F_D takes its value as a last argument): the harness type of the value
        self.value_type = self._value_type()
        self.is_function = self.value_type is not None

    def _file(self, *results):
        return mk("file", *self.original.kids, *(k for r in results for k in r.tree.kids), lang=self.lang,
                  form=self.form, filename=self.filename)

    def _array(self, value):
        """A copy laid out as the language lays arrays out: the interpreter reads the memory."""
        return np.array(value, copy=True, order="F" if self.lang == "fortran" else "C")

    def _zeros(self, name):
        return self._array(np.zeros(np.shape(self.values[name])))

    def _buffer(self, name, result):
        """The derivative passed for a formal that is no independent (see the module's doc)."""
        fill = 0.0 if result.caller_zeroes.get(name, True) else GARBAGE
        return self._array(np.full(np.shape(self.values[name]), fill))

    def _interp_actual(self, name, value, pointer: bool = False):
        """What the interpreter takes for argument `name` holding `value`: the array, or for a
        "struct", a pointer to a record whose fields are views of the array; for a "struct
        value", the record (`pointer`: a pointer to it, as for its adjoint)."""
        kind, fields = next((kind, fixed) for n, kind, _, fixed in self.args if n == name)
        if not kind.startswith("struct"):
            return value
        record, offset = {}, 0
        for field_name, size in fields:
            part = value[offset:offset + size]
            record[field_name] = CArr(value, offset, (size,)) if size > 1 else part.reshape(())
            offset += size
        if kind == "struct value" and not pointer:
            return Record("struct", record)
        return Ptr(np.array([Record("struct", record)], dtype=object), 0)

    def _value_type(self):
        """The harness type code (r8, r4, i4, i8) of the head function's value, None for a subroutine."""
        proc = next(u for u in walk(self.original) if u.op == "procedure" and u.kids[0].lower() == self.proc.lower())
        name, kind, _, result, rtype = proc.kids[:5]
        if kind != "function":
            return None
        if rtype is None:  # Fortran: the result declared in the body
            rtype = next((d.kids[0] for d in proc.kids[6] if d.op == "varDecl"
                          for x in d.kids[2] if x.kids[0] == (result or name)), None)
        if rtype is None or rtype.op != "type" or rtype.kids[0] == "void":
            return None if rtype is not None and rtype.op == "type" else "r8"
        code = {"real": "r", "integer": "i"}.get(rtype.kids[0])
        return code and f"{code}{rtype.kids[1] or (8 if code == 'r' and self.lang == 'c' else 4)}"

    def _formal_names(self):
        return [name for name, *_ in self.args]

    def _result_name(self):
        """The dependent that is the function result (not a formal), if any."""
        return next((d for d in self.dependents if d not in self._formal_names()), None)

    # --- the interpreter ------------------------------------------------------------------------
    def run_original(self, values: dict, complex_step: bool = False) -> dict:
        """P on `values` (name -> array; complex arrays in complex-step mode): the outputs,
        the function result under the name of the function's dependent."""
        actuals = [self._array(values[name]) for name in self._formal_names()]
        returned = Interpreter(self.original, complex_step=complex_step).call(
            self.proc, [self._interp_actual(name, a) for name, a in zip(self._formal_names(), actuals)])
        out = dict(zip(self._formal_names(), actuals))
        if self._result_name() is not None:
            out[self._result_name()] = np.asarray(returned)
        return out

    def interp_tangent(self, directions: dict | None = None) -> dict:
        """P_D in the interpreter: dependent -> its derivative along `directions`."""
        directions = self.directions if directions is None else directions
        actuals, slots, passed = [], {}, []
        for name in self._formal_names():
            actuals.append(self._array(self.values[name]))
            passed.append(self._interp_actual(name, actuals[-1]))
            if name in self.result.diff_formals:
                slots[name] = len(actuals)
                actuals.append(self._array(directions[name]) if name in directions else self._buffer(name, self.result))
                passed.append(self._interp_actual(name, actuals[-1]))
        if self.is_function:
            actuals.append(np.zeros((1,) if self.lang == "c" else ()))
            passed.append(actuals[-1])
        returned = Interpreter(self.combined).call(self.result.procedure_names[self.proc], passed)
        return {name: np.asarray(returned) if name not in slots else actuals[slots[name]] for name in self.dependents}

    def complex_step(self) -> dict:
        """imag(P(x + i h d)) / h with h = 1e-30. Raises NonSmoothPoint where it is not valid."""
        values = {name: complex_perturbed(value, self.directions.get(name)) if value.dtype.kind == "f" else value
                  for name, value in self.values.items()}
        out = self.run_original(values, complex_step=True)
        return {name: complex_step_derivative(out[name]) for name in self.dependents}

    def divided_differences(self, step: float = STEP) -> dict:
        def shifted(sign):
            return self.run_original({k: v + sign * step * self.directions[k] if k in self.directions else v
                                      for k, v in self.values.items()})
        plus, minus = shifted(1), shifted(-1)
        return {name: (plus[name] - minus[name]) / (2 * step) for name in self.dependents}

    def check(self, step: float = STEP) -> TangentCheck:
        check = TangentCheck(self.result.text, self.interp_tangent(), self.divided_differences(step))
        try:
            check.complex_step = self.complex_step()
        except (NonSmoothPoint, InterpError) as e:   # a kink reached, or complex variables
            check.complex_step_skipped = str(e)
        return check

    # --- compiled ----------------------------------------------------------------------------------
    @cached_property
    def vector(self):
        """F_DV (adspec -vector), or the UnsupportedError that refuses it."""
        try:
            return adspec.differentiate(self.source, head=self.head, mode="vector", lang=self.lang,
                                        filename=self.filename, form=self.form, **self.options)
        except UnsupportedError as e:
            return e

    def _harness_spec(self) -> Spec:
        args = []
        for name, kind, shape, fixed in self.args:
            args.append(Arg(name, "i4" if kind == "int" else "r8", tuple(shape) or None))
        return Spec(self.proc, tuple(args), self.value_type)

    def _flat(self, value):
        return np.asarray(value).reshape(-1, order="F" if self.lang == "fortran" else "C")

    def _shaped(self, flat, shape):
        return np.asarray(flat).reshape(shape, order="F" if self.lang == "fortran" else "C")

    # F_DV's derivatives, (NBDIRS, *shape) here, hold the direction fastest in memory:
    # Fortran xd(nd, i) (first index, column-major), C xd[i][nd] (last index, row-major)
    def _flat_directions(self, stacked):
        return self._flat(stacked if self.lang == "fortran" else np.moveaxis(stacked, 0, -1))

    def _directions_shaped(self, flat, shape):
        if self.lang == "fortran":
            return self._shaped(flat, (NBDIRS,) + shape)
        return np.moveaxis(self._shaped(flat, shape + (NBDIRS,)), -1, 0)

    def compiled(self, workdir, directions: list | None = None, checked: bool = True) -> "CompiledRuns":
        """Compile P + P_D (+ DIFFSIZES and F_DV where vector mode works) in one compiler
        call; the driver runs F_D once per direction (default: the case's direction and two
        more) and F_DV on all of them at once. `checked`: the same program is also built
        and run once under the sanitizers / -fcheck=all (harness.CHECKED_FLAGS)."""
        rng = np.random.default_rng(99)
        directions = directions or [self.directions] + [
            {k: rng.uniform(-1, 1, size=v.shape) for k, v in self.directions.items()} for _ in range(NBDIRS - 1)]
        spec = self._harness_spec()
        inputs = {name: self._flat(value) for name, value in self.values.items()}
        result_name = self._result_name()
        function_result = ("f_value" if self.lang == "c" else "result__") if self.is_function else None
        scalar = with_derivatives(spec, self.result.procedure_names[self.proc], self.result.diff_formals, self.lang,
                                  function_result=function_result)
        calls = []
        for k, direction in enumerate(directions):
            derivs = {name + DERIVATIVE_TAG: self._flat(direction[name] if name in direction
                                                        else self._buffer(name, self.result))
                      for name in self.result.diff_formals}
            result_slot = {function_result: np.zeros(1)} if function_result else {}
            calls.append(Call(scalar, {**inputs, **derivs, **result_slot}, f"t{k}_"))
        ext = ".f90" if self.form != "fixed" else ".f"
        suffix = ext if self.lang == "fortran" else ".c"
        sources = [("original" + suffix, self.source), ("tangent" + suffix, self.result.text)]
        vector = self.vector if len(directions) == NBDIRS else None
        if isinstance(vector, UnsupportedError):
            vector = None
        if vector is not None:
            vspec = with_derivatives(spec, vector.procedure_names[self.proc], vector.diff_formals, self.lang,
                                     nbdirs=NBDIRS, function_result=function_result)
            derivs = {}
            for name in vector.diff_formals:
                stacked = np.stack([d[name] if name in d else self._buffer(name, vector) for d in directions])
                derivs[name + DERIVATIVE_TAG] = self._flat_directions(stacked)
            if function_result:
                derivs.update({function_result: np.zeros(1), function_result + DERIVATIVE_TAG: np.zeros(NBDIRS)})
            vector_call = Call(vspec, {**inputs, **derivs, "nbdirs": np.array(NBDIRS)}, "v_")
            sizes = ("diffsizes.f90", DIFFSIZES) if self.lang == "fortran" else ("DIFFSIZES.h", C_DIFFSIZES)
            vector_source = ("tangent_dv" + suffix, vector.text)
        messages = []
        reports = [] if checked else None   # F_D and F_DV each in one checked build
        # SAVE / static / module variables: each run of F_D (and F_DV) starts from the program's
        # first state, in a process of its own
        one_each = keeps_state([self.result.tree, self.original])
        # C: F_D's `double gd;` and F_DV's `double gd[NBDirsMax];` cannot share a program
        vector_apart = vector is not None and _defines_file_scope_derivatives(vector)
        if vector is not None and not vector_apart:
            calls.append(vector_call)
            sources = [sizes] + sources + [vector_source]
        outputs = compile_calls_and_run(sources, self.lang, calls, workdir, messages, reports,
                                        one_process_per_call=one_each)
        if vector_apart:
            outputs += compile_calls_and_run([sizes, sources[0], vector_source], self.lang, [vector_call],
                                             Path(workdir) / "vector", messages, reports, one_process_per_call=one_each)
            sources = sources + [vector_source]
        tangent_files = tuple(f for f, _ in sources if f.startswith("tangent"))
        warnings = _derivative_code_warnings("".join(messages), tangent_files)

        def derivative_of(out, name, shape):
            if name == result_name:
                return np.asarray(out[RESULT])
            return self._shaped(out[name + DERIVATIVE_TAG], shape)

        shapes = {name: np.shape(self.values[name]) for name in self._formal_names()}
        runs = [{name: derivative_of(out, name, shapes.get(name, ())) for name in self.dependents}
                for out in outputs[:len(directions)]]
        primal = {name: self._shaped(outputs[0][name], shapes[name]) for name in self._formal_names()}
        if result_name is not None:
            primal[result_name] = np.asarray(outputs[0][function_result])
        vec = None
        if vector is not None:
            vec = {name: self._directions_shaped(outputs[-1][(function_result if name == result_name else name)
                                                             + DERIVATIVE_TAG], shapes.get(name, ()))
                   for name in self.dependents}
        checks = None if reports is None else "\n".join(r for r in reports if r)
        return CompiledRuns(runs[0], runs, vec, primal, directions, warnings, "".join(messages), checks)


@dataclass
class CompiledRuns:
    tangent: dict            # dependent -> derivative along the case's direction
    scalar_runs: list        # one such dict per direction
    vector: dict | None      # dependent -> (NBDIRS, ...) derivatives from F_DV, None if refused
    primal: dict             # the compiled tangent's primal outputs (first run)
    directions: list
    warnings: list           # the compiler's -Wall warnings located in the derivative code
    compiler_messages: str   # all the compiler said
    checks: str | None = None   # what the checked build reported ('' clean, None not built)


def compiled_errors(case: TangentCase, runs: CompiledRuns) -> dict:
    """The relative errors of the compiled tangent against complex step, central differences,
    the interpreter tangent, and of the primal outputs; where complex step is not valid, no
    "complex step" entry but a "complex step skipped" one, the reason."""
    errors = {}
    try:
        errors["complex step"] = relative_error(runs.tangent, case.complex_step())
    except (NonSmoothPoint, InterpError) as e:
        errors["complex step skipped"] = str(e)
    divided = case.divided_differences()
    errors["central differences"] = TangentCheck("", runs.tangent, divided).max_error
    errors["interpreter"] = relative_error(runs.tangent, case.interp_tangent())
    original = case.run_original(case.values)
    errors["primal"] = relative_error(runs.primal, {k: v for k, v in original.items() if k in runs.primal
                                                    and np.asarray(v).dtype.kind == "f"})
    return errors


def _defines_file_scope_derivatives(result) -> bool:
    """The differentiated C file defines variables of its own (the derivatives of globals)."""
    return result.tree.ann.get("lang") == "c" and any(
        u.op == "varDecl" and "extern" not in u.kids[1] for u in result.tree.kids)


def vector_error(runs: CompiledRuns) -> float:
    """F_DV's direction k against the scalar run k, over the directions."""
    return max(relative_error({n: runs.vector[n][k] for n in runs.vector}, run)
               for k, run in enumerate(runs.scalar_runs))


def check_tangent(source: str, lang: str, head: str, args, seed: int = 1, filename: str | None = None,
                  form: str | None = None, step: float = STEP, **options) -> TangentCheck:
    return TangentCase(source, lang, head, args, seed, filename, form, **options).check(step)
