"""Compile-and-run harness: C drivers that call a procedure (C, or Fortran through `name_`)
on inputs set bit-exactly, print every argument element as hex floats, and read them back.

- `Spec`/`Arg` give a procedure's signature (`parse_spec` reads an `adspec-test:` line),
  `make_inputs` deterministic inputs;
- `build_calls_driver` writes the driver of several calls (`Call`, each with its own tag; on
  request each in a forked child, from the program's first state, and followed by a probe of the
  push/pop stack, `parse_stack_probes`); a Fortran module procedure is called by `Spec.symbol`;
- `compile_calls_and_run` compiles sources + driver with gcc/gfortran -O0 and runs it, and on
  request builds and runs the same program under the run-time checks of CHECKED_FLAGS
  (AddressSanitizer, UBSan, gfortran's -fcheck=all), reporting what they find;
- `with_derivatives` turns the signature of P into that of its tangent P_D;
- `interp_run` makes the same call on the IL interpreter;
- `compare_bits` / `compare_rel` compare two output dicts.

Values are numpy arrays: a scalar argument is a 0-d array, an array argument a flat 1-D
array in memory order (column-major for Fortran), a C by-value scalar a 0-d array too.
The function result is stored under the key RESULT.

The test suite (tests/harness.py) and `adspec check` (adspec/oracle) both run code through it.
"""
from __future__ import annotations

import math
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import numpy as np

FORTRAN_INCLUDES: list = []   # more -I directories for gfortran (the test corpus adds its own)
RESULT = "return"  # key of the function result: a C keyword, so never an argument name
OUTPUT_TAG = "@adspec@"  # prefix of the driver's output lines (other stdout lines are ignored)
RUN_TIMEOUT = 20  # seconds, for one compiler call or one run
TRAP_FPE_MACRO = "ADSPEC_TRAP_FPE"  # defined in the checked build: the driver traps FP exceptions

# type code -> (numpy dtype, C type of one element, printf conversion of one element)
TYPES = {
    "r4": (np.float32, "float", "%a"),
    "r8": (np.float64, "double", "%a"),
    "i4": (np.int32, "int", "%d"),
    "i8": (np.int64, "long long", "%lld"),
    "l4": (np.int32, "int", "%d"),
    "c8": (np.complex128, "double _Complex", None),
}
RANDOM_INT_RANGE = (1, 5)  # integers without a fixed value: uniform in [1, 5]
RANDOM_REAL_RANGE = (0.5, 1.5)


class HarnessError(Exception):
    """A malformed signature line or an unsupported signature."""


class CompileError(Exception):
    """The compiler rejected a source; the message holds its output."""


class RunError(Exception):
    """The compiled program crashed, timed out or printed something unparsable."""


# ---------------------------------------------------------------------------
# Signature
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Arg:
    name: str
    type: str                   # key of TYPES
    dims: tuple | None = None   # array shape, None for a scalar
    pointer: bool = False       # C `x:r8*`: a one-element array passed by pointer
    fixed: float | int | None = None

    @property
    def size(self) -> int:
        return math.prod(self.dims) if self.dims else 1

    @property
    def by_value(self) -> bool:
        """Passed by value in C (never in Fortran, where everything is by reference)."""
        return self.dims is None and not self.pointer


@dataclass(frozen=True)
class Spec:
    name: str
    args: tuple
    result: str | None = None   # type code of a function result
    symbol: str | None = None   # the linker's name when it is not name_ (a Fortran module procedure's)


_SPEC_RE = re.compile(r"adspec-test:\s*(\w+)\s*\((.*)\)\s*(?:->\s*(\w+))?")
_ARG_RE = re.compile(r"^(\w+)\s*:\s*(\w+)\s*(\*)?\s*(?:\[([\d,\s]+)\])?\s*(?:=\s*(\S+))?$")


