"""`adspec check PRIMAL... -head "f(y)/(x)" --jacobian JACPROC`: a hand-written Jacobian routine
(MINPACK's `SSQJAC(M, N, X, FJAC, LDFJAC, NPROB)` beside `SSQFCN(M, N, X, FVEC, NPROB)`, C's
`jac(m, n, x, fjac, ldfjac)`) compared entry by entry with adspec's tangent of the head.

Argument mapping: JACPROC's formals named like the head's get the same values; its remaining real
array is the Jacobian, fjac(i, j) = d F_i / d x_j (the dependents' entries in head order are the
rows, the independents' the columns), stored by columns (MINPACK) with the remaining integer as its
leading dimension, set to the number of rows. The args file's `[jacobian]` table overrides:
`array = "fjac"`, `leading = "ldfjac"`, `layout = "columns" | "rows"` (C's `jac[j*m+i]` or `jac[i*n+j]`).

One program is compiled for all points (and argument sets): per point one call of JACPROC and one
run of the tangent per independent entry (direction e_j gives column j).
"""
from __future__ import annotations

import math
import tempfile
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..engine.errors import SourceError
from . import harness
from .harness import Arg, Call, Spec

RTOL = 1e-9           # an entry is wrong when |hand - adspec| > RTOL * max(|adspec|, its column's largest)
UNSET = -1.25e300     # the Jacobian array holds this garbage on entry: an entry left unset (or accumulated
                      # into) shows (the harness writes finite literals only)
DEFAULT_RANGE = (0.5, 1.5)
LAYOUTS = ("columns", "rows")
_TYPE_CODES = {("real", 8): "r8", ("real", 4): "r4", ("real", None): "r4", ("integer", 4): "i4",
               ("integer", None): "i4", ("integer", 8): "i8", ("logical", 4): "l4", ("logical", None): "l4"}


# ---------------------------------------------------------------------------
# Prototypes (the part adspec/oracle/prototype.py is to provide)
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Formal:
    name: str
    type: str                 # harness type code (r8, i4, ...)
    dims: tuple | None        # Fortran declared IL `dim` nodes; None for a scalar or a C pointer
    pointer: bool = False     # C pointer (its element count comes from the args file)


def _formals(program, name: str, where: str) -> list:
    try:
        proc = program.procedure(name)
    except KeyError as e:
        raise SourceError(f"{e.args[0]} in the primal files", where) from None
    formals = []
    for formal in proc.formals:
        symbol = proc.scope.lookup(formal)
        typ = proc.scope.type_of(formal)
        key = (typ.kids[0], typ.kids[1]) if typ is not None and typ.op == "type" else None
        if key not in _TYPE_CODES:
            raise SourceError(f"{name}: argument {formal} of type {typ} is not supported by --jacobian", where)
        formals.append(Formal(formal, _TYPE_CODES[key], symbol.dims if symbol is not None else None,
                              bool(symbol is not None and symbol.ptr)))
    return formals


# ---------------------------------------------------------------------------
# Sizes and values
# ---------------------------------------------------------------------------

def _integer(node, values: dict, what: str) -> int:
    """An integer expression of a declared bound (names: integer arguments)."""
    op, kids = node.op, node.kids
    if op == "intCst":
        return int(kids[0])
    if op == "ident":
        if kids[0] not in values:
            raise SourceError(f"{what}: its size depends on {kids[0]}: give [{kids[0]}] value = ... in the args file")
        return int(values[kids[0]])
    if op in ("add", "sub", "mul", "div"):
        a, b = (_integer(k, values, what) for k in kids)
        return {"add": a + b, "sub": a - b, "mul": a * b, "div": int(a / b) if b else 0}[op]
    if op == "minus":
        return -_integer(kids[0], values, what)
    raise SourceError(f"{what}: cannot evaluate its declared size; give [{what}] shape = [...] in the args file")


