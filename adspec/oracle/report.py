"""The report of `adspec check`: what was checked, what is wrong, the verdict.

`CheckReport.to_dict()` follows the team's schema (notes/oracle-api.md); `text()` is the human
report, its last line the verdict ("adspec check: PASS ..." / "adspec check: FAIL ...").
"""
from __future__ import annotations

from dataclasses import dataclass, field

MAX_PAIRS_SHOWN = 12


@dataclass
class ProcedureResult:
    name: str                      # primal name
    candidate: str                 # the candidate's procedure
    verdict: str                   # pass | fail | not checked
    max_relative_error: float = 0.0
    wrong_pairs: list = field(default_factory=list)
    reason: str | None = None      # why it was not checked
    head: str | None = None        # the head it was checked with ("g(s)/(x)")

    def to_dict(self) -> dict:
        d = {"name": self.name, "candidate": self.candidate, "verdict": self.verdict,
             "max_relative_error": self.max_relative_error, "wrong_pairs": self.wrong_pairs, "head": self.head}
        if self.reason:
            d["reason"] = self.reason
        return d


@dataclass
class CheckReport:
    mode: str
    head: str
    primal: list
    candidate: list
    points: int
    seed: int
    procedure: str | None = None
    wrong_pairs: list = field(default_factory=list)
    first_wrong_procedure: str | None = None
    procedures: list = field(default_factory=list)          # of ProcedureResult, bottom-up, head last
    dot_product: dict | None = None
    complex_step: dict | None = None
    contract: dict | None = None
    stack: dict | None = None
    errors: list = field(default_factory=list)
    notes: list = field(default_factory=list)               # what was not checked, and why
    timings: dict = field(default_factory=dict)
    max_relative_error: float = 0.0
    checked_entries: int = 0

    @property
    def ok(self) -> bool:
        return self.verdict == "pass"

    @property
    def verdict(self) -> str:
        if self.errors or self.wrong_pairs:
            return "fail"
        if self.dot_product and not self.dot_product.get("ok", True):
            return "fail"
        if self.complex_step and not self.complex_step.get("ok", True):
            return "fail"
        if self.stack and not self.stack.get("empty", True):
            return "fail"
        if self.contract and (any(a.get("agrees") is False or _unconfirmed(a)
                                  for a in self.contract.get("arguments", {}).values())
                              or not all(self.contract.get("inputs_unchanged", {}).values())
                              or not all(self.contract.get("primal_results", {}).values())):
            return "fail"
        if any(p.verdict == "fail" for p in self.procedures):
            return "fail"
        if self.checked_entries == 0 and not self.dot_product:
            return "fail"   # nothing was compared: never a silent pass
        return "pass"

    def to_dict(self) -> dict:
        d = {"verdict": self.verdict, "mode": self.mode, "head": self.head, "primal": list(self.primal),
             "candidate": list(self.candidate), "points": self.points, "seed": self.seed,
             "procedure": self.procedure, "wrong_pairs": self.wrong_pairs,
             "first_wrong_procedure": self.first_wrong_procedure,
             "procedures": [p.to_dict() for p in self.procedures], "dot_product": self.dot_product,
             "complex_step": self.complex_step, "contract": self.contract, "stack": self.stack,
             "max_relative_error": self.max_relative_error, "checked_entries": self.checked_entries,
             "errors": list(self.errors), "notes": list(self.notes), "timings": dict(self.timings)}
        return d

    def text(self) -> str:
        lines = [f"adspec check of {self.procedure or '?'} ({self.mode}) against adspec's derivatives of "
                 f"{self.head}, {self.points} point(s), seed {self.seed}"]
        for e in self.errors:
            lines.append(f"error: {e}")
        if self.checked_entries:
            lines.append(f"Jacobian entries compared: {self.checked_entries}, max relative error "
                         f"{self.max_relative_error:.3g}")
        if self.wrong_pairs:
            lines.append(f"wrong (dependent, independent) pairs: {len(self.wrong_pairs)}")
            for p in self.wrong_pairs[:MAX_PAIRS_SHOWN]:
                lines.append(f"  {p['entry']}: candidate {p['candidate']:.17g}, reference {p['reference']:.17g}, "
                             f"relative error {p['relative_error']:.3g} (point {p['point']})")
            if len(self.wrong_pairs) > MAX_PAIRS_SHOWN:
                lines.append(f"  ... {len(self.wrong_pairs) - MAX_PAIRS_SHOWN} more (--json for all)")
        if self.dot_product:
            lines.append(f"dot-product test against adspec's tangent: relative error "
                         f"{self.dot_product['relative_error']:.3g}" + ("" if self.dot_product["ok"] else "  WRONG"))
        if self.complex_step:
            cs = self.complex_step
            lines.append("complex step (interpreter): " + (f"not valid here: {cs['skipped']}" if cs.get("skipped")
                         else f"relative error {cs['relative_error']:.3g}" + ("" if cs["ok"] else "  WRONG")))
        if self.stack:
            lines.append("push/pop stack after the candidate returns: " + (
                "empty" if self.stack["empty"] else f"{self.stack['bytes_left']} bytes left  WRONG")
                if self.stack.get("checked", True) else f"push/pop stack: {self.stack.get('reason')}")
        if self.contract:
            lines += _contract_lines(self.contract)
        if self.procedures:
            lines.append("procedures, bottom-up:")
            for p in self.procedures:
                what = p.verdict if p.verdict != "not checked" else f"not checked ({p.reason})"
                extra = f", max relative error {p.max_relative_error:.3g}" if p.verdict != "not checked" else ""
                wrong = f", {len(p.wrong_pairs)} wrong pair(s)" if p.wrong_pairs else ""
                lines.append(f"  {p.name} ({p.candidate}" + (f", as {p.head}" if p.head else "") + f"): {what}{extra}{wrong}")
        if self.first_wrong_procedure:
            lines.append(f"first wrong procedure: {self.first_wrong_procedure}")
        for n in self.notes:
            lines.append(f"note: {n}")
        total = self.timings.get("total_s")
        verdict = "PASS" if self.ok else "FAIL"
        why = _why(self) if not self.ok else f"{self.checked_entries} entries agree"
        lines.append(f"adspec check: {verdict} ({why}" + (f", {total:.1f} s)" if total is not None else ")"))
        return "\n".join(lines)


