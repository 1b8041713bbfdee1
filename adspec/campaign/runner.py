"""One program of a campaign: run the tool on it, check what it wrote with `adspec check`, and
name what went wrong (the symptoms). Everything here runs in a worker (a local process or a
Dask worker) and returns plain data."""
from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

SOURCE_SUFFIXES = (".f90", ".f", ".F90", ".F", ".f95", ".c")
TOOL_CRASHED = "tool crashed"
TOOL_WROTE_NOTHING = "tool wrote nothing"
TOOL_TIMED_OUT = "tool timed out"
NOT_COMPILED = "candidate does not compile"
CHECK_FAILED = "check could not run"
REFERENCE_IN_DOUBT = "adspec's own tangent disagrees with complex step"   # a finding about adspec, not the tool
# symptoms come out in this order of kinds, so that the first is the most basic one
KIND_ORDER = (CHECK_FAILED, TOOL_CRASHED, TOOL_TIMED_OUT, TOOL_WROTE_NOTHING, NOT_COMPILED, "prototype", "candidate run",
              "stack", "wrong derivative of", "wrong derivative", "dot-product", "contract", "input", "primal",
              "check", REFERENCE_IN_DOUBT)


@dataclass(frozen=True)
class Tool:
    """The tool under test: `command` with {src}, {head} and {outdir}; the check's mode."""
    command: str
    mode: str                  # tangent | adjoint
    timeout: float = 120.0
    points: int = 1

    def argv(self, src: Path, head: str, outdir: Path) -> str:
        return (self.command.replace("{src}", shlex.quote(str(src))).replace("{head}", shlex.quote(head))
                .replace("{outdir}", shlex.quote(str(outdir))))


@dataclass
class Trial:
    """The tool run on one program and the check of its output: `symptoms` is empty when the
    candidate passed; `detail` is what a user needs to see (tool output or the check's report)."""
    symptoms: list
    detail: str = ""
    report: dict | None = None
    seconds: float = 0.0
    candidates: list = field(default_factory=list)


def try_program(tool: Tool, program, seed: int, checker=None) -> Trial:
    """Run `tool` on `program` (a generate.CampaignProgram) in a fresh directory and check its
    candidate files; `checker` is adspec.oracle.check unless given."""
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="adspec-campaign-") as tmp:
        src, outdir = Path(tmp) / program.filename, Path(tmp) / "out"
        outdir.mkdir()
        src.write_text(program.text)
        trial = _run_tool(tool, src, program.head, outdir)
        if trial is None:
            try:
                trial = _check(tool, program, src, outdir, seed, checker)
            except Exception as e:   # never a pass: the candidate could not be checked
                trial = Trial([f"{CHECK_FAILED}: {type(e).__name__}"], f"{type(e).__name__}: {e}")
    trial.seconds = time.perf_counter() - start
    return trial


def _run_tool(tool: Tool, src: Path, head: str, outdir: Path) -> Trial | None:
    """A failed Trial when the tool crashed, timed out or wrote no source file; else None."""
    # its own process group, so that a timeout ends the tool's children too (a shell's would hold the pipes)
    with subprocess.Popen(tool.argv(src, head, outdir), shell=True, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, start_new_session=True) as proc:
        try:
            output = proc.communicate(timeout=tool.timeout)[0].strip()
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            return Trial([TOOL_TIMED_OUT], f"no exit after {tool.timeout:g} s")
    if proc.returncode != 0:
        return Trial([TOOL_CRASHED], f"exit status {proc.returncode}\n{_tail(output)}")
    if not _candidates(outdir):
        return Trial([TOOL_WROTE_NOTHING], _tail(output))
    return None


def _candidates(outdir: Path) -> list:
    return sorted(p for p in outdir.rglob("*") if p.suffix in SOURCE_SUFFIXES and p.is_file())


def _check(tool: Tool, program, src: Path, outdir: Path, seed: int, checker) -> Trial:
    if checker is None:
        from ..oracle import check as checker
    files = [str(p) for p in _candidates(outdir)]
    report = checker(primal=[str(src)], head=program.head, args=program.args, points=tool.points, seed=seed,
                     workdir=str(src.parent / "check"), **{tool.mode: files})
    data = report.to_dict()
    names = [Path(f).name for f in files]
    if report.ok:
        return Trial([], report=data, candidates=names)
    return Trial(symptoms_of(data), _tail(report.text(), 40), data, candidates=names)


def symptoms_of(report: dict) -> list:
    """What a failed check says went wrong, one line per kind, the most basic first (a wrong
    pair: its dependent and independent only, not the indices, so that a shrunk program keeps
    the same symptom). The causes are those of the oracle's verdict (adspec/oracle/report.py)."""
    found = [_error_symptom(e) for e in report.get("errors") or ()]
    for pair in report.get("wrong_pairs") or ():
        found.append(f"wrong derivative of dependent {pair['dependent']} wrt {pair['independent']}")
    failed = lambda part: part and not part.get("ok", True)  # noqa: E731
    if failed(report.get("dot_product")):
        found.append("dot-product test fails")
    if failed(report.get("complex_step")) and REFERENCE_IN_DOUBT not in found:
        found.append("wrong derivative: disagrees with complex step")
    if report.get("stack") and not report["stack"].get("empty", True):
        found.append("stack not empty after the candidate returns")
    contract = report.get("contract") or {}
    for name, status in (contract.get("arguments") or {}).items():
        if status.get("agrees") is False:
            found.append(f"contract: {name} is {status.get('observed')}, its header says {status.get('claimed')}")
    found += [f"input {name} changed by the candidate"
              for name, same in (contract.get("inputs_unchanged") or {}).items() if not same]
    found += [f"primal result {name} wrong in the candidate"
              for name, same in (contract.get("primal_results") or {}).items() if not same]
    found += [f"wrong derivative in procedure {p['name']}" for p in report.get("procedures") or ()
              if p.get("verdict") == "fail" and p.get("name") != report.get("head", "").split("(")[0]]
    if not found:
        found.append("check fails (see its report)")
    return sorted(set(found), key=lambda s: (next((i for i, k in enumerate(KIND_ORDER) if s.startswith(k)),
                                                  len(KIND_ORDER)), s))


def _error_symptom(error: str) -> str:
    text = error.lower()
    if "reference is in doubt" in text:
        return REFERENCE_IN_DOUBT
    if "compil" in text:
        return NOT_COMPILED
    if "prototype" in text or "argument" in text and "match" in text:
        return "prototype does not match the primal's"
    if "stack" in text:
        return "stack not empty"
    if "timed out" in text or "timeout" in text:
        return "candidate run timed out"
    return "candidate run fails: " + _without_numbers(error.splitlines()[0] if error else "")[:80]


def _without_numbers(text: str) -> str:
    return re.sub(r"\d+(\.\d+)?(e[-+]?\d+)?", "N", text)


def _tail(text: str, lines: int = 20) -> str:
    return "\n".join(text.splitlines()[-lines:])
