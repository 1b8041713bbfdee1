"""adspec campaign (issue 18): random programs, the tool under test run on each, its output
checked by adspec check, failures shrunk, grouped by symptom and reported. The tool of the
compiled tests is tests/campaign_tools/inject_bug.py: adspec, then a wrong derivative of sin."""
import json
import sys
from collections import Counter
from pathlib import Path

import pytest

from adspec.campaign import generate
from adspec.campaign.campaign import Campaign, run_program
from adspec.campaign.executors import INSTALL_HINT
from adspec.campaign.runner import TOOL_CRASHED, TOOL_TIMED_OUT, TOOL_WROTE_NOTHING, Tool, symptoms_of
from adspec.campaign.shrink import shrink, statement_count
from adspec.cli import main
from test_cli import ADSPEC
from harness import require_compilers

INJECT = Path(__file__).parent / "campaign_tools" / "inject_bug.py"
MAX_SHRUNK_STATEMENTS = 10


def bug_tool(bug: str, lang_mode: str = "-d") -> str:
    return f"{sys.executable} {INJECT} {bug} {lang_mode} {{src}} {{head}} {{outdir}}"


def campaign_args(tool, lang, n, seed, *more):
    return ["campaign", "--tool", tool, "--mode", "tangent", "--lang", lang, "--n", str(n), "--seed", str(seed),
            *more]


# --- the generator ----------------------------------------------------------------------
@pytest.mark.parametrize("lang", ["fortran", "c"])
def test_campaign_programs_are_reproducible_and_use_the_constructs_of_real_codes(lang):
    programs = [generate.campaign_program(3, i, lang, "tangent")[0] for i in range(30)]
    again = generate.campaign_program(3, 7, lang, "tangent")[0]
    assert again.text == programs[7].text and again.head == programs[7].head
    classes = Counter(c for p in programs for c in p.classes)
    wanted = {"call overwrite", "call in loop", "stride", "local array", "select", "state update"} | (
        {"section", "where"} if lang == "fortran" else {"pointer"})
    assert wanted <= set(classes), classes
    texts = "\n".join(p.text for p in programs)
    assert ("go to" in texts) if lang == "fortran" else ("p = " in texts)
    assert "while" in texts
    for p in programs:
        assert p.args["k"] == {"value": 3}
        assert (p.args.get("x") == {"shape": [generate.N]}) == (lang == "c")


# --- the shrinker and the symptoms (no compiler) -------------------------------------------
def test_shrinking_keeps_the_symptom_and_leaves_a_few_statements():
    program = next(p for p in (generate.campaign_program(0, i, "fortran", "tangent")[0] for i in range(50))
                   if "call fill(" in p.text and statement_count(p.tree) > 20)
    fails = lambda p: "call fill(" in p.text  # noqa: E731  (the "bug": a tool that mishandles fill)
    small, tries = shrink(program, fails, "tangent", max_tries=200)
    assert fails(small)
    assert statement_count(small.tree) <= 3, small.text
    assert "subroutine smooth" not in small.text      # uncalled helpers are dropped
    assert generate.differentiable(small, "tangent")


def test_symptoms_name_the_pair_not_the_indices_and_the_most_basic_comes_first():
    report = {"errors": [], "head": "head(y)/(x)", "wrong_pairs": [
        {"dependent": "y", "dependent_index": [2], "independent": "x", "independent_index": [1]},
        {"dependent": "y", "dependent_index": [3], "independent": "x", "independent_index": [1]}],
        "contract": {"arguments": {"xd": {"observed": "in", "claimed": "in", "agrees": True}},
                     "inputs_unchanged": {"x": False}},
        "procedures": [{"name": "g", "verdict": "fail"}, {"name": "head", "verdict": "fail"}]}
    assert symptoms_of(report) == ["wrong derivative of dependent y wrt x", "wrong derivative in procedure g",
                                   "input x changed by the candidate"]
    assert symptoms_of({"errors": ["cannot compile the candidate: t_d.c:3: error: ..."]}) == [
        "candidate does not compile"]