def _bounds(formal: Formal, table: dict, values: dict, where: str) -> list | None:
    """(lower, extent) per dimension: the args file's shape, else the Fortran declaration."""
    shape = table.get(formal.name, {}).get("shape")
    if shape is not None:
        extents = [int(values[s]) if isinstance(s, str) and s in values else s for s in shape]
        if not all(isinstance(e, int) and e >= 0 for e in extents):
            raise SourceError(f"[{formal.name}] shape = {shape}: integers or names of integer arguments", where)
        return [(1 if formal.dims else 0, e) for e in extents]
    if formal.dims is None:
        if formal.pointer:
            raise SourceError(f"{formal.name} is a pointer: give its element count, [{formal.name}] shape = [...]",
                              where)
        return None
    bounds = []
    for dim in formal.dims:
        lo_node, hi_node = dim.kids
        if hi_node is None:
            raise SourceError(f"{formal.name} is assumed-size: give [{formal.name}] shape = [...] in the args file",
                              where)
        lo = 1 if lo_node is None else _integer(lo_node, values, formal.name)
        bounds.append((lo, _integer(hi_node, values, formal.name) - lo + 1))
    return bounds


def _arg(formal: Formal, bounds: list | None) -> Arg:
    if bounds is None:
        return Arg(formal.name, formal.type)
    return Arg(formal.name, formal.type, tuple(e for _, e in bounds) or (1,))


def _element(name: str, bounds: list | None, flat: int, lang: str) -> str:
    """Source-language name of element `flat` (memory order) of an argument."""
    if bounds is None:
        return name
    if lang == "c":
        return f"{name}[{flat}]"
    index = np.unravel_index(flat, [e for _, e in bounds], order="F")
    return f"{name}({','.join(str(int(i) + lo) for i, (lo, _) in zip(index, bounds))})"


def _source_index(bounds: list | None, flat: int, lang: str) -> list:
    if bounds is None:
        return []
    if lang == "c":
        return [flat]
    index = np.unravel_index(flat, [e for _, e in bounds], order="F")
    return [int(i) + lo for i, (lo, _) in zip(index, bounds)]


# ---------------------------------------------------------------------------
# The Jacobian routine's layout
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Layout:
    array: str
    leading: str | None       # the integer argument holding the leading dimension (None: none)
    by_columns: bool          # fjac[i + j*ld] (MINPACK), else fjac[i*ld + j]

    def position(self, row: int, column: int, ld: int) -> int:
        return row + column * ld if self.by_columns else row * ld + column


def jacobian_layout(jac: list, head: list, table: dict, jacproc: str, where: str) -> Layout:
    """Which argument of JACPROC is the Jacobian, which its leading dimension, how it is stored:
    the formals not named like the head's, unless the args file's [jacobian] table says."""
    names = {f.name for f in head}
    extra = [f for f in jac if f.name not in names]
    arrays = [f.name for f in extra if f.type in ("r4", "r8") and (f.dims or f.pointer)]
    integers = [f.name for f in extra if f.type in ("i4", "i8") and not (f.dims or f.pointer)]
    layout = table.get("layout", "columns")
    if layout not in LAYOUTS:
        raise SourceError(f"[jacobian] layout = {layout!r}: one of {', '.join(LAYOUTS)}", where)
    array = table.get("array")
    if array is None:
        if len(arrays) != 1:
            why = "no real array" if not arrays else f"real arrays {', '.join(arrays)}"
            raise SourceError(f"{jacproc}: {why} besides the head's arguments: name the Jacobian with "
                              f"[jacobian] array = \"...\" in the args file", where)
        array = arrays[0]
    leading = table.get("leading")
    if leading is None and len(integers) > 1:
        raise SourceError(f"{jacproc}: integers {', '.join(integers)} besides the head's arguments: name the "
                          f"leading dimension with [jacobian] leading = \"...\" in the args file", where)
    if leading is None and integers:
        leading = integers[0]
    for name in (array, leading):
        if name is not None and name not in {f.name for f in jac}:
            raise SourceError(f"[jacobian]: {jacproc} has no argument {name}", where)
    return Layout(array, leading, layout == "columns")


# ---------------------------------------------------------------------------
# The check
# ---------------------------------------------------------------------------

@dataclass
class JacobianReport:
    """The report of the API note (mode "jacobian"), with `wrong_entries`."""
    data: dict
    lines: list = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.data["verdict"] == "pass"

    def to_dict(self) -> dict:
        return self.data

    def text(self) -> str:
        return "\n".join(self.lines)


@dataclass
class _Case:
    """One point of one argument set: the values, the sizes, the calls of the driver."""
    args_set: int
    point: int
    values: dict
    bounds: dict
    rows: list          # (dependent, flat index) per Jacobian row
    columns: list       # (independent, flat index) per Jacobian column
    ld: int
    calls: list


