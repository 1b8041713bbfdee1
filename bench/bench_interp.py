"""Speed of the IL interpreter on the random programs of tests/test_tangent_random.py.

The same programs every run (hypothesis derandomized): each is differentiated once, outside
the timing; then the timed part does what the random test does per program in the
interpreter: the tangent, two runs for central differences, and complex step (four runs).
Reports programs per second, best of the repeats, per language, by the clock and by the CPU
time of the process (steadier on a loaded machine).

    python bench/bench_interp.py [--programs 60] [--repeat 5]
"""
from __future__ import annotations

import argparse
import hashlib
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import numpy as np  # noqa: E402

import adspec  # noqa: E402
from adspec.engine.errors import UnsupportedError  # noqa: E402
from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402
from il_gen import programs  # noqa: E402
from tangent_check import TangentCase  # noqa: E402
from test_tangent_random import ARGS, HEAD  # noqa: E402


def draw(lang: str, n: int) -> list[str]:
    """n random programs of `lang` as source text, the same every run."""
    texts: list[str] = []

    @settings(max_examples=n, derandomize=True, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(programs(lang))
    def collect(tree):
        texts.append(adspec.unparse(tree))
    collect()
    return texts[:n]


def cases(lang: str, n: int) -> list[TangentCase]:
    ext = "f90" if lang == "fortran" else "c"
    out = []
    for text in draw(lang, n):
        try:
            out.append(TangentCase(text, lang, HEAD, ARGS[lang], filename=f"random.{ext}"))
        except UnsupportedError:
            pass
    return out


def digest(prepared: list[TangentCase]) -> str:
    """A hash of the tangents, divided differences and complex steps of every program."""
    h = hashlib.sha256()
    for case in prepared:
        check = case.check()
        for table in (check.analytic, check.divided, check.complex_step or {}):
            for name in sorted(table):
                h.update(name.encode() + np.asarray(table[name], dtype=np.float64).tobytes())
        h.update(str(check.complex_step_skipped).encode())
    return h.hexdigest()[:16]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--programs", type=int, default=60)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--digest", action="store_true", help="print a hash of every result (to compare versions)")
    args = ap.parse_args()
    for lang in ("fortran", "c"):
        prepared = cases(lang, args.programs)
        wall, cpu = [], []
        for _ in range(args.repeat):
            start, start_cpu = time.perf_counter(), time.process_time()
            for case in prepared:
                case.check()
            wall.append(time.perf_counter() - start)
            cpu.append(time.process_time() - start_cpu)
        n = len(prepared)
        if args.digest:
            print(f"{lang}: results digest {digest(prepared)}")
        print(f"{lang}: {n} programs; wall best {min(wall):.3f} s ({n / min(wall):.1f} programs/s), worst "
              f"{max(wall):.3f} s; CPU best {min(cpu):.3f} s ({n / min(cpu):.1f} programs/s)")


if __name__ == "__main__":
    main()
