"""A campaign: programs 0..n-1 of a seed, each drawn, run through the tool, checked and, when it
fails, shrunk, in a worker of a concurrent.futures executor (a local process pool or a Dask
cluster's: the same code path); the outcomes grouped by symptom."""
from __future__ import annotations

import time
from concurrent.futures import as_completed
from dataclasses import dataclass, field

from .generate import campaign_program
from .runner import REFERENCE_IN_DOUBT, Tool, try_program

WORKER_FAILED = "campaign worker failed"
from .shrink import shrink, statement_count


@dataclass(frozen=True)
class Campaign:
    tool: Tool
    lang: str
    n: int
    seed: int = 0
    shrink: bool = True
    max_tries: int = 300      # shrinking tries per failing program
    heads: str = "random"     # or "all": generate.campaign_program

    def check_seed(self, index: int) -> int:
        return self.seed * 1_000_003 + index


@dataclass
class CampaignResult:
    campaign: Campaign
    outcomes: list = field(default_factory=list)     # run_program's dicts, by index
    seconds: float = 0.0
    executor: str = "local"

    @property
    def failures(self) -> list:
        return [o for o in self.outcomes if o["status"] == "fail"]

    @property
    def unchecked(self) -> list:
        """Programs whose candidate could not be judged: adspec's own reference was in doubt."""
        return [o for o in self.outcomes if o["status"] == "unchecked"]

    def groups(self) -> dict:
        """symptom -> its failing outcomes, smallest shrunk program first (each failure counts
        under its first symptom, the one it was shrunk for)."""
        groups: dict = {}
        for outcome in self.failures:
            groups.setdefault(outcome["symptoms"][0], []).append(outcome)
        for outcomes in groups.values():
            outcomes.sort(key=lambda o: (o.get("shrunk") or o)["statements"])
        return dict(sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])))


def run_program(campaign: Campaign, index: int, checker=None) -> dict:
    """Program `index`: drawn, tried and, when it fails, shrunk. Plain data (it crosses processes)."""
    start = time.perf_counter()
    program, redrawn = campaign_program(campaign.seed, index, campaign.lang, campaign.tool.mode, campaign.heads)
    seed = campaign.check_seed(index)
    trial = try_program(campaign.tool, program, seed, checker)
    outcome = {"index": index, "head": program.head, "args": program.args, "lang": program.lang,
               "filename": program.filename, "classes": sorted(program.classes), "redrawn": redrawn,
               "symptoms": trial.symptoms, "statements": statement_count(program.tree),
               "status": _status(trial.symptoms)}
    if trial.symptoms:
        outcome.update(source=program.text, detail=trial.detail, report=trial.report)
        if campaign.shrink and outcome["status"] == "fail":
            outcome["shrunk"] = _shrunk(campaign, program, trial, seed, checker)
    outcome["seconds"] = round(time.perf_counter() - start, 3)
    return outcome


def _outcome(future, index: int) -> dict:
    """The future's outcome, or a failure of its own kind when the worker raised (never a pass)."""
    try:
        return future.result()
    except Exception as e:
        return {"index": index, "head": None, "args": None, "lang": None, "filename": "prog.txt", "classes": [],
                "redrawn": 0, "symptoms": [f"{WORKER_FAILED}: {type(e).__name__}"], "statements": 0,
                "status": "fail", "source": "", "detail": f"{type(e).__name__}: {e}", "seconds": 0.0}


def _status(symptoms) -> str:
    if not symptoms:
        return "pass"
    return "unchecked" if set(symptoms) == {REFERENCE_IN_DOUBT} else "fail"


def _shrunk(campaign: Campaign, program, trial, seed: int, checker) -> dict:
    symptom, last = trial.symptoms[0], [trial]

    def still_fails(candidate) -> bool:
        again = try_program(campaign.tool, candidate, seed, checker)
        if symptom in again.symptoms:
            last[0] = again
            return True
        return False

    small, tries = shrink(program, still_fails, campaign.tool.mode, campaign.max_tries)
    return {"source": small.text, "statements": statement_count(small.tree), "tries": tries,
            "symptoms": last[0].symptoms, "detail": last[0].detail}


def run_campaign(campaign: Campaign, executor, progress=None, executor_name: str = "local") -> CampaignResult:
    """Every program of `campaign` through `executor` (concurrent.futures-like: submit and
    futures); `progress(done, total, failures)` after each."""
    start = time.perf_counter()
    result = CampaignResult(campaign, executor=executor_name)
    futures = {executor.submit(run_program, campaign, index): index for index in range(campaign.n)}
    for future in as_completed(futures):
        result.outcomes.append(_outcome(future, futures[future]))
        if progress is not None:
            progress(len(result.outcomes), campaign.n, len(result.failures))
    result.outcomes.sort(key=lambda o: o["index"])
    result.seconds = time.perf_counter() - start
    return result