def _split_top_level(text: str) -> list[str]:
    """Split at commas that are not inside [...]."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        depth += (ch == "[") - (ch == "]")
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur)
    return [p.strip() for p in parts]


def _parse_arg(text: str) -> Arg:
    m = _ARG_RE.match(text)
    if not m:
        raise HarnessError(f"bad argument in adspec-test signature: {text!r}")
    name, typ, star, dims, fixed = m.groups()
    if typ not in TYPES:
        raise HarnessError(f"unknown type {typ!r} in adspec-test signature (expected {' '.join(TYPES)})")
    shape = tuple(int(d) for d in dims.split(",")) if dims else None
    value = None
    if fixed is not None:
        value = float(fixed) if typ in ("r4", "r8", "c8") else int(fixed)
    return Arg(name, typ, shape, bool(star), value)


def parse_spec(source_text: str) -> Spec:
    """The Spec of the first `adspec-test:` line of a source text."""
    for line in source_text.splitlines():
        m = _SPEC_RE.search(line.replace("*/", ""))
        if m:
            name, args, result = m.groups()
            if result is not None and result not in TYPES:
                raise HarnessError(f"unknown result type {result!r} in adspec-test signature")
            if result == "c8":
                raise HarnessError("complex function results are not supported by the harness")
            return Spec(name, tuple(_parse_arg(a) for a in _split_top_level(args)), result)
    raise HarnessError("no 'adspec-test:' signature line in source")


# ---------------------------------------------------------------------------
# Programs and inputs
# ---------------------------------------------------------------------------

def make_inputs(spec: Spec, seed: int = 0) -> dict:
    """Deterministic inputs: fixed values where given, else reals uniform in [0.5, 1.5],
    integers in [1, 5], logicals 0/1. Scalars are 0-d arrays, arrays flat 1-D."""
    rng = np.random.default_rng(seed)
    inputs = {}
    for arg in spec.args:
        dtype = TYPES[arg.type][0]
        n = arg.size
        if arg.fixed is not None:
            values = np.full(n, arg.fixed, dtype=dtype)
        elif arg.type in ("r4", "r8"):
            values = rng.uniform(*RANDOM_REAL_RANGE, n).astype(dtype)
        elif arg.type == "c8":
            values = rng.uniform(*RANDOM_REAL_RANGE, n) + 1j * rng.uniform(*RANDOM_REAL_RANGE, n)
        elif arg.type == "l4":
            values = rng.integers(0, 2, n).astype(dtype)
        else:
            values = rng.integers(RANDOM_INT_RANGE[0], RANDOM_INT_RANGE[1] + 1, n).astype(dtype)
        inputs[arg.name] = values.reshape(()) if arg.dims is None else values
    return inputs


# ---------------------------------------------------------------------------
# The C driver
# ---------------------------------------------------------------------------

def _c_literal(value, typ: str) -> str:
    if typ == "r4":
        return float(value).hex() + "f"
    if typ == "r8":
        return float(value).hex()
    if typ == "i8":
        return f"{int(value)}LL"
    if typ == "c8":
        return f"__builtin_complex({value.real.hex()}, {value.imag.hex()})"
    return str(int(value))


def _print_lines(name: str, typ: str, expr: str, index: str) -> list[str]:
    fmt = TYPES[typ][2]
    if typ == "c8":
        return [f'  printf("{OUTPUT_TAG} {name} %d %a %a\\n", {index}, creal({expr}), cimag({expr}));']
    if typ == "r4":
        expr = f"(double)({expr})"
    return [f'  printf("{OUTPUT_TAG} {name} %d {fmt}\\n", {index}, {expr});']


@dataclass(frozen=True)
class Call:
    """One call made by a driver: the callee's signature, its inputs, and a tag (a C
    identifier prefix) naming the driver's variables and printed values of this call."""
    spec: Spec
    inputs: dict
    tag: str = ""
    probe_stack: bool = False   # after the call, print the push/pop stack's bytes in use and clear it


STACK_TAG = "@adspec-stack@"  # prefix of the stack probes' lines (parse_stack_probes)


def parse_stack_probes(stdout: str) -> dict:
    """tag -> bytes left on the push/pop stack after that call (calls made with probe_stack)."""
    probes = {}
    for line in stdout.splitlines():
        if line.startswith(STACK_TAG):
            _, tag, count = line.split()
            probes[tag.strip("'")] = int(count)
    return probes


