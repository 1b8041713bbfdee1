"""`adspec check`: is another tool's derivative code right, and if not, where is it wrong?

    report = check(primal=["t.c"], head="f(y)/(x)", adjoint=["t_b.c"], args_file="args.toml")
    report.ok, report.text(), report.to_dict()

One program is compiled (one compiler call) and run (one driver): the primal, the candidate,
adspec's tangent of the head and of every procedure the candidate differentiates (renamed
adspec_ref_...), and for adjoints the push/pop runtime. At each seeded random point the driver
runs the primal, adspec's tangent along the Jacobian's columns and a random direction, and the
candidate along the columns (tangent) or rows (adjoint), see compare.py; the head's candidate
once more for its contract (contract.py). Complex step in adspec's interpreter checks the
candidate's directional derivative independently of adspec's tangent.

Bad input (no such file, a bad head, an arguments-file error) raises SourceError (the command
line prints `file:line: message`, exit 2). A candidate that does not compile, crashes, or whose
prototype does not follow the primal's is a FAIL whose `errors` say why, never a pass.
"""
from __future__ import annotations

import functools
import re
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from adspec.engine.errors import SourceError
from adspec.frontends import read_source

from . import harness
from .argsfile import Args
from .compare import Comparison
from .contract import observe, probe_calls
from .harness import Call, CompileError, RunError, Spec, compile_calls_and_run, parse_stack_probes
from .points import NotCheckable, draw_point, layout
from .prototype import PrototypeMismatch, base_name, check_readable, match, primal_name_of, read_procedures
from .reference import ComplexStepInvalid, complex_step, reference_tangent
from .report import CheckReport, ProcedureResult
from .runs import Side

COMMAND_LINE = "<command line>"


def runtime_dir() -> Path:
    """adspec's push/pop runtime (adStack.h/.c), which adjoints are compiled against by default."""
    from adspec import backends
    return Path(backends.__file__).resolve().parent / "runtime"


def check(primal, head: str, tangent=None, adjoint=None, jacobian=None, tangent_of_candidate=None,
          args: dict | None = None, args_file=None, points: int = 3, seed: int = 0, runtime=None,
          workdir=None, timeout=None) -> CheckReport:
    """Check a candidate derivative against adspec's (see the module's doc and notes/oracle-api.md)."""
    start = time.perf_counter()
    given = [m for m, v in (("tangent", tangent), ("adjoint", adjoint), ("jacobian", jacobian)) if v]
    if len(given) != 1:
        raise SourceError("give exactly one of --tangent, --adjoint, --jacobian", COMMAND_LINE)
    if jacobian:
        from .jacobian import check_jacobian
        return check_jacobian(primal=primal, head=head, jacobian=jacobian, args=args, args_file=args_file,
                              points=points, seed=seed, workdir=workdir, timeout=timeout)
    mode = given[0]
    primal = [str(p) for p in ([primal] if isinstance(primal, (str, Path)) else primal)]
    candidate = [str(p) for p in ([tangent or adjoint] if isinstance(tangent or adjoint, (str, Path))
                                  else (tangent or adjoint))]
    check_readable(primal, "primal")
    check_readable(candidate, "candidate")
    if points < 1:
        raise SourceError("--points must be at least 1", COMMAND_LINE)
    if args is not None and args_file is not None:
        raise SourceError("give the arguments either as a file or as a dict, not both", COMMAND_LINE)
    arguments = Args.load(args_file) if args_file is not None else Args(args or {}, "<args>")
    report = CheckReport(mode, head, primal, candidate, points, seed)
    previous_timeout = harness.RUN_TIMEOUT
    if timeout:
        harness.RUN_TIMEOUT = timeout
    own_dir = workdir is None
    work = Path(tempfile.mkdtemp(prefix="adspec-check-")) if own_dir else Path(workdir).resolve()
    try:
        _Checker(report, mode, primal, candidate, head, arguments, runtime, work).run()
        if tangent_of_candidate:
            other = check(primal, head, tangent=tangent_of_candidate, args=arguments.data, points=points, seed=seed,
                          workdir=None if own_dir else str(work / "tangent_of_candidate"), timeout=timeout)
            report.notes.append(f"the candidate tool's own tangent: {other.text().splitlines()[-1]}")
            report.errors += [f"tangent of candidate: {e}" for e in other.errors]
            report.wrong_pairs += [{**p, "entry": "tangent of candidate: " + p["entry"]} for p in other.wrong_pairs]
    finally:
        harness.RUN_TIMEOUT = previous_timeout
        if own_dir:
            shutil.rmtree(work, ignore_errors=True)
    report.timings["total_s"] = round(time.perf_counter() - start, 3)
    return report


