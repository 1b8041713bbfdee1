"""Time the analysis engine on the generated ~10,000-line Fortran chain (bench/gen_sources.py:
about 100 subroutines, each a loop over 12 blocks of assignments, intrinsics and if/else,
each calling the previous one), head = the last subroutine of the chain.

    python bench/bench_analyses.py [--lines 10000] [--lang fortran|c]

Prints the seconds of each phase (parse, program build = symbols + zones + flow graphs + call
graph, each analysis), the analysis throughput in lines/s, and the whole `adspec analyze`
command as a user runs it (a fresh process, its report written to /dev/null; best of --repeat).
"""
from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_sources import DEFAULT_OUTDIR, write_sources  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lines", type=int, default=10_000)
    parser.add_argument("--lang", choices=("fortran", "c"), default="fortran")
    parser.add_argument("--repeat", type=int, default=5, help="runs of the whole command (best is shown)")
    args = parser.parse_args(argv)

    from adspec.analyses import run_analyses
    from adspec.engine.program import build_program
    from adspec.frontends import parse_file
    from adspec.heads import parse_heads, resolve_heads

    fortran, c = write_sources(DEFAULT_OUTDIR, args.lines)
    path = fortran if args.lang == "fortran" else c
    n_lines = sum(1 for _ in open(path))
    timings = []

    def timed(label, fn):
        start = time.perf_counter()
        value = fn()
        timings.append((label, time.perf_counter() - start))
        return value

    tree = timed("parse", lambda: parse_file(str(path)))
    program = timed("build program", lambda: build_program(tree))
    last = list(program.procedures.values())[-1]
    analyses_start = len(timings)
    # default dependents and independents come from an in-out run of their own, as in `adspec analyze`
    heads = timed("-head (in-out)", lambda: resolve_heads(program, parse_heads(last.source_name)))
    run_analyses(program, heads, phase=timed)

    print(f"{path.name}: {n_lines} lines, {len(program.procedures)} procedures, "
          f"{sum(len(list(p.flow.instructions())) for p in program.procedures.values())} instructions")
    for label, seconds in timings:
        print(f"  {label:<14} {seconds:8.3f} s")
    analysis_seconds = sum(s for _, s in timings[analyses_start:])
    print(f"  {'all analyses':<14} {analysis_seconds:8.3f} s   {n_lines / analysis_seconds:,.0f} lines/s")
    build_and_analyses = analysis_seconds + dict(timings)["build program"]
    print(f"  {'build+analyses':<14} {build_and_analyses:8.3f} s   {n_lines / build_and_analyses:,.0f} lines/s")
    command = shutil.which("adspec")
    if command:
        print(f"  {'adspec analyze':<14} {whole_command(command, path, last.source_name, args.repeat):8.3f} s"
              f"   (whole process, best of {args.repeat})")
    return 0


def whole_command(command: str, path, head: str, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run([command, "analyze", str(path), "-head", head], stdout=subprocess.DEVNULL, check=True)
        best = min(best, time.perf_counter() - start)
    return best


if __name__ == "__main__":
    sys.exit(main())
