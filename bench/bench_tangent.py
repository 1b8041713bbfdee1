"""Time tangent differentiation of the generated ~10,000-line Fortran chain (bench/gen_sources.py),
head = the last subroutine: the whole `adspec -d` command as a user runs it (a fresh process,
best of --repeat), then one in-process run under cProfile for where the time goes.

    python bench/bench_tangent.py [--lines 10000] [--repeat 3] [--profile 12]
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
from gen_sources import DEFAULT_OUTDIR, write_sources  # noqa: E402


def whole_command(command: str, path, head: str, repeat: int) -> float:
    best = float("inf")
    with tempfile.TemporaryDirectory() as out:
        for _ in range(repeat):
            start = time.perf_counter()
            subprocess.run([command, "-d", "-head", head, str(path), "-O", out], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            best = min(best, time.perf_counter() - start)
    return best


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lines", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--profile", type=int, default=12, metavar="N", help="rows of the profile summary")
    args = parser.parse_args(argv)
    fortran, _ = write_sources(DEFAULT_OUTDIR, args.lines)
    head = "sub" + f"{sum(1 for line in open(fortran) if line.startswith('subroutine ')) - 1:04d}"
    command = shutil.which("adspec")
    lines = sum(1 for _ in open(fortran))
    if command:
        seconds = whole_command(command, fortran, head, args.repeat)
        print(f"{fortran.name}: {lines} lines, adspec -d -head {head}: {seconds:.2f} s "
              f"(whole process, best of {args.repeat})")
    import adspec
    profile = cProfile.Profile()
    profile.enable()
    adspec.differentiate(str(fortran), head=head, mode="tangent")
    profile.disable()
    text = io.StringIO()
    pstats.Stats(profile, stream=text).sort_stats("tottime").print_stats(args.profile)
    print("profile (in-process, by own time):")
    print("\n".join(line for line in text.getvalue().splitlines() if line.strip())[-4000:])
    return 0


if __name__ == "__main__":
    sys.exit(main())
