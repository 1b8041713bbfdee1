"""Adjoint mode (`adspec -b`): the cost of differentiating, and the run time of what it writes.

(a) Whole-process `adspec -b` time (best of --repeat) and peak memory (the child's max RSS)
    on the generated ~10,000-line Fortran chains (bench/gen_sources.py): chain<lines>.f90 and
    chain<lines>_random.f90, head = the last subroutine, and a profile summary (cProfile, own
    time). While -b refuses their calls, the refusal is printed and the same files without
    calls are measured instead (every subroutine a head, so that all of them are differentiated).
(b) R_a = time(gradient) / time(function) with gcc/gfortran -O2, and the peak bytes of the
    push/pop stack (backends/runtime/), on the kernels of bench/kernels: gmm.c, burgers.f90,
    rnn.f90 and the bundle-adjustment reprojection error ba.c (drivers *_adjoint_driver.*,
    ba_driver.c). The goal is R_a <= 3.

    python bench/bench_adjoint.py [--lines 10000] [--repeat 3] [--profile 12] [--no-profile]
                                  [--only files|kernels] [--keep DIR]
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
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from gen_sources import (DEFAULT_OUTDIR, write_fortran_without_calls, write_random_fortran,  # noqa: E402
                         write_sources)

KERNELS = HERE / "kernels"
GOAL_SECONDS, GOAL_BYTES, GOAL_RA = 5.0, 0.5e9, 3.0
# name, source, head, driver
CASES = [
    ("gmm", "gmm.c", "gmm(ll)/(mu logw sigma)", "gmm_adjoint_driver.c"),
    ("burgers", "burgers.f90", "burgers(u)/(u nu)", "burgers_adjoint_driver.f90"),
    ("rnn", "rnn.f90", "rnn(loss h)/(w u b)", "rnn_adjoint_driver.f90"),
    ("ba", "ba.c", "ba(f)/(cams pts)", "ba_driver.c"),
]
# the child's peak RSS, read by a fresh Python around it (RUSAGE_CHILDREN keeps the largest child)
MEASURE = ("import resource, subprocess, sys, time\n"
           "start = time.perf_counter()\n"
           "done = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
           "seconds = time.perf_counter() - start\n"
           "print(done.returncode, seconds, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024)\n"
           "sys.stderr.write(done.stderr)\n")


def adspec_command() -> list:
    beside = Path(sys.executable).with_name("adspec")   # the install being measured
    return [str(beside)] if beside.exists() else [sys.executable, "-m", "adspec"]


def whole_command(path: Path, head: str, repeat: int) -> tuple:
    """(best seconds, the largest peak RSS in bytes, None) or (None, None, the refusal)."""
    best, peak = float("inf"), 0
    with tempfile.TemporaryDirectory() as out:
        for _ in range(repeat):
            done = subprocess.run([sys.executable, "-c", MEASURE, *adspec_command(), "-b", "-head", head, str(path),
                                   "-O", out], capture_output=True, text=True)
            code, seconds, rss = done.stdout.split()
            if code != "0":
                return None, None, done.stderr.strip().splitlines()[-1]
            best, peak = min(best, float(seconds)), max(peak, int(rss))
    return best, peak, None


def profile_summary(path: Path, head: str, rows: int) -> str:
    import adspec
    profile = cProfile.Profile()
    profile.enable()
    adspec.differentiate(str(path), head=head, mode="adjoint")
    profile.disable()
    text = io.StringIO()
    pstats.Stats(profile, stream=text).sort_stats("tottime").print_stats(rows)
    return "\n".join(line for line in text.getvalue().splitlines() if line.strip())


def subroutines(path: Path) -> list:
    return [line.split()[1].split("(")[0] for line in open(path) if line.startswith("subroutine ")]


def bench_files(args) -> None:
    chain, _ = write_sources(DEFAULT_OUTDIR, args.lines)
    pairs = [(chain, write_fortran_without_calls(DEFAULT_OUTDIR, args.lines)),
             (write_random_fortran(DEFAULT_OUTDIR, args.lines),
              write_random_fortran(DEFAULT_OUTDIR, args.lines, calls=False))]
    for path, without_calls in pairs:
        head = subroutines(path)[-1]
        seconds, rss, refusal = whole_command(path, head, args.repeat)
        if refusal is not None:
            print(f"{path.name}: adspec -b -head {head} refuses it: {refusal}")
            path, head = without_calls, " ".join(subroutines(without_calls))
            seconds, rss, refusal = whole_command(path, head, args.repeat)
            if refusal is not None:
                print(f"{path.name}: refused too: {refusal}")
                continue
            head_shown = f"every one of its {len(head.split())} subroutines"
        else:
            head_shown = head
        lines = sum(1 for _ in open(path))
        verdict = "meets" if seconds <= GOAL_SECONDS and rss <= GOAL_BYTES else "misses"
        print(f"{path.name}: {lines} lines, adspec -b, head {head_shown}: {seconds:.2f} s, peak RSS "
              f"{rss / 1e6:.0f} MB (whole process, best of {args.repeat}; {verdict} the goal of "
              f"{GOAL_SECONDS:.0f} s and {GOAL_BYTES / 1e9:.1f} GB)", flush=True)
        if not args.no_profile:
            print(f"profile of {path.name} (in-process, by own time):")
            print(profile_summary(path, head, args.profile), flush=True)


def build_and_run(name: str, source: str, head: str, driver: str, work: Path) -> dict:
    from adspec import backends
    runtime = Path(backends.__file__).resolve().parent / "runtime"
    for f in (KERNELS / source, KERNELS / driver, runtime / "adStack.c", runtime / "adStack.h"):
        shutil.copy(f, work)
    subprocess.run([*adspec_command(), "-b", "-head", head, source, "-O", "."], cwd=work, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    stem, ext = source.split(".")
    if ext == "c":
        subprocess.run(["gcc", "-O2", "-I.", source, f"{stem}_b.c", driver, "adStack.c", "-lm", "-o", name],
                       cwd=work, check=True)
    else:
        shutil.copy(KERNELS / "timing.f90", work)
        subprocess.run(["gcc", "-O2", "-c", "adStack.c"], cwd=work, check=True)
        subprocess.run(["gfortran", "-O2", "timing.f90", source, f"{stem}_b.f90", driver, "adStack.o", "-o", name],
                       cwd=work, check=True)
    out = subprocess.run([str(work / name)], cwd=work, check=True, capture_output=True, text=True).stdout
    return {key: float(value) for key, value in (line.split() for line in out.splitlines() if line.strip())}


def bench_kernels(args) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = args.keep or Path(tmp)
        for name, source, head, driver in CASES:
            work = root / name
            work.mkdir(parents=True, exist_ok=True)
            try:
                t = build_and_run(name, source, head, driver, work)
            except subprocess.CalledProcessError as e:
                print(f"{name:8s} failed: {' '.join(map(str, e.cmd))}", flush=True)
                continue
            ratio = t["adjoint"] / t["primal"]
            print(f"{name:8s} primal {t['primal'] * 1e3:8.2f} ms  adjoint {t['adjoint'] * 1e3:8.2f} ms  "
                  f"R_a = {ratio:.2f} ({'meets' if ratio <= GOAL_RA else 'misses'} {GOAL_RA:.0f})  "
                  f"peak stack {t['peak'] / 1e6:8.2f} MB", flush=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lines", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--profile", type=int, default=12, metavar="N", help="rows of the profile summary")
    parser.add_argument("--no-profile", action="store_true", help="only the whole-process figures")
    parser.add_argument("--only", choices=("files", "kernels"), help="one half of the bench")
    parser.add_argument("--keep", type=Path, help="build the kernels in DIR and keep the files")
    args = parser.parse_args(argv)
    if args.only != "kernels":
        bench_files(args)
    if args.only != "files":
        bench_kernels(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