def build_driver(spec: Spec, lang: str, inputs: dict | None = None) -> str:
    """C source of a main() that sets `inputs` (default make_inputs(spec)), calls the head
    (Fortran: `name_` with every argument by pointer) and prints the outputs."""
    return build_calls_driver([Call(spec, make_inputs(spec) if inputs is None else inputs)], lang)


def build_calls_driver(calls: list, lang: str, isolate: bool = False) -> str:
    """C source of a main() making each call in turn, its outputs printed under its tag;
    `isolate`: each call in a child process of its own (fork), from the program's first state."""
    if lang not in ("fortran", "c"):
        raise HarnessError(f"unknown language {lang!r}")
    fortran = lang == "fortran"
    prototypes, body = {}, []
    for number, call in enumerate(calls):
        spec, inputs, tag = call.spec, call.inputs, call.tag
        callee = spec.symbol or (spec.name.lower() + "_" if fortran else spec.name)
        result_ctype = TYPES[spec.result][1] if spec.result else "void"
        params, actuals, decls, prints = [], [], [], []
        for arg in spec.args:
            ctype = TYPES[arg.type][1]
            var = tag + arg.name
            values = np.asarray(inputs[arg.name]).reshape(-1)
            if len(values) != arg.size:
                raise HarnessError(f"input {arg.name}: {len(values)} values, signature says {arg.size}")
            items = ", ".join(_c_literal(v, arg.type) for v in values)
            if arg.by_value and not fortran:
                params.append(f"{ctype} {arg.name}")
                decls.append(f"  {ctype} {var} = {items};")
                prints += _print_lines(var, arg.type, var, "0")
            else:
                params.append(f"{ctype} *{arg.name}")
                decls.append(f"  static {ctype} {var}[{arg.size}] = {{{items}}};")
                prints.append(f"  for (i = 0; i < {arg.size}; i++) {{")
                prints += ["  " + p for p in _print_lines(var, arg.type, f"{var}[i]", "i")]
                prints.append("  }")
            actuals.append(var)
        prototypes[callee] = f"{result_ctype} {callee}({', '.join(params) or 'void'});"
        invoke = f"{callee}({', '.join(actuals)})"
        if spec.result:
            invoke = f"{result_ctype} {tag}result_ = {invoke}"
            prints += _print_lines(tag + RESULT, spec.result, f"{tag}result_", "0")
        probe = [f'  printf("{STACK_TAG} \'{tag}\' %lld\\n", adStack_currentBytes());', "  adStack_clear();"] \
            if call.probe_stack else []
        call_lines = [*decls, f"  {invoke};", *probe, *prints]
        if isolate:   # in a child process: the call starts from the program's first state
            call_lines = ["  fflush(stdout);", "  pid_t adspec_child_ = fork();", "  if (adspec_child_ == 0) {",
                          f"  alarm({RUN_TIMEOUT});",   # a child that loops dies itself: no orphan left
                          *call_lines, "  fflush(stdout);", "  _exit(0);", "  }",
                          "  int adspec_status_ = 0;", "  waitpid(adspec_child_, &adspec_status_, 0);",
                          "  if (adspec_child_ < 0 || !WIFEXITED(adspec_status_) || WEXITSTATUS(adspec_status_) != 0) {",
                          f'  fprintf(stderr, "call {number} ({tag or spec.name}) failed (status %d)\\n", adspec_status_);',
                          "  return 1;", "  }"]
        body += ["  {", *call_lines, "  }"]
    lines = [
        "/* generated by adspec.oracle.harness */",
        "#define _GNU_SOURCE /* feenableexcept */",
        "#include <fenv.h>",
        "#include <stdio.h>",
        "#include <complex.h>",
        *prototypes.values(),
        *(["long long adStack_currentBytes(void);", "void adStack_clear(void);"]
          if any(call.probe_stack for call in calls) else []),
        *(["#include <unistd.h>", "#include <sys/wait.h>"] if isolate else []),
        "int main(void) {",
        "  int i = 0;",
        f"#ifdef {TRAP_FPE_MACRO}",  # the checked build: 0/0, sqrt(-1), x/0 stop the program
        "  feenableexcept(FE_INVALID | FE_DIVBYZERO);",
        "#endif",
        *body,
        "  (void)i;",
        "  return 0;",
        "}",
    ]
    return "\n".join(lines) + "\n"