@dataclass
class _Plan:
    """What a check compares: the procedures read and matched, the reference, the comparisons."""
    primal_procs: dict
    cand_procs: dict
    head_name: str
    derived: dict                 # primal name -> the candidate's derivative procedure
    head_layout: object
    order: list                   # the primal's procedures, bottom-up, the head last
    head_dp: object = None
    others: dict = field(default_factory=dict)        # callee -> (DiffPrototype, Layout, deps, indeps)
    not_checked: dict = field(default_factory=dict)   # callee -> why
    reference: object = None
    head_cmp: Comparison | None = None
    claims: dict = field(default_factory=dict)
    comparisons: dict = field(default_factory=dict)
    probing: bool = False


class _Checker:
    def __init__(self, report, mode, primal, candidate, head, args, runtime, work):
        self.report, self.mode, self.primal, self.candidate = report, mode, primal, candidate
        self.head, self.args, self.runtime, self.work = head, args, runtime, Path(work)
        self.lang = _language(primal[0])
        self.fold = str.lower if self.lang == "fortran" else (lambda s: s)

    def _time(self, key, since):
        self.report.timings[key] = round(time.perf_counter() - since, 3)

    def run(self) -> None:
        plan = self._read()
        if plan is None:
            return
        self._compare(plan)
        if plan.head_cmp is None:
            return
        t = time.perf_counter()
        outputs, stdout = self._compile_and_run(plan.reference, self._calls(plan))
        self._time("compile_and_run_s", t)
        if outputs is not None:
            self._report_head(plan, outputs, stdout)
            self._report_procedures(plan, outputs)

    def _read(self) -> "_Plan | None":
        """The primal's and the candidate's procedures, matched; None when the candidate fails here."""
        from adspec.heads import parse_heads
        report, t = self.report, time.perf_counter()
        for c in self.candidate:
            if _language(c) != self.lang:
                raise SourceError(f"the candidate is {_language(c)}, the primal {self.lang}", c)
        primal_procs = read_procedures(self.primal)
        heads = parse_heads(self.head)
        if len(heads) != 1:
            raise SourceError("-head: give one head procedure", COMMAND_LINE)
        head_name = self.fold(heads[0].procedure)
        if head_name not in primal_procs:
            raise SourceError(f"-head: no procedure {heads[0].procedure!r} in the primal", COMMAND_LINE)
        try:
            cand_procs = read_procedures(self.candidate)
        except SourceError as e:
            report.errors.append(f"the candidate cannot be read: {e}")
            return None
        self._time("read_s", t)
        derived = {}   # primal name -> candidate Procedure
        for proc in cand_procs.values():
            p = primal_name_of(proc, primal_procs, self.mode)
            if p is not None and (proc.header is None or proc.header.mode in (None, self.mode)):
                derived.setdefault(p, proc)
        if head_name not in derived:
            suffix = "_d" if self.mode == "tangent" else "_b"
            report.errors.append(f"the candidate defines no {self.mode} of {head_name} "
                                 f"(looked for {head_name}{suffix} or a header comment naming {head_name})")
            return None
        report.procedure = derived[head_name].name
        plan = _Plan(primal_procs, cand_procs, head_name, derived, layout(primal_procs[head_name], self.args),
                     _bottom_up(primal_procs, head_name))
        for name in plan.order:   # the procedures the candidate differentiates, bottom-up
            if name == head_name or name not in derived:
                continue
            try:
                dp = match(derived[name], primal_procs[name], self.mode)
                lay = layout(primal_procs[name], self.args, plan.head_layout, callee=True)
                deps, indeps, result = _procedure_head(dp)
                if not deps or not indeps:
                    raise NotCheckable("no dependent or no independent with a derivative argument")
                plan.others[name] = (dp, lay, deps, indeps, result)
            except (PrototypeMismatch, NotCheckable, SourceError) as e:
                plan.not_checked[name] = str(e)
        try:
            plan.head_dp = match(derived[head_name], primal_procs[head_name], self.mode)
        except PrototypeMismatch as e:
            report.errors.append(f"prototype mismatch: {e}")
            return None
        return plan

    def _compare(self, plan: "_Plan") -> None:
        """adspec's tangent of the head and of the callees checked alone; their Comparisons."""
        t = time.perf_counter()
        heads = [self.head] + [f"{n}({' '.join(d)})/({' '.join(i)})" for n, (_, _, d, i, _) in plan.others.items()]
        try:
            plan.reference = reference_tangent(self.primal, heads, self.lang)
        except SourceError:
            if not plan.others:
                raise
            for n in plan.others:
                plan.not_checked[n] = "adspec cannot differentiate it alone with this head"
            plan.others = {}
            plan.reference = reference_tangent(self.primal, [self.head], self.lang)
        self._time("reference_s", t)
        head = plan.primal_procs[plan.head_name]
        names = plan.reference.heads[0]
        deps = tuple(dict.fromkeys(self.fold(base_name(n)) for n in names.dependents))
        indeps = tuple(dict.fromkeys(self.fold(base_name(n)) for n in names.independents))
        result_name = next((d for d in deps if d not in {f.name for f in head.formals}), None)
        ref_dp = match(plan.reference.procs[plan.head_name], head, "tangent")
        probing = self.mode == "adjoint" and self._probe_stack()
        cand = Side(plan.head_dp, plan.head_layout, result_name, probing)
        missing = [v for v in deps + indeps if not cand.has(v)]
        if missing:
            suffix = "d" if self.mode == "tangent" else "b"
            self.report.errors.append(f"prototype mismatch: {plan.head_dp.procedure.name} has no derivative argument"
                                      " for " + ", ".join(f"{v} (expected {v}{suffix} after it)" for v in missing)
                                      + f" (head {self.head})")
            return
        single = any(p.single for p in plan.primal_procs.values()) or any(p.single for p in plan.cand_procs.values())
        plan.claims = _claims(plan.head_dp, result_name)
        plan.head_cmp = Comparison(cand, Side(ref_dp, plan.head_layout, result_name), deps, indeps, "h",
                                   plan.claims, single=single)
        plan.probing = probing
        for k, (name, (dp, lay, d, i, result)) in enumerate(plan.others.items()):
            if name not in plan.reference.procs:
                plan.not_checked[name] = "adspec's tangent has no derivative of it"
                continue
            rdp = match(plan.reference.procs[name], dp.primal, "tangent")
            plan.comparisons[name] = Comparison(Side(dp, lay, result, probing), Side(rdp, lay, result), d, i,
                                                f"g{k}_", _claims(dp, result), callee=True, single=single)

    def _calls(self, plan: "_Plan") -> list:
        """The driver's calls, point by point: the primal, the head's comparison and contract
        probe, each callee's comparison at points of its own."""
        head = plan.primal_procs[plan.head_name]
        primal_spec = Spec(plan.head_name, plan.head_layout.args, head.result_type, head.symbol)
        calls = []
        for p in range(self.report.points):
            rng = np.random.default_rng([self.report.seed, p])
            point = draw_point(plan.head_layout, self.args, rng)
            calls.append(Call(primal_spec, point, f"p{p}_"))
            calls += plan.head_cmp.calls(point, p, rng)
            calls += probe_calls(plan.head_cmp, p, rng)
            for name, cmp in plan.comparisons.items():
                crng = np.random.default_rng([self.report.seed, p, 1 + plan.order.index(name)])
                calls += cmp.calls(draw_point(cmp.cand.layout, self.args, crng, callee=True), p, crng)
        return calls

    def _report_head(self, plan: "_Plan", outputs: dict, stdout: str) -> None:
        report, cmp = self.report, plan.head_cmp
        result = cmp.compare(outputs)
        report.wrong_pairs = result["wrong_pairs"]
        report.max_relative_error = result["max_relative_error"]
        report.checked_entries = result["entries"]
        report.dot_product = result["dot_product"]
        if cmp.nonfinite_reference:
            report.errors.append(f"adspec's derivatives are not finite at point(s) {sorted(cmp.nonfinite_reference)}: "
                                 "outside the function's domain? (give the reals a `range` in the arguments file)")
        if not cmp.full:
            report.notes.append(f"the Jacobian has {len(cmp.rows)} x {len(cmp.cols)} entries: only random "
                                f"directions were compared (the full Jacobian is compared up to 64 x 64)")
        primal_outputs = {p: outputs[f"p{p}_"] for p in range(report.points)}
        report.contract = observe(cmp, outputs, primal_outputs, plan.claims, plan.head_dp.procedure.header)
        outside = [p for p, out in primal_outputs.items()
                   if not all(np.all(np.isfinite(v)) for v in out.values() if np.asarray(v).dtype.kind == "f")]
        if outside:
            report.errors.append(f"the primal's results are not finite at point(s) {outside}: outside the "
                                 "function's domain? (give the reals a `range` in the arguments file)")
        elif self.mode == "tangent":
            t = time.perf_counter()
            report.complex_step = self._complex_step(cmp, plan.head_layout, result)
            self._time("complex_step_s", t)
        if plan.probing:
            left = {tag: n for tag, n in parse_stack_probes(stdout).items() if n}
            report.stack = {"checked": True, "empty": not left, "bytes_left": max(left.values(), default=0),
                            "calls": sorted(left)}
        elif self.mode == "adjoint":
            report.stack = {"checked": False, "empty": True,
                            "reason": "not checked: the runtime has no adStack_currentBytes"}

    def _report_procedures(self, plan: "_Plan", outputs: dict) -> None:
        """Each callee alone, bottom-up, then the head; the lowest that disagrees."""
        report = self.report
        for name in plan.order:
            if name in plan.comparisons:
                cmp = plan.comparisons[name]
                r = cmp.compare(outputs)
                dot_bad = r["dot_product"] is not None and not r["dot_product"]["ok"]
                if cmp.assumed_passive:
                    report.notes.append(f"{cmp.cand.name} ignores the incoming derivative of "
                                        f"{', '.join(sorted(cmp.assumed_passive))} (specialised to its calling "
                                        "context): those columns were not compared")
                head = f"{name}({' '.join(cmp.dependents)})/({' '.join(cmp.independents)})"
                if cmp.nonfinite_reference:   # alone, at these points, outside its domain
                    report.procedures.append(ProcedureResult(
                        name, cmp.cand.name, "not checked", head=head,
                        reason="adspec's derivative is not finite at its random points (give [proc.arg] ranges)"))
                    continue
                report.procedures.append(ProcedureResult(
                    name, cmp.cand.name, "fail" if r["wrong_pairs"] or dot_bad else "pass", r["max_relative_error"],
                    r["wrong_pairs"], head=head))
            elif name in plan.not_checked:
                report.procedures.append(ProcedureResult(name, plan.derived[name].name, "not checked",
                                                         reason=plan.not_checked[name]))
        head_bad = bool(report.wrong_pairs) or bool(report.dot_product and not report.dot_product["ok"])
        report.procedures.append(ProcedureResult(plan.head_name, plan.head_dp.procedure.name,
                                                 "fail" if head_bad else "pass", report.max_relative_error,
                                                 report.wrong_pairs, head=self.head))
        report.first_wrong_procedure = next((p.name for p in report.procedures if p.verdict == "fail"), None)
        if report.first_wrong_procedure not in (None, plan.head_name) and not head_bad:
            report.notes.append(f"{report.first_wrong_procedure} is wrong alone, but not where the head uses it")

    def _probe_stack(self) -> bool:
        runtime = Path(self.runtime) if self.runtime else runtime_dir()
        texts = [p.read_text(errors="replace") for p in runtime.glob("*.c")]
        return any(re.search(r"\badStack_currentBytes\s*\(", t) and re.search(r"\badStack_clear\s*\(", t)
                   for t in texts)

    def _sources(self, reference) -> list:
        sources, used = [], set()

        def add(path_name, text):
            name = Path(path_name).name
            while name in used:
                name = "_" + name
            used.add(name)
            sources.append((name, text))
        texts = [read_source(c) for c in self.candidate]
        if self.mode == "adjoint" or any(re.search(r"adStack|push\w*\(|pushreal", t, re.I) for t in texts):
            runtime = Path(self.runtime) if self.runtime else runtime_dir()
            if not runtime.is_dir():
                raise SourceError("no such runtime directory", str(runtime))
            for p in sorted(runtime.iterdir()):
                if p.suffix in (".h", ".c"):
                    add(p.name, p.read_text())
        for p in modules_first(self.primal):
            add(p, read_source(p))
        order = modules_first(self.candidate)
        for c, text in sorted(zip(self.candidate, texts), key=lambda ct: order.index(ct[0])):
            add(c, text)
        add(reference.filename, reference.text)
        return sources

    def _compile_and_run(self, reference, calls):
        report = self.report
        sources = self._sources(reference)
        dirs = sorted({str(Path(p).resolve().parent) for p in self.primal + self.candidate})
        stdout: list = []
        try:
            outs = compile_calls_and_run(sources, self.lang, calls, self.work,
                                         flags=("-I.", *(f"-I{d}" for d in dirs), *_unset_value_flags(self.lang)),
                                         stdout=stdout, one_process_per_call=keeps_state(self.primal + self.candidate))
        except CompileError as e:
            report.errors.append(f"compile error: {_short(str(e))}")
            return None, ""
        except RunError as e:
            report.errors.append(f"run error (the candidate crashed or looped?): {_short(str(e))}")
            return None, ""
        return {c.tag: o for c, o in zip(calls, outs)}, stdout[0] if stdout else ""

    def _complex_step(self, cmp: Comparison, lay, result) -> dict:
        from .prototype import read_tree
        trees = [read_tree(p) for p in self.primal]
        worst = ref_worst = 0.0
        for p, plan in cmp.calls_by_point.items():
            try:
                cs = complex_step(trees, lay, plan["point"], plan["direction"], cmp.dependents, cmp.cand.result_name)
            except ComplexStepInvalid as e:
                return {"skipped": str(e), "ok": True}
            cand_dir, ref_dir = result["directional"][p]
            worst = max(worst, _vector_error(cand_dir, cs, cmp.dependents))
            ref_worst = max(ref_worst, _vector_error(ref_dir, cs, cmp.dependents))
        if ref_worst > cmp.rtol:
            self.report.errors.append(f"adspec's tangent disagrees with complex step (relative error {ref_worst:.3g}):"
                                      " the reference is in doubt, please report it")
        return {"relative_error": worst, "reference_error": ref_worst, "ok": worst <= cmp.rtol}