def _read_args(args, args_file) -> list:
    """The argument sets: a dict (the args file's structure), a list of them, or the args file."""
    if args_file is not None:
        try:
            with open(args_file, "rb") as f:
                return [tomllib.load(f)]
        except OSError as e:
            raise SourceError(f"cannot read the args file: {e.strerror}", str(args_file)) from None
        except tomllib.TOMLDecodeError as e:
            raise SourceError(f"bad TOML: {e}", str(args_file)) from None
    if args is None:
        return [{}]
    return list(args) if isinstance(args, (list, tuple)) else [args]


def _case(args_set: int, point: int, table: dict, rng, head_formals: list, jac_formals: list, layout: Layout,
          heads, tangent, lang: str, jacproc: str, where: str) -> _Case:
    values = {name: int(t["value"]) for name, t in table.items() if isinstance(t, dict) and "value" in t}
    bounds = {f.name: _bounds(f, table, values, where) for f in head_formals}
    rows = [(d, k) for d in heads.dependents for k in range(_size(bounds[d]))]
    columns = [(x, k) for x in heads.independents for k in range(_size(bounds[x]))]
    n_rows_guess = len(rows) if layout.by_columns else len(columns)
    ld = int(values.setdefault(layout.leading, n_rows_guess)) if layout.leading else n_rows_guess
    inputs = {}
    for f in head_formals:
        if f.type in ("r4", "r8"):
            lo, hi = table.get(f.name, {}).get("range", DEFAULT_RANGE)
            inputs[f.name] = rng.uniform(lo, hi, _size(bounds[f.name])).astype(harness.TYPES[f.type][0])
        elif f.name in values:
            inputs[f.name] = np.full(_size(bounds[f.name]), values[f.name], dtype=harness.TYPES[f.type][0])
        else:
            raise SourceError(f"integer argument {f.name}: give its value, [{f.name}] value = ..., in the args file",
                              where)
    for f in jac_formals:
        if f.name in bounds:
            continue
        if f.name == layout.array:
            extents = len(columns) if layout.by_columns else len(rows)
            shape = table.get(f.name, {}).get("shape")
            bounds[f.name] = (_bounds(f, table, values, where) if shape is not None or (f.dims and _declared(f))
                              else [(0 if lang == "c" else 1, ld * extents)])
            inputs[f.name] = np.full(_size(bounds[f.name]), UNSET)
        elif f.type in ("i4", "i8") and f.name in values:
            bounds[f.name] = _bounds(f, table, values, where)
            inputs[f.name] = np.full(_size(bounds[f.name]), values[f.name], dtype=harness.TYPES[f.type][0])
        else:
            raise SourceError(f"{jacproc}: argument {f.name} is neither the head's, nor the Jacobian, nor an "
                              f"integer with [{f.name}] value = ... in the args file", where)
    need = max(layout.position(len(rows) - 1, len(columns) - 1, ld) + 1, 0) if rows and columns else 0
    if _size(bounds[layout.array]) < need:
        raise SourceError(f"{jacproc}: {layout.array} has {_size(bounds[layout.array])} elements, a "
                          f"{len(rows)}x{len(columns)} Jacobian with leading dimension {ld} needs {need}", where)
    jac_spec = Spec(jacproc, tuple(_arg(f, bounds[f.name]) for f in jac_formals))
    head_spec = Spec(heads.procedure, tuple(_arg(f, bounds[f.name]) for f in head_formals))
    tangent_spec = harness.with_derivatives(head_spec, tangent.procedure_names[heads.procedure],
                                            tangent.diff_formals, lang)
    tag = f"a{args_set}p{point}"
    calls = [Call(jac_spec, {f.name: inputs[f.name] for f in jac_formals}, f"{tag}j_")]
    for j, (independent, k) in enumerate(columns):
        derivatives = {}
        for f in head_formals:
            if f.name in tangent.diff_formals:
                direction = np.zeros(_size(bounds[f.name]), dtype=harness.TYPES[f.type][0])
                if f.name == independent:
                    direction[k] = 1
                derivatives[f.name + harness.DERIVATIVE_TAG] = direction
        calls.append(Call(tangent_spec, {f.name: inputs[f.name] for f in head_formals} | derivatives, f"{tag}d{j}_"))
    return _Case(args_set, point, values, bounds, rows, columns, ld, calls)


def _declared(formal: Formal) -> bool:
    return all(d.kids[1] is not None for d in formal.dims)


def _size(bounds) -> int:
    return 1 if bounds is None else math.prod(e for _, e in bounds)