def _unconfirmed(argument: dict) -> bool:
    """The probe could not tell what the candidate does with an argument whose header claims
    something definite: not a pass (nothing else may fail to show it)."""
    return argument.get("observed") == "unclear" and argument.get("claimed") not in (None, "in-out")


def _contract_lines(contract: dict) -> list:
    lines = ["contract (observed / claimed by the header comment):"]
    for name, a in contract.get("arguments", {}).items():
        mark = "" if a.get("agrees") in (True, None) else "  DISAGREES"
        if a["observed"] == "unclear":
            mark = "  (the probe could not tell: values not finite or huge, or neither pattern)"
        lines.append(f"  {name}: {a['observed']} / {a['claimed'] or '-'}{mark}")
    changed = [k for k, v in contract.get("inputs_unchanged", {}).items() if not v]
    lines.append("  inputs left unchanged: " + ("yes" if not changed else f"NO, changed: {', '.join(changed)}"))
    wrong = [k for k, v in contract.get("primal_results", {}).items() if not v]
    if wrong:
        lines.append(f"  primal results differ from the primal's: {', '.join(wrong)}")
    return lines


def _why(report: CheckReport) -> str:
    if report.errors:
        return report.errors[0].splitlines()[0]
    if report.wrong_pairs:
        first = report.wrong_pairs[0]["entry"]
        where = f", first wrong procedure {report.first_wrong_procedure}" if report.first_wrong_procedure else ""
        return f"{len(report.wrong_pairs)} wrong pair(s), first {first}{where}"
    if report.dot_product and not report.dot_product["ok"]:
        return "dot-product test failed"
    if report.complex_step and not report.complex_step.get("ok", True):
        return "disagrees with complex step"
    if report.stack and not report.stack.get("empty", True):
        return "push/pop stack not empty after the candidate returns"
    if report.contract:
        bad = [k for k, a in report.contract.get("arguments", {}).items() if a.get("agrees") is False]
        if bad:
            return "contract disagrees with the header comment: " + ", ".join(bad)
        unclear = [k for k, a in report.contract.get("arguments", {}).items() if _unconfirmed(a)]
        if unclear:
            return "the header comment's contract of " + ", ".join(unclear) + " could not be confirmed"
        if not all(report.contract.get("inputs_unchanged", {}).values()):
            return "the candidate changes its inputs"
        if not all(report.contract.get("primal_results", {}).values()):
            return "the candidate's primal results are wrong"
    bad = [p.name for p in report.procedures if p.verdict == "fail"]
    if bad:
        return f"procedure(s) {', '.join(bad)} wrong"
    return "nothing could be compared"