@functools.cache   # gcc's version, asked once per process, not once per check
def _unset_value_flags(lang: str) -> tuple:
    """C: locals read before they are set get a loud pattern (gcc 12), so a candidate that reads
    a temporary before setting it gives wrong pairs, not the right value by luck of what the
    stack held. Not in Fortran: gfortran's -finit-real=nan also fills the variables of a module
    whose default is private, which derivative code rightly expects to start at zero."""
    import subprocess
    if lang != "c":
        return ()
    try:
        major = int(subprocess.run(["gcc", "-dumpversion"], capture_output=True, text=True).stdout.split(".")[0])
    except (OSError, ValueError):
        major = 0
    return ("-ftrivial-auto-var-init=pattern",) if major >= 12 else ()


_MODULE = re.compile(r"(?im)^\s*module\s+(?!procedure\b)(\w+)")
_USE = re.compile(r"(?im)^\s*use\s*(?:,\s*\w+\s*::)?\s*(\w+)")


def keeps_state(files) -> bool:
    """The code may keep state between calls (then each call must run in a process of its own):
    SAVE, static, COMMON, module or file-scope variables, DATA. `files`: paths or IL file trees."""
    from adspec.engine.il import walk

    from .prototype import read_tree
    for tree in files:
        tree = read_tree(tree) if isinstance(tree, (str, Path)) else tree
        if any(u.op == "module" or u.op == "varDecl" for u in tree.kids):
            return True
        fortran = tree.ann.get("lang") == "fortran"
        for u in walk(tree):
            if u.op in ("common", "data"):
                return True
            if u.op == "varDecl" and ({"save", "static"} & set(u.kids[1]) or (   # a Fortran initial value: SAVE
                    fortran and "parameter" not in u.kids[1] and any(d.kids[2] is not None for d in u.kids[2]))):
                return True
    return False


