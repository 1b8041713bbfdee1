"""`adspec check PRIMAL... -head "f(y)/(x)" --jacobian JACPROC`: a hand-written Jacobian routine
(MINPACK's `SSQJAC(M, N, X, FJAC, LDFJAC, NPROB)` beside `SSQFCN(M, N, X, FVEC, NPROB)`, C's
`jac(m, n, x, fjac, ldfjac)`) compared entry by entry with adspec's tangent of the head.

Argument mapping: JACPROC's formals named like the head's get the same values; its one remaining
real array is the Jacobian, fjac(i, j) = d F_i / d x_j (rows: the dependents' entries in head
order; columns: the independents'), stored by columns (MINPACK) with the remaining integer as its
leading dimension, set to the number of rows. The arguments file's `[jacobian]` table overrides:
`array = "fjac"`, `leading = "ldfjac"`, `layout = "columns" | "rows"` (C's `jac[j*m+i]` or
`jac[i*n+j]`). Other formals of JACPROC come from the arguments file like the head's.

The Jacobian array holds garbage (UNSET) on entry, so an entry the routine leaves unset shows; the
routine must leave its other arguments unchanged. One program is compiled for every point (and,
from Python, several argument sets): per point one call of JACPROC and one run of adspec's
tangent per independent entry (direction e_j gives column j).
"""
from __future__ import annotations

import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from adspec.engine.errors import SourceError

from . import harness
from .argsfile import Args, evaluate_dims
from .compare import RTOL, RTOL_SINGLE, element_name, is_wrong, relative_error
from .harness import Call, CompileError, RunError, Spec, compile_calls_and_run
from .points import Layout, draw_point, layout
from .prototype import Procedure, base_name, check_readable, match, read_procedures
from .reference import reference_tangent
from .report import CheckReport, ProcedureResult
from .runs import Side

UNSET = -1.25e300     # the Jacobian array on entry: an entry left unset (or accumulated into) shows
LAYOUTS = ("columns", "rows")
COMMAND_LINE = "<command line>"
MAX_ENTRIES_SHOWN = 12


@dataclass(frozen=True)
class Storage:
    """Where JACPROC puts the Jacobian."""
    array: str
    leading: str | None       # the integer argument holding the leading dimension (None: none)
    by_columns: bool          # fjac[i + j*ld] (MINPACK), else fjac[i*ld + j]

    def position(self, row: int, column: int, ld: int) -> int:
        return row + column * ld if self.by_columns else row * ld + column


def storage(jac: Procedure, head: Procedure, table: dict, args: Args) -> Storage:
    """Which argument of JACPROC is the Jacobian, which its leading dimension, how it is stored:
    the formals not named like the head's, unless the [jacobian] table (of `args`' file) says."""
    extra = [f for f in jac.formals if f.name not in {g.name for g in head.formals}]
    arrays = [f.name for f in extra if f.real and (f.dims or f.pointer)]
    integers = [f.name for f in extra if f.type in ("i4", "i8") and not (f.dims or f.pointer)]
    how = table.get("layout", "columns")
    if how not in LAYOUTS:
        raise args.error(f"[jacobian] layout = {how!r}: one of {', '.join(LAYOUTS)}", "jacobian", "layout")
    array = table.get("array")
    if array is None:
        if len(arrays) != 1:
            why = "no real array" if not arrays else f"real arrays {', '.join(arrays)}"
            raise args.error(f"{jac.name}: {why} besides {head.name}'s arguments: name the Jacobian with "
                             f"[jacobian] array = \"...\" in the arguments file", "jacobian")
        array = arrays[0]
    leading = table.get("leading")
    if leading is None and len(integers) > 1:
        raise args.error(f"{jac.name}: integers {', '.join(integers)} besides {head.name}'s arguments: name the "
                         f"leading dimension with [jacobian] leading = \"...\" in the arguments file", "jacobian")
    leading = leading or (integers[0] if integers else None)
    for key, name in (("array", array), ("leading", leading)):
        if name is not None and name not in {f.name for f in jac.formals}:
            raise args.error(f"[jacobian]: {jac.name} has no argument {name}", "jacobian", key)
    return Storage(array, leading, how == "columns")


def _arguments(args, args_file) -> list:
    """The argument sets as Args. `args`: a dict in the arguments file's structure or a list of
    them (several sets checked in one program)."""
    if args is not None and args_file is not None:
        raise SourceError("give the arguments either as a file or as a dict, not both", COMMAND_LINE)
    if args_file is not None:
        return [Args.load(args_file)]
    return [Args(s, "<args>") for s in (args if isinstance(args, (list, tuple)) else [args or {}])]


