"""The catalogue of faulty candidates (tests/oracle/, its README.md): `adspec check` flags each
one with the wrong (dependent, independent) pairs, and no right pair among them, names the
procedure where the candidate first goes wrong, and reports the contract where it matters.
The corrected candidates (fixed/) pass, so each assertion can fail both ways.

One check per candidate (points=1); one entry goes through the command line (`--json -`,
exit 1) instead of the Python API.
"""
from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from adspec.oracle import check
from harness import require_compilers

CATALOGUE = Path(__file__).resolve().parent / "oracle"
ENTRIES = sorted(p.name for p in CATALOGUE.iterdir() if p.is_dir())
THROUGH_THE_CLI = "03_reversed_loop_bound"


def expected(entry: str) -> dict:
    return tomllib.loads((CATALOGUE / entry / "expected.toml").read_text())


def lang_of(want: dict) -> str:
    return "c" if want["primal"][0].endswith(".c") else "fortran"


def run_check(entry: str, candidate: list, workdir: Path, cli: bool = False) -> dict:
    """The report (to_dict) of `adspec check` on a catalogue entry's candidate files."""
    want = expected(entry)
    folder = CATALOGUE / entry
    require_compilers(lang_of(want))
    primal = [str(folder / p) for p in want["primal"]]
    files = [str(folder / c) for c in candidate]
    if cli:
        proc = subprocess.run([sys.executable, "-m", "adspec", "check", *primal, "-head", want["head"],
                               f"--{want['mode']}", *files, "--args", str(folder / "args.toml"),
                               "--points", "1", "--seed", "0", "--workdir", str(workdir), "--json", "-"],
                              capture_output=True, text=True, timeout=300, cwd=workdir.parent)   # not the checkout
        assert proc.returncode == 1, proc.stdout + proc.stderr
        return json.loads(proc.stdout)
    report = check(primal=primal, head=want["head"], **{want["mode"]: files}, args_file=folder / "args.toml",
                   points=1, seed=0, workdir=workdir)
    result = report.to_dict()
    assert report.ok == (result["verdict"] == "pass"), report.text()
    return result


def pairs(report: dict) -> dict:
    """(dependent, independent) -> the independent indices of its wrong entries."""
    found: dict = {}
    for w in report["wrong_pairs"]:
        found.setdefault((w["dependent"], w["independent"]), set()).add(tuple(w["independent_index"]))
    return found


def summary(report: dict) -> str:
    return json.dumps({k: report.get(k) for k in ("verdict", "wrong_pairs", "first_wrong_procedure",
                                                  "procedures", "contract", "errors")}, indent=1)[:6000]


@pytest.mark.compile
@pytest.mark.parametrize("entry", ENTRIES)
def test_faulty_candidate_is_flagged(entry, tmp_path):
    want = expected(entry)
    report = run_check(entry, want["candidate"], tmp_path, cli=entry == THROUGH_THE_CLI)
    why = f"{entry}: {want['bug']}\n{summary(report)}"
    assert report["verdict"] == "fail", why
    assert report["mode"] == want["mode"], why
    assert not report["errors"], why   # found by the numbers, not by a compile error
    found = pairs(report)
    for w in want.get("wrong", []):
        pair = (w["dependent"], w["independent"])
        assert pair in found, why
        if "independent_indices" in w:
            assert found[pair] == {tuple(i) for i in w["independent_indices"]}, why
    for dependent, independent in want.get("right", []):
        assert (dependent, independent) not in found, why
    assert (report["first_wrong_procedure"] or "").lower() == want["first_wrong_procedure"], why
    verdicts = {p["name"].lower(): p["verdict"] for p in report["procedures"]}
    assert verdicts[want["first_wrong_procedure"]] == "fail", why
    for name in want.get("right_procedures", []):   # a right callee below the wrong procedure
        assert verdicts[name] == "pass", why
    for arg, claim in want.get("contract", {}).items():
        got = report["contract"]["arguments"][arg]
        assert {k: got[k] for k in claim} == claim, why


FIXED = [e for e in ENTRIES if (CATALOGUE / e / "fixed").is_dir()]


@pytest.mark.compile
@pytest.mark.parametrize("entry", FIXED)
def test_corrected_candidate_passes(entry, tmp_path):
    want = expected(entry)
    report = run_check(entry, [f"fixed/{c}" for c in want["candidate"]], tmp_path)
    why = f"{entry} (corrected)\n{summary(report)}"
    assert report["verdict"] == "pass" and not report["wrong_pairs"] and not report["errors"], why
    assert report["first_wrong_procedure"] is None, why
    for arg in want.get("contract", {}):
        assert report["contract"]["arguments"][arg]["agrees"] is True, why


def test_catalogue_covers_the_issue():
    """The eight bugs of issue 18, C and Fortran mixed, the fault in a callee in at least 4
    (so the bottom-up check must name it, not the head) and in the head in some."""
    assert len(ENTRIES) == 8
    wants = [expected(e) for e in ENTRIES]
    langs = [lang_of(w) for w in wants]
    assert langs.count("c") >= 3 and langs.count("fortran") >= 3
    heads = [w["head"].split("(")[0].lower() for w in wants]
    in_callee = sum(w["first_wrong_procedure"] != h for w, h in zip(wants, heads))
    assert in_callee >= 4 and in_callee < len(wants)
    for entry, want in zip(ENTRIES, wants):
        for f in [*want["primal"], *want["candidate"], "args.toml"]:
            assert (CATALOGUE / entry / f).is_file(), (entry, f)