DERIVATIVE_TAG = "__d"  # the driver's name of an argument's derivative: x -> x__d


def with_derivatives(spec: Spec, name: str, diff_formals, lang: str, nbdirs: int | None = None,
                     function_result: str | None = None) -> Spec:
    """The signature of a tangent procedure `name` (Tapenade's order, paper 4.x): each
    argument in `diff_formals` followed by its derivative `x__d` of the same type and
    passing (vector mode, nbdirs given: an array of the directions, then `nbdirs` by value
    last); a function head returns the derivative and takes its result as a last pointer
    argument named `function_result`."""
    args = []
    for arg in spec.args:
        args.append(arg)
        if arg.name in diff_formals:
            dims = arg.dims if nbdirs is None else (nbdirs,) + (arg.dims or ())
            args.append(Arg(arg.name + DERIVATIVE_TAG, arg.type, dims, arg.pointer))
    result = spec.result
    if function_result is not None:
        args.append(Arg(function_result, spec.result, None, pointer=lang == "c"))
        if nbdirs is not None:  # a function's F_DV is a subroutine: the value's derivatives come last
            args.append(Arg(function_result + DERIVATIVE_TAG, spec.result, (nbdirs,)))
            result = None
    if nbdirs is not None:
        args.append(Arg("nbdirs", "i4", None, False, nbdirs))
    return Spec(name, tuple(args), result)


# ---------------------------------------------------------------------------
# Compile and run
# ---------------------------------------------------------------------------

class MissingCompiler(HarnessError):
    """gcc or gfortran is not installed."""


def missing_compilers(lang: str) -> list:
    needed = ["gcc"] + (["gfortran"] if lang == "fortran" else [])
    return [c for c in needed if shutil.which(c) is None]


def require_compilers(lang: str) -> None:
    """MissingCompiler when the compilers a language needs are not installed."""
    missing = missing_compilers(lang)
    if missing:
        raise MissingCompiler(f"compiler(s) not installed: {', '.join(missing)}")


_FIXED_COMMENT = re.compile(r"^[cC*]([ \t$]|$)")


def _guess_fixed_form(text: str) -> bool:
    """Fixed form if some line is a column-1 comment ('C ', 'c$AD', '*'); free-form lines
    starting in column 1 with 'contains' or 'call' do not match."""
    return any(_FIXED_COMMENT.match(line) for line in text.splitlines())


def _run(cmd: list[str], cwd: Path, what: str, error=CompileError, messages: list | None = None) -> str:
    """Run cmd; its stdout (its stderr appended to `messages` when given)."""
    try:
        proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, errors="replace",
                              timeout=RUN_TIMEOUT)
    except subprocess.TimeoutExpired:
        raise error(f"{what}: timed out after {RUN_TIMEOUT} s: {' '.join(cmd)}") from None
    if proc.returncode != 0:
        raise error(f"{what} failed (exit {proc.returncode}): {' '.join(cmd)}\n{proc.stderr}{proc.stdout}")
    if messages is not None:
        messages.append(proc.stderr)
    return proc.stdout


def compile_commands(lang: str, form: str | None, src: str, obj: str) -> list[str]:
    if lang == "fortran":
        return ["gfortran", "-O0", "-ffp-contract=off", f"-f{form}-form", "-J", ".",
                *(f"-I{d}" for d in FORTRAN_INCLUDES), "-c", src, "-o", obj]
    return ["gcc", "-O0", "-ffp-contract=off", "-std=c99", "-c", src, "-o", obj]


