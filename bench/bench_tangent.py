"""Time tangent differentiation of the generated ~10,000-line Fortran chains (bench/gen_sources.py),
head = the last subroutine: chain<lines>.f90 (statements of a few shapes) and
chain<lines>_random.f90 (every right-hand side a different random expression). For each file:
the whole `adspec -d` command as a user runs it (a fresh process, best of --repeat), then one
in-process run under cProfile for where the time goes.

    python bench/bench_tangent.py [--lines 10000] [--repeat 5] [--profile 12] [--no-profile]
"""
from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_sources import DEFAULT_OUTDIR, write_random_fortran, write_sources  # noqa: E402

GOAL_SECONDS = 4.0


def whole_command(command: str, path, head: str, repeat: int) -> float:
    best = float("inf")
    with tempfile.TemporaryDirectory() as out:
        for _ in range(repeat):
            start = time.perf_counter()
            subprocess.run([command, "-d", "-head", head, str(path), "-O", out], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            best = min(best, time.perf_counter() - start)
    return best


def profile_summary(path, head: str, rows: int) -> str:
    import adspec
    profile = cProfile.Profile()
    profile.enable()
    adspec.differentiate(str(path), head=head, mode="tangent")
    profile.disable()
    text = io.StringIO()
    pstats.Stats(profile, stream=text).sort_stats("tottime").print_stats(rows)
    return "\n".join(line for line in text.getvalue().splitlines() if line.strip())


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lines", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--profile", type=int, default=12, metavar="N", help="rows of the profile summary")
    parser.add_argument("--no-profile", action="store_true", help="only the whole-process timings")
    args = parser.parse_args(argv)
    fortran, _ = write_sources(DEFAULT_OUTDIR, args.lines)
    files = [fortran, write_random_fortran(DEFAULT_OUTDIR, args.lines)]
    # the adspec script next to this Python (the install being measured), else the one on PATH
    beside = Path(sys.executable).with_name("adspec")
    command = str(beside) if beside.exists() else shutil.which("adspec")
    for path in files:
        head = "sub" + f"{sum(1 for line in open(path) if line.startswith('subroutine ')) - 1:04d}"
        lines = sum(1 for _ in open(path))
        if command:
            seconds = whole_command(command, path, head, args.repeat)
            verdict = "meets" if seconds <= GOAL_SECONDS else "misses"
            print(f"{path.name}: {lines} lines, adspec -d -head {head}: {seconds:.2f} s "
                  f"(whole process, best of {args.repeat}; {verdict} the goal of {GOAL_SECONDS:.0f} s)", flush=True)
        else:
            print("adspec is not on PATH: no whole-process timing")
        if not args.no_profile:
            print(f"profile of {path.name} (in-process, by own time):")
            print(profile_summary(path, head, args.profile), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
