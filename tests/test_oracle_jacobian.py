"""`adspec check --jacobian JACPROC`: hand-written Jacobians against adspec's tangent.

The problem collection is tests/ssq_problems/ (SSQFCN, 15 least-squares problems selected by a
computed GO TO, and SSQJAC, their Jacobian by hand); tests/oracle_jacobian/ holds a small C problem
with its hand Jacobian (by columns and by rows) and args files. The wrong Jacobians are copies made
here with exactly one line changed (`one_line_changed`). Each check is one compiled program (every
problem and point of a group in one driver).
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from adspec.cli import main
from adspec.engine.errors import SourceError
from adspec.oracle.jacobian import UNSET, check_jacobian
from harness import require_compilers

HERE = Path(__file__).parent
SSQ = HERE / "ssq_problems"
CASES = HERE / "oracle_jacobian"
HEAD = "ssqfcn(fvec)/(x)"
POINTS = 2

# (NPROB, M, N): every problem of the collection, and one out of range (SSQFCN and SSQJAC give zeros)
PROBLEMS = [(1, 7, 5), (2, 6, 4), (3, 2, 2), (4, 3, 3), (5, 4, 4), (6, 2, 2), (7, 15, 3), (8, 11, 4),
            (9, 16, 3), (10, 31, 6), (11, 10, 3), (12, 10, 2), (13, 20, 4), (14, 7, 5), (15, 5, 5), (16, 2, 2)]
ARGS = [{"m": {"value": m}, "n": {"value": n}, "nprob": {"value": nprob}} for nprob, m, n in PROBLEMS]
POWELL = next(k for k, (nprob, *_) in enumerate(PROBLEMS) if nprob == 5)
# Powell singular's FJAC(3, 3) with TWO for FOUR; resid.c's d f_2/d x_1 with the wrong sign
SSQJAC_BUG = ("      FJAC(3, 3) = -FOUR*(X(2) - TWO*X(3))\n", "      FJAC(3, 3) = -TWO*(X(2) - TWO*X(3))\n")
RESID_BUG = ("        fjac[i + ldfjac] = -x[0] * t * e;\n",
             "        fjac[i + ldfjac] = i == 2 ? x[0] * t * e : -x[0] * t * e;\n")


def one_line_changed(source: Path, bug: tuple, directory: Path) -> Path:
    """A copy of `source` in `directory` with the lines bug[0] (found exactly once) replaced by bug[1]."""
    text = source.read_text()
    assert text.count(bug[0]) == 1, f"{source.name}: the line to break is not there once: {bug[0]!r}"
    copy = directory / source.name
    copy.write_text(text.replace(bug[0], bug[1]))
    return copy


def _ssq(jacobian_file: Path):
    require_compilers("fortran")
    return check_jacobian([SSQ / "ssqfcn.f", jacobian_file], HEAD, "ssqjac", args=ARGS, points=POINTS, seed=1)


@pytest.mark.compile
def test_the_hand_written_ssqjac_passes_on_every_problem():
    report = _ssq(SSQ / "ssqjac.f")
    assert report.ok, report.text()
    data = report.to_dict()
    assert data["verdict"] == "pass" and data["mode"] == "jacobian" and not data["wrong_entries"]
    assert report.text().splitlines()[-1].startswith("adspec check: PASS")
    assert data["checked_entries"] == POINTS * sum(m * n for _, m, n in PROBLEMS)
    assert f"{POINTS} point(s) for each of {len(PROBLEMS)} argument sets" in report.text()


@pytest.mark.compile
def test_one_wrong_entry_is_named_and_no_other(tmp_path):
    report = _ssq(one_line_changed(SSQ / "ssqjac.f", SSQJAC_BUG, tmp_path))
    assert not report.ok
    wrong = report.to_dict()["wrong_entries"]
    # Powell singular's fjac(3,3) at each of its points, nothing else in 16 problems
    assert [(w["args_set"], w["point"]) for w in wrong] == [(POWELL, p) for p in range(POINTS)], wrong
    for w in wrong:
        assert (w["entry"], w["row"], w["column"]) == ("fjac(3,3)", 3, 3)
        assert w["candidate"] == pytest.approx(w["reference"] / 2, rel=1e-12)   # TWO for FOUR
        assert w["relative_error"] == pytest.approx(0.5, rel=1e-9)
        assert (w["dependent"], w["dependent_index"], w["independent"], w["independent_index"]) == \
               ("fvec", [3], "x", [3])
    text = report.text()
    assert "fjac(3,3) = d fvec(3)/d x(3): hand-written " in text and "relative error 0.5" in text
    assert text.splitlines()[-1].startswith("adspec check: FAIL (1 wrong entry, first fjac(3,3), ")


@pytest.mark.compile
def test_c_hand_jacobian_right_and_wrong_on_the_command_line(tmp_path, capsys):
    require_compilers("c")
    command = ["check", "-head", "resid(f)/(x)", "--jacobian", "jac", "--args", str(CASES / "resid.toml")]
    assert main([*command, str(CASES / "resid.c")]) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith("adspec check: PASS (every entry of the 5x3 Jacobian")
    wrong = one_line_changed(CASES / "resid.c", RESID_BUG, tmp_path)
    assert main([*command, str(wrong), "--json", str(tmp_path / "report.json")]) == 1
    text = capsys.readouterr().out
    entries = json.loads((tmp_path / "report.json").read_text())["wrong_entries"]
    assert {(w["entry"], w["row"], w["column"]) for w in entries} == {("fjac[7]", 2, 1)}   # C: 0-based
    assert [w["point"] for w in entries] == [0, 1, 2]
    assert all(w["candidate"] == pytest.approx(-w["reference"]) for w in entries)
    assert "  fjac[7] (row 2, column 1) = d f[2]/d x[1]: hand-written " in text
    assert text.splitlines()[-1].startswith("adspec check: FAIL (1 wrong entry, first fjac[7], ")
    # bad input: exit 2, file:line of the arguments file
    bad = tmp_path / "bad.toml"
    bad.write_text((CASES / "resid.toml").read_text() + "[jacobian]\nlayout = \"diagonal\"\n")
    assert main([*command[:-1], str(bad), str(CASES / "resid.c")]) == 2
    assert f"{bad}:12: [jacobian] layout = 'diagonal': one of columns, rows" in capsys.readouterr().err


@pytest.mark.compile
def test_row_layout_from_the_args_file_and_unset_entries():
    require_compilers("c")
    rows = check_jacobian([CASES / "resid.c"], "resid(f)/(x)", "jac_rows", args_file=CASES / "resid_rows.toml",
                          points=1)
    assert rows.ok, rows.text()
    # read by columns, the same routine's entries are in the wrong places (and the 15-element array
    # read with leading dimension 5 holds each entry once: nothing is left unset)
    table = {"m": {"value": 5}, "n": {"value": 3}, "x": {"shape": ["n"]}, "f": {"shape": ["m"]},
             "jacobian": {"array": "jac"}}
    columns = check_jacobian([CASES / "resid.c"], "resid(f)/(x)", "jac_rows", args=table, points=1)
    assert not columns.ok and len(columns.to_dict()["wrong_entries"]) >= 10
    # f of 6 entries, m = 5: the routine fills rows 0..4 only; row 5 keeps the garbage it had on entry
    unset = check_jacobian([CASES / "resid.c"], "resid(f)/(x)", "jac", points=1,
                           args={**table, "jacobian": {}, "f": {"shape": [6]}})
    entries = unset.to_dict()["wrong_entries"]
    assert [(w["row"], w["column"], w["candidate"]) for w in entries] == [(5, j, UNSET) for j in range(3)]
    assert unset.text().count(" (left unset), adspec 0, ") == 3


def test_bad_input_names_what_to_write_in_the_args_file():
    with pytest.raises(SourceError, match=r"integer argument 'nprob' needs a value \(\[nprob\] value"):
        check_jacobian([SSQ / "ssqfcn.f", SSQ / "ssqjac.f"], HEAD, "ssqjac", args={"m": {"value": 2},
                                                                                "n": {"value": 2}})
    with pytest.raises(SourceError, match="--jacobian: no procedure 'nojac'"):
        check_jacobian([SSQ / "ssqfcn.f", SSQ / "ssqjac.f"], HEAD, "nojac", args=ARGS[0])
    with pytest.raises(SourceError, match=r"the size of C pointer argument 'x' is not known \(\[x\] shape"):
        check_jacobian([CASES / "resid.c"], "resid(f)/(x)", "jac", args={"m": {"value": 5}, "n": {"value": 3}})


@pytest.mark.compile
def test_a_routine_that_changes_its_input_fails(tmp_path):
    require_compilers("fortran")
    # Rosenbrock's entries all right, then x(2) changed
    rosenbrock = ("      FJAC(2, 1) = -ONE\n", "      FJAC(2, 1) = -ONE\n      X(2) = X(2) + ONE\n")
    report = check_jacobian([SSQ / "ssqfcn.f", one_line_changed(SSQ / "ssqjac.f", rosenbrock, tmp_path)], HEAD,
                            "ssqjac", args=ARGS[2], points=1)
    data = report.to_dict()
    assert data["contract"]["inputs_unchanged"] == {"m": True, "n": True, "x": False, "ldfjac": True, "nprob": True}
    assert not data["wrong_entries"] and data["checked_entries"] == 4
    assert data["verdict"] == "fail" and "ssqjac changes its input(s) x" in report.text()


@pytest.mark.compile
def test_a_primal_that_keeps_state_runs_each_call_in_a_process_of_its_own(tmp_path):
    require_compilers("c")
    # the first call of the process scales by 1, later ones by 2: the hand Jacobian is the first call's
    source = tmp_path / "counted.c"
    source.write_text("""
void f(int n, const double *x, double *y)
{
    static int calls = 0;
    int i;
    calls = calls + 1;
    for (i = 0; i < n; i++)
        y[i] = (calls == 1 ? 1.0 : 2.0) * x[i] * x[i];
}

void jac(int n, const double *x, double *fjac)
{
    static int calls = 0;
    int i, j;
    calls = calls + 1;
    for (j = 0; j < n; j++)
        for (i = 0; i < n; i++)
            fjac[i + j * n] = i == j ? (calls == 1 ? 2.0 : 4.0) * x[i] : 0.0;
}
""")
    report = check_jacobian([source], "f(y)/(x)", "jac", points=1,
                            args={"n": {"value": 3}, "x": {"shape": ["n"]}, "y": {"shape": ["n"]}})
    assert report.ok, report.text()
    assert report.checked_entries == 9