# The checked build: memory errors, undefined behaviour and (Fortran) out-of-bounds subscripts
# stop the program with a report. The C driver of a Fortran program is built with the
# sanitizers too (gcc warns that -fcheck is for Fortran only; the warning is harmless).
# gfortran's -ffpe-trap only acts from a Fortran main program: the C driver traps invalid
# operations and divisions by zero itself (feenableexcept), in C and Fortran alike.
_CHECKED_C = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer",
              f"-D{TRAP_FPE_MACRO}"]
CHECKED_FLAGS = {"c": _CHECKED_C, "fortran": ["-fcheck=all", *_CHECKED_C]}
CHECKED_ENV = {"ASAN_OPTIONS": "detect_leaks=1:detect_stack_use_after_return=1", "UBSAN_OPTIONS": "print_stacktrace=1"}


def compile_calls_and_run(sources: list, lang: str, calls: list, workdir, messages: list | None = None,
                          reports: list | None = None, flags: tuple = (), stdout: list | None = None,
                          one_process_per_call: bool = False) -> list:
    """Compile the source files `sources` ((file name, text) in order: modules first) with a
    driver making `calls`, in one gcc/gfortran -O0 -Wall call (the file suffix gives the
    Fortran form; the compiler's warnings are appended to `messages` when given); run it;
    return each call's outputs (name -> ndarray), in order.
    With `reports` given, the same program is built once more with CHECKED_FLAGS and run;
    what that run reports is appended to `reports` ('' when it is clean, see checked_run).
    `flags`: more compiler options, after the others (-O2, -I.); `stdout`: the run's output is
    appended to it (for parse_stack_probes); `one_process_per_call`: each call runs in a child process
    of its own (code that keeps state between calls: SAVE, static, COMMON, module variables)."""
    workdir = Path(workdir)
    build = [*_written(sources, lang, workdir), *flags, "driver.c", "-lm"]
    (workdir / "driver.c").write_text(build_calls_driver(calls, lang, one_process_per_call))
    _run([*build, "-o", "prog"], workdir, f"compiling {lang} sources", messages=messages)
    out = _run([str(workdir / "prog")], workdir, "running", RunError)
    if stdout is not None:
        stdout.append(out)
    by_tag = _lines_by_tag(out, calls)
    outputs = [parse_output(by_tag.get(call.tag, ""), call.spec, call.tag) for call in calls]
    if reports is not None:
        reports.append(checked_run([*build, *CHECKED_FLAGS[lang]], workdir, calls, outputs))
    return outputs


def _lines_by_tag(stdout: str, calls: list) -> dict:
    """The driver's output lines grouped by the call they belong to (tag -> text): parsing
    every call from the whole output is quadratic in the number of calls."""
    names = {call.tag: {a.name for a in call.spec.args} | {RESULT} for call in calls}
    lengths = sorted({len(t) for t in names}, reverse=True)
    groups: dict = {}
    for line in stdout.splitlines():
        if not line.startswith(OUTPUT_TAG + " "):
            continue
        name = line.split(None, 2)[1]
        tag = next((name[:k] for k in lengths if name[:k] in names and name[k:] in names[name[:k]]), None)
        groups.setdefault(tag, []).append(line)
    return {tag: "\n".join(lines) for tag, lines in groups.items()}


def _written(sources: list, lang: str, workdir: Path) -> list:
    """The sources written in workdir; the compiler command (-O0 -Wall) that compiles them."""
    require_compilers(lang)
    workdir.mkdir(parents=True, exist_ok=True)
    for filename, text in sources:
        (workdir / filename).write_text(text)
    compiler = ["gfortran", "-J", ".", *(f"-I{d}" for d in FORTRAN_INCLUDES)] if lang == "fortran" else ["gcc", "-std=c99"]
    compiled = [f for f, _ in sources if not f.endswith(".h")]  # headers are only written
    return [*compiler, "-O0", "-Wall", "-ffp-contract=off", *compiled]


