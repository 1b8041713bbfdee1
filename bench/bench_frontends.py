"""Time the front ends (adspec.frontends.parse_file) on generated Fortran and C sources.

    python bench/bench_frontends.py            # ~10,000-line files
    python bench/bench_frontends.py --quick    # ~1,000-line files, for smoke runs
    python bench/bench_frontends.py --lines 5000 --repeat 3

Each file is parsed in a fresh child process, so that its peak resident memory (ru_maxrss)
is its own: first a timed parse (best of --repeat), then one more parse under tracemalloc
for the peak of Python allocations (tracemalloc slows parsing down, so it is not timed).
"""
from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_sources import DEFAULT_OUTDIR, write_sources  # noqa: E402

QUICK_LINES = 1_000
FULL_LINES = 10_000


def measure(path: str, repeat: int) -> dict:
    """Parse `path`; timings, IL size and memory peaks as a dict (run in the child process)."""
    from adspec.engine.il import walk
    from adspec.frontends import parse_file

    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        tree = parse_file(path)
        times.append(time.perf_counter() - start)
    maxrss_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    nodes = sum(1 for _ in walk(tree))
    del tree
    tracemalloc.start()
    parse_file(path)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {"seconds": min(times), "nodes": nodes, "tracemalloc_mb": peak / 2**20,
            "maxrss_mb": maxrss_kb / 1024}


def run_child(path: Path, repeat: int) -> dict:
    """measure() in a fresh interpreter; {'error': message} when the front end fails."""
    proc = subprocess.run([sys.executable, __file__, "--child", str(path), "--repeat", str(repeat)],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["(no message)"])[-1]
        return {"error": last}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def print_table(rows: list[tuple[str, int, dict]]) -> None:
    print(f"{'file':<22} {'lines':>7} {'seconds':>8} {'lines/s':>9} {'IL nodes':>9} "
          f"{'tracemalloc MB':>15} {'maxrss MB':>10}")
    for name, lines, r in rows:
        if "error" in r:
            print(f"{name:<22} {lines:>7}  FAILED: {r['error']}")
            continue
        print(f"{name:<22} {lines:>7} {r['seconds']:>8.2f} {lines / r['seconds']:>9.0f} {r['nodes']:>9} "
              f"{r['tracemalloc_mb']:>15.1f} {r['maxrss_mb']:>10.1f}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help=f"~{QUICK_LINES}-line files")
    ap.add_argument("--lines", type=int, help=f"target lines per file (default {FULL_LINES})")
    ap.add_argument("--repeat", type=int, default=1, help="timed parses per file (best is kept)")
    ap.add_argument("--outdir", default=str(DEFAULT_OUTDIR))
    ap.add_argument("--child", help=argparse.SUPPRESS)  # internal: measure one file, print JSON
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(measure(args.child, args.repeat)))
        return 0
    lines = args.lines or (QUICK_LINES if args.quick else FULL_LINES)
    rows = []
    for path in write_sources(args.outdir, lines):
        nlines = path.read_text().count("\n")
        rows.append((path.name, nlines, run_child(path, args.repeat)))
    print_table(rows)
    return int(any("error" in r for _, _, r in rows))


if __name__ == "__main__":
    sys.exit(main())