def check_jacobian(primal, head: str, jacobian: str, args=None, args_file=None, points: int = 3, seed: int = 0,
                   workdir=None, timeout=None) -> JacobianReport:
    """Compare the Jacobian computed by the routine `jacobian` (defined in the primal files) with
    adspec's tangent of `head` at `points` random points per argument set. `args`: a dict in the
    args file's structure, or a list of them (several argument sets, one compiled program)."""
    import adspec
    from ..engine.program import build_program
    from ..frontends import parse_files

    started = time.perf_counter()
    primal = [str(p) for p in ([primal] if isinstance(primal, (str, Path)) else primal)]
    where = primal[0]
    for path in primal:
        if not Path(path).is_file():
            raise SourceError("no such file", path)
    tables = _read_args(args, args_file)
    where_args = str(args_file) if args_file is not None else where
    tangent = adspec.differentiate(primal, head=head, mode="tangent")
    if len(tangent.heads) != 1:
        raise SourceError(f"--jacobian checks one head, not {len(tangent.heads)}: {head}", where)
    heads = tangent.heads[0]
    program = build_program(parse_files(primal))
    lang = "c" if program.lang == "c" else "fortran"
    head_formals = _formals(program, heads.procedure, where)
    jac_formals = _formals(program, jacobian, where)
    for var in (*heads.dependents, *heads.independents):
        if var not in {f.name for f in head_formals}:
            raise SourceError(f"--jacobian: head variable {var} is not an argument of {heads.procedure}", where)
    by_name = {f.name: f for f in head_formals}
    errors = [f"{jacobian}: argument {f.name} is {f.type}, {heads.procedure}'s is {by_name[f.name].type}"
              for f in jac_formals if f.name in by_name and f.type != by_name[f.name].type]
    layout = jacobian_layout(jac_formals, head_formals, tables[0].get("jacobian", {}), jacobian, where_args)
    rng = np.random.default_rng(seed)
    cases = [_case(a, p, table, rng, head_formals, jac_formals, layout, heads, tangent, lang, jacobian, where_args)
             for a, table in enumerate(tables) for p in range(points)]
    timings = {"differentiate_s": round(time.perf_counter() - started, 3)}
    outputs = None
    if not errors:
        sources = [(Path(p).name, Path(p).read_text()) for p in primal]
        sources.append((tangent.tree.ann.get("filename"), tangent.text))
        calls = [c for case in cases for c in case.calls]
        compiled = time.perf_counter()
        with tempfile.TemporaryDirectory(prefix="adspec-jacobian-") as tmp:
            try:
                outputs = harness.compile_calls_and_run(sources, lang, calls, workdir or tmp)
            except (harness.CompileError, harness.RunError) as e:
                errors.append(str(e))
        timings["compile_and_run_s"] = round(time.perf_counter() - compiled, 3)
    wrong, shape_text = [], ""
    unchanged = {f.name: True for f in jac_formals if f.name != layout.array}
    if outputs is not None:
        by_tag = {c.tag: out for c, out in zip((c for case in cases for c in case.calls), outputs)}
        for case in cases:
            wrong += _compare(case, by_tag, layout, jacobian, lang, errors)
            for name in _changed_inputs(case, by_tag[case.calls[0].tag], layout):
                unchanged[name] = False
                errors.append(f"{jacobian} changes its input {name} (at point {case.point}"
                              + (f" of argument set {case.args_set})" if case.args_set else ")"))
        shapes = {(len(case.rows), len(case.columns)) for case in cases}
        shape_text = "{}x{} ".format(*shapes.pop()) if len(shapes) == 1 else ""
    timings["total_s"] = round(time.perf_counter() - started, 3)
    verdict = "pass" if not errors and not wrong else "fail"
    data = {
        "verdict": verdict, "mode": "jacobian", "head": head, "primal": primal, "candidate": [jacobian],
        "points": points, "seed": seed, "procedure": jacobian,
        "wrong_pairs": [_pair(w) for w in wrong], "wrong_entries": wrong,
        "first_wrong_procedure": heads.procedure if wrong else None,
        "procedures": [], "dot_product": None, "contract": {"inputs_unchanged": unchanged if outputs is not None else {}}, "errors": errors, "timings": timings,
    }
    lines = [f"adspec check --jacobian {jacobian}: {head}, {len(cases)} point(s) "
             f"({len(tables)} argument set(s) x {points}), seed {seed}"]
    lines += _entry_lines(wrong)
    lines += [f"  error: {e}" for e in errors]
    if verdict == "pass":
        lines.append(f"adspec check: PASS ({jacobian}: every entry of the {shape_text}Jacobian agrees with adspec "
                     f"at {len(cases)} point(s), relative tolerance {RTOL:g})")
    else:
        distinct = len({(w["args_set"], w["entry"]) for w in wrong})
        what = (f"{distinct} wrong entr{'y' if distinct == 1 else 'ies'} of the Jacobian" if wrong
                else "not checked")
        lines.append(f"adspec check: FAIL ({jacobian}: {what}{'; ' + str(len(errors)) + ' error(s)' if errors else ''})")
    return JacobianReport(data, lines)


