"""The campaign's report in a directory: report.md for people, report.json for scripts, and
the failing programs (original and shrunk) in programs/."""
from __future__ import annotations

import json
from pathlib import Path


def write_report(result, directory) -> list:
    """Write the report of `result` (a CampaignResult) into `directory`; the paths written."""
    directory = Path(directory)
    (directory / "programs").mkdir(parents=True, exist_ok=True)
    written = []
    for outcome in result.failures + result.unchecked:
        for key, source in _program_files(outcome).items():
            path = directory / "programs" / key
            path.write_text(source)
            outcome.setdefault("files", {})[key.split("_")[-1].split(".")[0]] = f"programs/{key}"
            written.append(path)
    data = to_dict(result)
    (directory / "report.json").write_text(json.dumps(data, indent=1, default=str) + "\n")
    (directory / "report.md").write_text(markdown(result))
    return written + [directory / "report.json", directory / "report.md"]


def _program_files(outcome) -> dict:
    stem, ext = f"{outcome['index']:06d}", outcome["filename"].rsplit(".", 1)[1]
    files = {f"{stem}_original.{ext}": outcome["source"]}
    if outcome.get("shrunk"):
        files[f"{stem}_shrunk.{ext}"] = outcome["shrunk"]["source"]
    return files


def summary(result) -> dict:
    campaign = result.campaign
    outcomes = result.outcomes
    return {"tool": campaign.tool.command, "mode": campaign.tool.mode, "lang": campaign.lang, "n": campaign.n,
            "seed": campaign.seed, "executor": result.executor, "passed": sum(o["status"] == "pass" for o in outcomes),
            "failed": len(result.failures), "unchecked": len(result.unchecked), "redrawn": sum(o["redrawn"] for o in outcomes),
            "seconds": round(result.seconds, 1),
            "program_seconds_mean": round(sum(o["seconds"] for o in outcomes) / max(1, len(outcomes)), 3)}


def to_dict(result) -> dict:
    groups = [{"symptom": symptom, "count": len(outcomes), "programs": [o["index"] for o in outcomes]}
              for symptom, outcomes in result.groups().items()]
    return {"summary": summary(result), "groups": groups, "failures": result.failures,
            "unchecked": result.unchecked}


def markdown(result) -> str:
    s = summary(result)
    lines = ["# adspec campaign", "",
             f"Tool `{s['tool']}`, {s['mode']} mode, {s['lang']}, {s['n']} programs of seed {s['seed']} "
             f"on {s['executor']}: **{s['failed']} failed**, {s['passed']} passed, {s['unchecked']} could not be "
             f"checked, in {s['seconds']} s "
             f"({s['program_seconds_mean']} s per program; {s['redrawn']} programs adspec cannot differentiate "
             "were drawn again).", ""]
    groups = result.groups()
    if not groups:
        lines.append("No failure.")
    for symptom, outcomes in groups.items():
        best = outcomes[0]
        shrunk = best.get("shrunk")
        lines += [f"## {symptom}", "", f"{len(outcomes)} program(s): " + ", ".join(
            f"[{o['index']}]({o['files']['original']})" if o.get("files") else str(o["index"]) for o in outcomes), ""]
        shown = shrunk or best
        what = (f"Program {best['index']}, shrunk from {best['statements']} to {shrunk['statements']} statements "
                f"in {shrunk['tries']} tries" if shrunk else f"Program {best['index']} ({best['statements']} statements)")
        lines += [f"{what}; head `{best['head']}`, arguments `{json.dumps(best['args'])}`:", "",
                  "```" + ("fortran" if best["lang"] == "fortran" else "c"),
                  (shown["source"] if shrunk else _head_only(shown["source"])).rstrip(),
                  "```", "", "What the check says:", "", "```", shown["detail"].rstrip(), "```", ""]
    if result.unchecked:
        lines += ["## Programs that could not be checked", "",
                  "adspec's own tangent disagrees with complex step on these (a finding about adspec, to report; "
                  "the tool's candidate was not judged): " + ", ".join(
                      f"[{o['index']}]({o['files']['original']})" if o.get("files") else str(o["index"])
                      for o in result.unchecked), ""]
    return "\n".join(lines) + "\n"


def _head_only(source: str) -> str:
    """The head procedure of a program (its helpers are the generator's fixed ones; the files
    hold them)."""
    for marker in ("subroutine head(", "void head("):
        at = source.find(marker)
        if at >= 0:
            return source[at:]
    return source