def modules_first(paths: list) -> list:
    """Fortran files in an order gfortran compiles them in: a module's file before its users'."""
    defines = {p: {m.lower() for m in _MODULE.findall(read_source(p))} for p in paths}
    uses = {p: {m.lower() for m in _USE.findall(read_source(p))} for p in paths}
    order, placed = [], set()
    while len(order) < len(paths):
        ready = [p for p in paths if p not in order
                 and all(m in placed for m in uses[p] if any(m in defines[q] for q in paths if q != p))]
        nxt = ready[0] if ready else next(p for p in paths if p not in order)   # a cycle: keep the order
        order.append(nxt)
        placed |= defines[nxt]
    return order


def _vector_error(got: dict, want: dict, names) -> float:
    worst = 0.0
    for n in names:
        a, b = np.asarray(got.get(n, 0.0), dtype=np.float64), np.asarray(want[n], dtype=np.float64)
        scale = max(float(np.max(np.abs(a), initial=0.0)), float(np.max(np.abs(b), initial=0.0)))
        if not np.all(np.isfinite(a)):
            return float("inf")
        if scale > 0:
            worst = max(worst, float(np.max(np.abs(a - b))) / scale)
    return worst


def _short(message: str, lines: int = 25) -> str:
    """The command and the compiler's errors with a little context (its warnings are many)."""
    parts = message.splitlines()
    errors = [i for i, line in enumerate(parts) if re.search(r"\b(Error|error)\b", line)]
    keep = sorted({0, *(j for i in errors for j in range(max(i - 4, 1), i + 1))}) if errors else range(len(parts))
    shown = [parts[i] for i in keep][:lines]
    return "\n".join(shown + ([f"... ({len(parts) - len(shown)} more lines)"] if len(parts) > len(shown) else []))