def _changed_inputs(case: _Case, jac_outputs: dict, layout: Layout) -> list:
    """JACPROC's arguments other than the Jacobian whose values it changed (MINPACK: it must not)."""
    given = case.calls[0].inputs
    return [name for name, value in given.items() if name != layout.array
            and np.asarray(value).reshape(-1).tobytes() != jac_outputs[name].reshape(-1).tobytes()]


def _compare(case: _Case, by_tag: dict, layout: Layout, jacproc: str, lang: str, errors: list) -> list:
    """The wrong entries of one point."""
    tag = f"a{case.args_set}p{case.point}"
    fjac = by_tag[f"{tag}j_"][layout.array].reshape(-1)
    reference = np.array([[by_tag[f"{tag}d{j}_"][dep + harness.DERIVATIVE_TAG].reshape(-1)[k]
                           for j in range(len(case.columns))] for dep, k in case.rows]).reshape(
        len(case.rows), len(case.columns))
    if not np.all(np.isfinite(reference)):
        errors.append(f"adspec's derivative is not finite at point {case.point}: give the inputs a range that "
                      f"keeps the function in its domain ([x] range = [lo, hi] in the args file)")
        return []
    hand = np.array([[fjac[layout.position(i, j, case.ld)] for j in range(len(case.columns))]
                     for i in range(len(case.rows))]).reshape(reference.shape)
    scale = np.max(np.abs(reference), axis=0, initial=0.0)
    wrong = []
    for i, j in zip(*np.nonzero(~(np.abs(hand - reference) <= RTOL * np.maximum(np.abs(reference), scale)))):
        (dep, k), (ind, l) = case.rows[i], case.columns[j]
        c, r = float(hand[i, j]), float(reference[i, j])
        relative = abs(c - r) / abs(r) if r != 0 else abs(c - r)
        position = layout.position(int(i), int(j), case.ld)
        entry = _element(layout.array, case.bounds[layout.array], position, lang)
        row, column = (int(i), int(j)) if lang == "c" else (int(i) + 1, int(j) + 1)
        shown = entry if len(case.bounds[layout.array]) == 2 and lang != "c" else f"{entry} (row {row}, column {column})"
        meaning = (f"d {_element(dep, case.bounds[dep], k, lang)}/d {_element(ind, case.bounds[ind], l, lang)}")
        unset = " (the routine left it unset)" if c == UNSET else ""
        point = f"point {case.point}" + (f" of argument set {case.args_set}" if case.args_set else "")
        wrong.append({
            "entry": entry, "row": row, "column": column, "candidate": c, "reference": r,
            "relative_error": relative, "point": case.point, "args_set": case.args_set,
            "dependent": dep, "dependent_index": _source_index(case.bounds[dep], k, lang),
            "independent": ind, "independent_index": _source_index(case.bounds[ind], l, lang),
            "meaning": meaning,
            "text": f"{shown} = {meaning}: hand-written {c:.6g}{unset}, adspec {r:.6g}, "
                    f"{'relative' if r else 'absolute'} error {relative:.2g}, at {point}",
        })
    return wrong


def _pair(entry: dict) -> dict:
    keys = ("dependent", "dependent_index", "independent", "independent_index", "candidate", "reference",
            "relative_error", "point")
    return {**{k: entry[k] for k in keys}, "entry": entry["meaning"]}


def _entry_lines(wrong: list) -> list:
    """One line per wrong entry (per argument set): its first point's values, the other points named."""
    first, others = {}, {}
    for w in wrong:
        key = (w["args_set"], w["entry"])
        if key in first:
            others[key].append(str(w["point"]))
        else:
            first[key], others[key] = w, []
    return [f"  {w['text']}" + (f" (wrong at point(s) {', '.join(others[key])} too)" if others[key] else "")
            for key, w in first.items()]
