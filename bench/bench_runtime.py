"""Run time of the generated derivative code, compiled at -O2, on three kernels (bench/kernels/):

- `burgers.f90`: a 1-D explicit PDE stepper (viscous Burgers), head burgers(u)/(u nu);
- `gmm.c`: a Gaussian-mixture log-likelihood, head gmm(ll)/(mu logw sigma);
- `rnn.f90`: a recurrent cell unrolled over a sequence, head rnn(loss h)/(w u b).

For each kernel it reports R_t = time(tangent) / time(primal), and time(F_DV with 8
directions) / time(8 runs of F_D). Each driver times every call as the best
of 5 repetitions.

    python bench/bench_runtime.py [--keep DIR]
"""
from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

KERNELS = Path(__file__).resolve().parent / "kernels"
NBDIRS = 8
DIFFSIZES = f"module diffsizes\n  integer, parameter :: nbdirsmax = {NBDIRS}\nend module\n"

# name, source, head, vector mode too
CASES = [
    ("burgers", "burgers.f90", "burgers(u)/(u nu)", True),
    ("gmm", "gmm.c", "gmm(ll)/(mu logw sigma)", True),
    ("rnn", "rnn.f90", "rnn(loss h)/(w u b)", True),
]


def adspec(*args: str, cwd: Path) -> None:
    subprocess.run([sys.executable, "-P", "-m", "adspec", *args], cwd=cwd, check=True, stdout=subprocess.DEVNULL)


def build_and_run(name: str, source: str, head: str, vector: bool, work: Path) -> dict:
    shutil.copy(KERNELS / source, work)
    stem, ext = source.split(".")
    adspec("-d", "-head", head, source, "-O", ".", cwd=work)
    if ext == "c":
        shutil.copy(KERNELS / f"{name}_driver.c", work)
        files = [source, f"{stem}_d.c", f"{name}_driver.c"]
        if vector:
            adspec("-vector", "-head", head, source, "-O", ".", cwd=work)
            (work / "DIFFSIZES.h").write_text(f"#define NBDirsMax {NBDIRS}\n")
            files.append(f"{stem}_dv.c")
        subprocess.run(["gcc", "-O2", *files, "-lm", "-o", name], cwd=work, check=True)
    else:
        (work / "diffsizes.f90").write_text(DIFFSIZES)
        shutil.copy(KERNELS / "timing.f90", work)
        shutil.copy(KERNELS / f"{name}_driver.f90", work)
        files = ["diffsizes.f90", "timing.f90", source, f"{stem}_d.f90"]
        if vector:
            adspec("-vector", "-head", head, source, "-O", ".", cwd=work)
            files.append(f"{stem}_dv.f90")
        subprocess.run(["gfortran", "-O2", *files, f"{name}_driver.f90", "-o", name], cwd=work, check=True)
    out = subprocess.run([str(work / name)], cwd=work, check=True, capture_output=True, text=True).stdout
    return {key: float(value) for key, value in (line.split() for line in out.splitlines() if line.strip())}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--keep", type=Path, help="build in DIR and keep the files")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        root = args.keep or Path(tmp)
        for name, source, head, vector in CASES:
            work = root / name
            work.mkdir(parents=True, exist_ok=True)
            t = build_and_run(name, source, head, vector, work)
            line = (f"{name:8s} primal {t['primal'] * 1e3:8.2f} ms  tangent {t['tangent'] * 1e3:8.2f} ms  "
                    f"R_t = {t['tangent'] / t['primal']:.2f}")
            if vector:
                line += (f"  | F_DV(8) {t['vector8'] * 1e3:8.2f} ms  8 x F_D {t['tangent8'] * 1e3:8.2f} ms  "
                         f"ratio = {t['vector8'] / t['tangent8']:.2f}")
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