def _with_jacobian_sizes(arguments: Args, jac: Procedure, where: Storage, ld: int, rows: int, columns: int) -> Args:
    """The arguments of JACPROC: the leading dimension's value (unless given) and the Jacobian's
    shape where its declaration does not fix it (C pointer, Fortran assumed size)."""
    data = {k: dict(v) if isinstance(v, dict) else v for k, v in arguments.data.items()}
    if where.leading is not None:
        data.setdefault(where.leading, {}).setdefault("value", ld)
    array = next(f for f in jac.formals if f.name == where.array)
    integers = {k: v["value"] for k, v in data.items() if isinstance(v, dict) and isinstance(v.get("value"), int)}
    if "shape" not in data.get(where.array, {}) and evaluate_dims(array.dims, integers, jac.lang) is None:
        other = columns if where.by_columns else rows
        shape = [ld, other] if jac.lang == "fortran" and array.dims and len(array.dims) == 2 else [ld * other]
        data.setdefault(where.array, {})["shape"] = shape
    return Args(data, arguments.filename, arguments.text)


@dataclass
class _Point:
    """One point of one argument set: JACPROC's call and the reference's columns."""
    args_set: int
    point: int
    head: Layout
    jac: Layout
    ref: Side
    rows: list          # (dependent, flat index) per Jacobian row
    columns: list       # (independent, flat index) per Jacobian column
    ld: int
    jac_call: Call
    tag: str


@dataclass
class JacobianReport(CheckReport):
    """CheckReport of mode "jacobian", with the wrong entries named in JACPROC's terms."""
    wrong_entries: list = field(default_factory=list)
    shape: tuple | None = None      # (rows, columns) of the Jacobian, when one for every point
    args_sets: int = 1

    def to_dict(self) -> dict:
        return {**super().to_dict(), "wrong_entries": self.wrong_entries}

    def text(self) -> str:
        lines = [f"adspec check of the hand-written Jacobian {self.procedure} against adspec's tangent of "
                 f"{self.head}, {self.points} point(s)"
                 + (f" for each of {self.args_sets} argument sets" if self.args_sets > 1 else "") + f", seed {self.seed}"]
        lines += [f"error: {e}" for e in self.errors]
        if self.checked_entries:
            lines.append(f"Jacobian entries compared: {self.checked_entries}, max relative error "
                         f"{self.max_relative_error:.3g}")
        entries = _entry_lines(self.wrong_entries)
        lines += entries[:MAX_ENTRIES_SHOWN]
        if len(entries) > MAX_ENTRIES_SHOWN:
            lines.append(f"  ... {len(entries) - MAX_ENTRIES_SHOWN} more (--json for all)")
        changed = [k for k, v in (self.contract or {}).get("inputs_unchanged", {}).items() if not v]
        if changed:
            lines.append(f"{self.procedure} changes its input(s) {', '.join(changed)}")
        total = self.timings.get("total_s")
        took = f", {total:.1f} s" if total is not None else ""
        if self.ok:
            shape = "{}x{} ".format(*self.shape) if self.shape else ""
            lines.append(f"adspec check: PASS (every entry of the {shape}Jacobian agrees, "
                         f"{self.checked_entries} entries{took})")
        elif self.wrong_entries:
            lines.append(f"adspec check: FAIL ({len(entries)} wrong entr{'y' if len(entries) == 1 else 'ies'}, "
                         f"first {self.wrong_entries[0]['entry']}{took})")
        else:
            why = self.errors[0].splitlines()[0] if self.errors else "nothing could be compared"
            lines.append(f"adspec check: FAIL ({why}{took})")
        return "\n".join(lines)