def compile_only(sources: list, lang: str, workdir, messages: list | None = None) -> None:
    """Compile the sources (as compile_calls_and_run, no driver, -c); the compiler's warnings
    are appended to `messages`; CompileError when it fails."""
    workdir = Path(workdir)
    _run([*_written(sources, lang, workdir), "-c"], workdir, f"compiling {lang} sources", messages=messages)


def checked_run(build: list, workdir: Path, calls: list, outputs: list) -> str:
    """Build with the command `build` (a checked build of the program that gave `outputs`)
    and run it: '' when it exits 0 with no sanitizer report and prints the same outputs bit
    for bit, else what went wrong (the report)."""
    try:
        _run([*build, "-o", "prog_checked"], workdir, "compiling with run-time checks")
        proc = subprocess.run([str(workdir / "prog_checked")], cwd=workdir, capture_output=True, text=True,
                              timeout=RUN_TIMEOUT, env={**os.environ, **CHECKED_ENV})
    except CompileError as e:
        return str(e)
    except subprocess.TimeoutExpired:
        return f"the checked build timed out after {RUN_TIMEOUT} s"
    if proc.returncode != 0 or "Sanitizer" in proc.stderr or "runtime error" in proc.stderr:
        return f"the checked build failed (exit {proc.returncode}) in {workdir}:\n{proc.stderr}"
    try:
        diffs = [f"{call.tag}{d}" for call, want in zip(calls, outputs)
                 for d in compare_bits(want, parse_output(proc.stdout, call.spec, call.tag))]
    except RunError as e:
        return f"the checked build's output: {e}"
    return "the checked build's outputs differ from the plain build's:\n" + "\n".join(diffs) if diffs else ""


def compile_and_run(source_text: str, lang: str, spec: Spec, inputs: dict, workdir,
                    form: str | None = None) -> dict:
    """Compile `source_text` (language 'fortran' or 'c'; Fortran form 'free'|'fixed', guessed
    when None) with a driver calling its head on `inputs`; run it; return name -> ndarray."""
    require_compilers(lang)
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    if lang == "fortran":
        form = form or ("fixed" if _guess_fixed_form(source_text) else "free")
        src = "prog.f" if form == "fixed" else "prog.f90"
    else:
        src = "prog.c"
    (workdir / src).write_text(source_text)
    (workdir / "driver.c").write_text(build_driver(spec, lang, inputs))
    _run(compile_commands(lang, form, src, "prog.o"), workdir, f"compiling {lang} source")
    _run(compile_commands("c", None, "driver.c", "driver.o"), workdir, "compiling driver")
    linker = "gfortran" if lang == "fortran" else "gcc"
    _run([linker, "driver.o", "prog.o", "-lm", "-o", "prog"], workdir, "linking")
    out = _run([str(workdir / "prog")], workdir, "running", RunError)
    return parse_output(out, spec)


def parse_output(stdout: str, spec: Spec, tag: str = "") -> dict:
    """The driver's output lines (of the call tagged `tag`) -> name -> ndarray (shapes as
    make_inputs)."""
    shapes = {a.name: (a.type, a.dims, a.size) for a in spec.args}
    if spec.result:
        shapes[RESULT] = (spec.result, None, 1)
    values: dict = {name: {} for name in shapes}
    for line in stdout.splitlines():
        if not line.startswith(OUTPUT_TAG):
            continue
        _, name, index, *fields = line.split()
        if tag:
            if not name.startswith(tag):
                continue
            name = name[len(tag):]
        if name not in values:
            raise RunError(f"driver printed unknown name {name!r}")
        typ = shapes[name][0]
        if typ == "c8":
            values[name][int(index)] = complex(float.fromhex(fields[0]), float.fromhex(fields[1]))
        elif typ in ("r4", "r8"):
            values[name][int(index)] = float.fromhex(fields[0])
        else:
            values[name][int(index)] = int(fields[0])
    result = {}
    for name, (typ, dims, size) in shapes.items():
        got = values[name]
        if sorted(got) != list(range(size)):
            raise RunError(f"driver output for {name!r} incomplete: {len(got)} of {size} values\n{stdout}")
        arr = np.array([got[i] for i in range(size)], dtype=TYPES[typ][0])
        result[name] = arr if dims else arr.reshape(())
    return result


