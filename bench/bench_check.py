"""Time `adspec check` as a user runs it (a fresh process, best of --repeat) on ten programs of
the test corpus (tests/programs/), each with adspec's own tangent and adjoint as the candidate,
3 points (the default). The issue's goal: under 10 s each on a program of about 100 lines.

    python bench/bench_check.py [--repeat 3]
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from harness import PROGRAMS_DIR, load_program  # noqa: E402
from test_corpus_tangent import HEADS  # noqa: E402
from test_oracle_corpus import args_of_spec  # noqa: E402

PROGRAMS = ["c02_arrays_for.c", "c07_loops.c", "c14_calls.c", "c18_switch.c", "c21_enum_modes.c",
            "f02_array_sections.f90", "f14_loops.f90", "f22_select_case.f90", "f24_interfaces.f90",
            "f30_rk_select.f"]
GOAL_SECONDS = 10.0


def toml_of(args: dict) -> str:
    lines = []
    for name, table in args.items():
        lines.append(f"[{name}]")
        lines += [f"{key} = {json.dumps(value)}" for key, value in table.items()]
    return "\n".join(lines) + "\n"


def best_of(command: list, repeat: int) -> tuple:
    best, verdict = float("inf"), ""
    for _ in range(repeat):
        start = time.perf_counter()
        run = subprocess.run(command, capture_output=True, text=True)
        best = min(best, time.perf_counter() - start)
        verdict = (run.stdout.strip().splitlines() or [run.stderr.strip()])[-1]
    return best, verdict


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    worst = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        print(f"{'program':26} {'lines':>5} {'mode':8} {'seconds':>8}  verdict")
        for name in PROGRAMS:
            path = PROGRAMS_DIR / name
            args = tmp / f"{path.stem}.toml"
            args.write_text(toml_of(args_of_spec(load_program(path).spec)))
            for flag, mode in (("-d", "tangent"), ("-b", "adjoint")):
                out = tmp / f"{path.stem}{flag}"
                subprocess.run(["adspec", flag, "-head", HEADS[name], str(path), "-O", str(out)], check=True,
                               capture_output=True)
                candidate = next(p for p in out.iterdir() if p.suffix != ".msg")
                seconds, verdict = best_of(["adspec", "check", str(path), "-head", HEADS[name],
                                            f"--{mode}", str(candidate), "--args", str(args)], options.repeat)
                worst = max(worst, seconds)
                lines = len(path.read_text().splitlines())
                print(f"{name:26} {lines:>5} {mode:8} {seconds:8.2f}  {verdict[:60]}")
    print(f"slowest: {worst:.2f} s (goal: under {GOAL_SECONDS:.0f} s each)")
    return 0 if worst < GOAL_SECONDS else 1


if __name__ == "__main__":
    sys.exit(main())