def check_jacobian(primal, head: str, jacobian: str, args=None, args_file=None, points: int = 3, seed: int = 0,
                   workdir=None, timeout=None) -> JacobianReport:
    """Compare the Jacobian the routine `jacobian` (defined in the primal files) computes with
    adspec's tangent of `head`, entry by entry, at `points` random points (per argument set)."""
    from adspec.frontends import language_of, read_source
    from adspec.heads import parse_heads

    start = time.perf_counter()
    primal = [str(p) for p in ([primal] if isinstance(primal, (str, Path)) else primal)]
    check_readable(primal, "primal")
    if points < 1:
        raise SourceError("--points must be at least 1", COMMAND_LINE)
    argument_sets = _arguments(args, args_file)
    lang = language_of(primal[0])[0]
    fold = str.lower if lang == "fortran" else (lambda s: s)
    procs = read_procedures(primal)
    heads = parse_heads(head)
    if len(heads) != 1:
        raise SourceError("-head: give one head procedure", COMMAND_LINE)
    head_name, jac_name = fold(heads[0].procedure), fold(jacobian)
    for name, what in ((head_name, "-head"), (jac_name, "--jacobian")):
        if name not in procs:
            raise SourceError(f"{what}: no procedure {name!r} in the primal files", COMMAND_LINE)
    head_proc, jac_proc = procs[head_name], procs[jac_name]
    report = JacobianReport("jacobian", head, primal, [jacobian], points, seed, procedure=jac_name,
                            args_sets=len(argument_sets))
    where = storage(jac_proc, head_proc, argument_sets[0].jacobian, argument_sets[0])
    report.errors += [f"prototype mismatch: {jac_name}'s argument {f.name} is {f.type}, {head_name}'s is {g.type}"
                      for f in jac_proc.formals for g in head_proc.formals if f.name == g.name and f.type != g.type]

    t = time.perf_counter()
    reference = reference_tangent(primal, [head], lang)
    report.timings["reference_s"] = round(time.perf_counter() - t, 3)
    names = reference.heads[0]
    formals = {f.name for f in head_proc.formals}
    deps = tuple(dict.fromkeys(fold(base_name(n)) for n in names.dependents))
    indeps = tuple(dict.fromkeys(fold(base_name(n)) for n in names.independents))
    if not set(deps + indeps) <= formals:
        raise SourceError(f"--jacobian: the head's variables must be arguments of {head_name} "
                          f"(not {', '.join(sorted(set(deps + indeps) - formals))})", COMMAND_LINE)
    ref_dp = match(reference.procs[head_name], head_proc, "tangent")

    calls, cases = [], []
    for a, arguments in enumerate(argument_sets):
        head_layout = layout(head_proc, arguments)
        ref = Side(ref_dp, head_layout)
        rows = [(v, k) for v in deps for k in range(ref.size(v))]
        columns = [(v, k) for v in indeps for k in range(ref.size(v))]
        default_ld = len(rows) if where.by_columns else len(columns)
        ld = arguments.value(where.leading) if where.leading and arguments.value(where.leading) else default_ld
        jac_args = _with_jacobian_sizes(arguments, jac_proc, where, ld, len(rows), len(columns))
        jac_layout = layout(jac_proc, jac_args)
        need = where.position(len(rows) - 1, len(columns) - 1, ld) + 1 if rows and columns else 0
        if jac_layout.arg(where.array).size < need:
            raise arguments.error(f"{jac_name}: {where.array} has {jac_layout.arg(where.array).size} elements, a "
                                  f"{len(rows)}x{len(columns)} Jacobian with leading dimension {ld} needs {need}",
                                  where.array)
        jac_spec = Spec(jac_name, jac_layout.args, None, jac_proc.symbol)
        for p in range(points):
            rng = np.random.default_rng([seed, p] + ([a] if a else []))
            point = draw_point(head_layout, arguments, rng)
            jac_inputs = {**draw_point(jac_layout, jac_args, rng),
                          **{k: v for k, v in point.items() if k in jac_layout.shapes}}
            jac_inputs[where.array] = np.full(jac_layout.arg(where.array).size, UNSET)
            tag = f"a{a}p{p}"
            case = _Point(a, p, head_layout, jac_layout, ref, rows, columns, ld, Call(jac_spec, jac_inputs, f"{tag}j_"),
                          tag)
            calls.append(case.jac_call)
            for j, (var, k) in enumerate(columns):
                direction = np.zeros(ref.size(var))
                direction[k] = 1.0
                calls.append(ref.call(point, {var: direction}, f"{tag}d{j}_"))
            cases.append(case)
    shapes = {(len(c.rows), len(c.columns)) for c in cases}
    report.shape = shapes.pop() if len(shapes) == 1 else None

    outputs = None
    if not report.errors:
        from .check import _short, keeps_state, modules_first
        sources = [(Path(p).name, read_source(p)) for p in modules_first(primal)]
        sources.append((reference.filename, reference.text))
        dirs = sorted({str(Path(p).resolve().parent) for p in primal})
        work = Path(workdir) if workdir else Path(tempfile.mkdtemp(prefix="adspec-check-"))
        previous_timeout = harness.RUN_TIMEOUT
        harness.RUN_TIMEOUT = timeout or previous_timeout
        t = time.perf_counter()
        try:
            results = compile_calls_and_run(sources, lang, calls, work, flags=("-I.", *(f"-I{d}" for d in dirs)),
                                            one_process_per_call=keeps_state(primal))
            outputs = {c.tag: o for c, o in zip(calls, results)}
        except CompileError as e:
            report.errors.append(f"compile error: {_short(str(e))}")
        except RunError as e:
            report.errors.append(f"run error ({jac_name} crashed or looped?): {_short(str(e))}")
        finally:
            harness.RUN_TIMEOUT = previous_timeout
            if not workdir:
                shutil.rmtree(work, ignore_errors=True)
        report.timings["compile_and_run_s"] = round(time.perf_counter() - t, 3)
    if outputs is not None:
        unchanged = {f.name: True for f in jac_proc.formals if f.name != where.array}
        for case in cases:
            _compare(case, outputs, where, report)
            for name in _changed_inputs(case.jac_call, outputs[case.jac_call.tag], where):
                unchanged[name] = False
        report.contract = {"inputs_unchanged": unchanged}
        report.wrong_pairs = [_pair(w) for w in report.wrong_entries]
        wrong = report.wrong_pairs != []
        report.first_wrong_procedure = jac_name if wrong else None
        report.procedures = [ProcedureResult(head_name, jac_name, "fail" if wrong else "pass",
                                             report.max_relative_error, report.wrong_pairs, head=head)]
    report.timings["total_s"] = round(time.perf_counter() - start, 3)
    return report