@pytest.mark.parametrize("command, symptom", [("false {src} {head} {outdir}", TOOL_CRASHED),
                                              ("true {src} {head} {outdir}", TOOL_WROTE_NOTHING)])
def test_a_tool_that_crashes_or_writes_nothing_fails_so(command, symptom):
    outcome = run_program(Campaign(Tool(command, "tangent"), "c", 1, shrink=False), 0)
    assert outcome["status"] == "fail" and outcome["symptoms"] == [symptom]


def test_a_tool_that_hangs_is_stopped_with_its_children():
    tool = Tool("sleep 30 & sleep 30; echo {src} {head} {outdir}", "tangent", timeout=0.5)
    outcome = run_program(Campaign(tool, "c", 1, shrink=False), 0)
    assert outcome["symptoms"] == [TOOL_TIMED_OUT] and outcome["seconds"] < 10


def test_bad_tool_command_and_missing_dask_exit_2(capsys, monkeypatch):
    assert main(campaign_args("mytool {src}", "c", 1, 0)) == 2
    assert "--tool must contain {head}, {outdir}" in capsys.readouterr().err
    monkeypatch.setitem(sys.modules, "distributed", None)    # import distributed fails
    assert main(campaign_args("true {src} {head} {outdir}", "c", 1, 0, "--scheduler", "tcp://nowhere:8786")) == 2
    assert INSTALL_HINT in capsys.readouterr().err


# --- campaigns against a faulty tool and adspec itself (compiled) --------------------------
def assert_found_shrunk_and_reported(report_dir: Path, lang: str):
    data = json.loads((report_dir / "report.json").read_text())
    assert data["summary"]["failed"] >= 1, data["summary"]
    failure = data["failures"][0]
    assert failure["symptoms"][0].startswith("wrong derivative"), failure["symptoms"]
    assert failure["shrunk"]["statements"] <= MAX_SHRUNK_STATEMENTS < failure["statements"]
    shrunk = (report_dir / failure["files"]["shrunk"]).read_text()
    assert "sin(" in shrunk or "bump(" in shrunk or "smooth(" in shrunk, shrunk   # where the bug bites
    assert (report_dir / failure["files"]["original"]).read_text() == failure["source"]
    markdown = (report_dir / "report.md").read_text()
    assert f"## {failure['symptoms'][0]}" in markdown and shrunk.strip().splitlines()[-1] in markdown


@pytest.mark.compile
def test_campaign_finds_shrinks_and_reports_an_injected_bug_on_the_process_pool(tmp_path, capsys):
    require_compilers("fortran")
    code = main(campaign_args(bug_tool("sin"), "fortran", 1, 9, "--jobs", "2", "--report", str(tmp_path)))
    assert code == 1
    assert "programs failed" in capsys.readouterr().out
    assert_found_shrunk_and_reported(tmp_path, "fortran")


@pytest.mark.compile
def test_campaign_finds_shrinks_and_reports_an_injected_bug_on_a_dask_cluster(tmp_path):
    require_compilers("c")
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster:
        code = main(campaign_args(bug_tool("sin"), "c", 1, 22, "--scheduler", cluster.scheduler_address,
                                  "--report", str(tmp_path)))
    assert code == 1
    data = json.loads((tmp_path / "report.json").read_text())
    assert data["summary"]["executor"].startswith("Dask cluster")
    assert_found_shrunk_and_reported(tmp_path, "c")


@pytest.mark.compile
def test_a_campaign_of_100_programs_finds_no_failure_in_adspec_own_tangent(tmp_path):
    require_compilers("c")
    own = f"{ADSPEC} -d -head {{head}} -O {{outdir}} {{src}}"   # the installed command, not the checkout's folder
    main(campaign_args(own, "c", 100, 0, "--heads", "all", "--jobs", "2", "--no-shrink", "--report", str(tmp_path)))
    data = json.loads((tmp_path / "report.json").read_text())
    assert data["summary"]["passed"] + data["summary"]["failed"] + data["summary"]["unchecked"] == 100
    assert not data["failures"], [(f["index"], f["symptoms"]) for f in data["failures"]]
    assert data["summary"]["passed"] >= 98, data["summary"]   # unchecked: adspec's own reference in doubt