def _language(path: str) -> str:
    from adspec.frontends import language_of
    return language_of(path)[0]


def _claims(dp, result_name) -> dict:
    """The header comment's RW statuses by head variable (a function's result by its name too)."""
    header = dp.procedure.header
    if header is None:
        return {}
    claims = dict(header.statuses)
    if result_name is not None:
        status = claims.get(result_name, claims.get(dp.primal.name))
        if status is not None:
            claims[result_name] = status
    return claims


def _procedure_head(dp) -> tuple:
    """Dependents, independents and the result's name (a function's, else None) a derivative
    procedure is checked alone with: its header's useful results and varying inputs; else the
    formals with derivative arguments, by their RW statuses (tangent: `in` independent only,
    `out` dependent only; adjoint: `out` independent only, `in-zero`/`in` dependent only; others
    both), and a function's real result."""
    header = dp.procedure.header
    with_derivative = [p for p in dp.derivative_of.values()]
    name = dp.primal.name
    result = name if dp.primal.result_type in ("r4", "r8") and (dp.value_formal or dp.result_adjoint) else None
    if header is not None and header.useful and header.varying:
        deps = tuple(v for v in header.useful if v in with_derivative)
        if result and any(u in (name, f"{name}_result") for u in header.useful):
            deps += (result,)
        return deps, tuple(v for v in header.varying if v in with_derivative), result
    statuses = header.statuses if header is not None else {}
    only_in = {"tangent": {"in"}, "adjoint": {"out"}}[dp.mode]
    only_out = {"tangent": {"out", "zero"}, "adjoint": {"in-zero", "in", "zero"}}[dp.mode]
    deps = tuple(v for v in with_derivative if statuses.get(v) not in only_in) + ((result,) if result else ())
    indeps = tuple(v for v in with_derivative if statuses.get(v) not in only_out)
    return deps, indeps, result


def _bottom_up(procs: dict, head: str) -> list:
    """The procedures reachable from the head, callees before callers (post-order), head last;
    the others first."""
    order, seen = [], set()

    def visit(name):
        if name in seen or name not in procs:
            return
        seen.add(name)
        for callee in sorted(procs[name].calls):
            visit(callee)
        order.append(name)
    visit(head)
    rest = [n for n in procs if n not in seen]
    return rest + order