def _changed_inputs(call: Call, outputs: dict, where: Storage) -> list:
    """JACPROC's arguments other than the Jacobian whose values it changed (MINPACK: it must not)."""
    return [name for name, value in call.inputs.items() if name != where.array
            and np.asarray(value).reshape(-1).tobytes() != np.asarray(outputs[name]).reshape(-1).tobytes()]


def _compare(case: _Point, outputs: dict, where: Storage, report: JacobianReport) -> None:
    """The entries of one point's Jacobian: counted, the wrong ones added to the report."""
    fjac = np.asarray(outputs[case.jac_call.tag][where.array]).reshape(-1)
    columns = [case.ref.derivatives(outputs[f"{case.tag}d{j}_"]) for j in range(len(case.columns))]
    reference = np.array([[col[var][k] for col in columns] for var, k in case.rows]).reshape(
        len(case.rows), len(case.columns))
    if not np.all(np.isfinite(reference)):
        report.errors.append(f"adspec's derivative is not finite at point {case.point}: give the inputs a range "
                             "that keeps the function in its domain ([x] range = [low, high])")
        return
    scale = float(np.max(np.abs(reference), initial=0.0))
    single = any(a.type == "r4" for a in case.head.args + case.jac.args)   # single precision takes part
    rtol = RTOL_SINGLE if single else RTOL
    lang = case.head.proc.lang
    for i, (dep, k) in enumerate(case.rows):
        for j, (ind, l) in enumerate(case.columns):
            position = where.position(i, j, case.ld)
            c, r = float(fjac[position]), float(reference[i, j])
            report.checked_entries += 1
            report.max_relative_error = max(report.max_relative_error, relative_error(c, r))
            if not is_wrong(c, r, scale, rtol):
                continue
            row, column = (i, j) if lang == "c" else (i + 1, j + 1)
            entry = element_name(where.array, case.jac.index(where.array, position), lang)
            dep_index, ind_index = case.head.index(dep, k), case.head.index(ind, l)
            report.wrong_entries.append({
                "entry": entry, "row": row, "column": column, "candidate": c, "reference": r,
                "relative_error": relative_error(c, r), "point": case.point, "args_set": case.args_set,
                "dependent": dep, "dependent_index": dep_index, "independent": ind, "independent_index": ind_index,
                "meaning": f"d {element_name(dep, dep_index, lang)}/d {element_name(ind, ind_index, lang)}",
                "unset": c == UNSET})


def _pair(entry: dict) -> dict:
    """The entry as a (dependent, independent) pair of the team's schema."""
    keys = ("dependent", "dependent_index", "independent", "independent_index", "candidate", "reference",
            "relative_error", "point")
    return {**{k: entry[k] for k in keys}, "entry": entry["meaning"]}


def _entry_lines(wrong: list) -> list:
    """One line per wrong entry (and argument set): its first point's values, the other points named."""
    first, others = {}, {}
    for w in wrong:
        key = (w["args_set"], w["entry"])
        if key in first:
            others[key].append(str(w["point"]))
        else:
            first[key], others[key] = w, []
    lines = []
    for key, w in first.items():
        shown = w["entry"] if w["entry"].endswith(f"({w['row']},{w['column']})") \
            else f"{w['entry']} (row {w['row']}, column {w['column']})"
        point = f"point {w['point']}" + (f" of argument set {w['args_set']}" if w["args_set"] else "")
        also = f" (and at point(s) {', '.join(others[key])})" if others[key] else ""
        lines.append(f"  {shown} = {w['meaning']}: hand-written {w['candidate']:.6g}"
                     + (" (left unset)" if w["unset"] else "")
                     + f", adspec {w['reference']:.6g}, relative error {w['relative_error']:.2g}, at {point}{also}")
    return lines