# ---------------------------------------------------------------------------
# The IL interpreter
# ---------------------------------------------------------------------------

def interp_run(il_file, spec: Spec, inputs: dict, lang: str | None = None) -> dict:
    """Call the head on the IL interpreter with copies of `inputs`; return name -> ndarray,
    shaped like compile_and_run's result. Fortran: every argument an ndarray (0-d for scalars)
    passed by reference. C: pointers/arrays as ndarrays, by-value scalars as numpy scalars."""
    from adspec.engine.interp import Interpreter

    lang = lang or il_file.ann.get("lang", "fortran")
    actuals = []
    for arg in spec.args:
        value = np.array(inputs[arg.name], dtype=TYPES[arg.type][0], copy=True)
        if lang == "c" and arg.by_value:
            actuals.append(value[()])
        elif lang == "c" and arg.pointer:
            actuals.append(value.reshape(1))
        else:
            actuals.append(value)
    returned = Interpreter(il_file).call(spec.name, actuals)
    outputs = {}
    for arg, actual in zip(spec.args, actuals):
        value = np.asarray(actual, dtype=TYPES[arg.type][0])
        outputs[arg.name] = value.reshape(-1) if arg.dims else value.reshape(())
    if spec.result:
        outputs[RESULT] = np.asarray(returned, dtype=TYPES[spec.result][0]).reshape(())
    return outputs


# ---------------------------------------------------------------------------
# Comparisons: each returns a list of differences, empty when the outputs agree
# ---------------------------------------------------------------------------

def _same_keys(a: dict, b: dict) -> list[str]:
    return [f"{k}: missing on one side" for k in sorted(set(a) ^ set(b))]


def compare_bits(a: dict, b: dict) -> list[str]:
    """Differences between two outputs, compared bit for bit (NaNs with equal bits match)."""
    diffs = _same_keys(a, b)
    for name in sorted(set(a) & set(b)):
        x, y = np.asarray(a[name]).reshape(-1), np.asarray(b[name]).reshape(-1)
        if x.dtype != y.dtype or x.shape != y.shape:
            diffs.append(f"{name}: {x.dtype}{x.shape} vs {y.dtype}{y.shape}")
            continue
        for i, (u, v) in enumerate(zip(x, y)):
            if u.tobytes() != v.tobytes():
                diffs.append(f"{name}[{i}]: {_show(u)} vs {_show(v)}")
    return diffs


def compare_rel(a: dict, b: dict, rtol: float) -> list[str]:
    """Differences beyond |x-y| <= rtol * max(|x|, |y|, max|a[name]|) elementwise: the last
    term is the array's scale, so values that cancel to near zero do not fail spuriously.
    Integers must be equal."""
    diffs = _same_keys(a, b)
    for name in sorted(set(a) & set(b)):
        x, y = np.asarray(a[name]).reshape(-1), np.asarray(b[name]).reshape(-1)
        if x.shape != y.shape:
            diffs.append(f"{name}: shape {x.shape} vs {y.shape}")
            continue
        if np.issubdtype(x.dtype, np.integer) and np.issubdtype(y.dtype, np.integer):
            bad = np.nonzero(x != y)[0]
        else:
            x, y = x.astype(np.complex128), y.astype(np.complex128)
            scale = max(np.max(np.abs(x), initial=0.0), np.max(np.abs(y), initial=0.0))
            tol = rtol * np.maximum(np.maximum(np.abs(x), np.abs(y)), scale)
            close = (np.abs(x - y) <= tol) | (x == y)
            bad = np.nonzero(~close)[0]
        diffs += [f"{name}[{i}]: {_show(x[i])} vs {_show(y[i])}" for i in bad]
    return diffs


def _show(v) -> str:
    if isinstance(v, (np.floating, float)):
        return f"{float(v)!r} ({float(v).hex()})"
    if isinstance(v, (np.complexfloating, complex)):
        return f"{complex(v)!r}"
    return repr(v)
