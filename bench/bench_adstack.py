"""Push/pop throughput of the adjoint runtime (backends/runtime/adStack.c), compiled with gcc -O2
and called from a separate file, as generated adjoints call it: nanoseconds per value for 10^7
values of pushReal8/popReal8, pushReal8Array of 100 values, pushControl1b and pushControl8b,
and, for scale, a store to and a load from a plain preallocated array. Best of 5 sweeps; the
first sweep's push time (which takes the blocks from malloc) is shown apart.

    python bench/bench_adstack.py
"""
from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RUNTIME = ROOT / "backends" / "runtime"
DRIVER = Path(__file__).resolve().parent / "kernels" / "adstack_driver.c"


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        exe = Path(tmp) / "adstack_bench"
        subprocess.run(["gcc", "-O2", "-I", str(RUNTIME), str(DRIVER), str(RUNTIME / "adStack.c"), "-o", str(exe)],
                       check=True)
        out = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout
    print(f"{'operation':22s} {'push ns':>8s} {'pop ns':>8s} {'first push ns':>14s} {'push GB/s':>10s}")
    for line in out.splitlines():
        name, *figures = line.split()
        if len(figures) == 1:
            print(f"{name:22s} {int(figures[0]):,}")
            continue
        push, pop, first = map(float, figures)
        per_value = 8 if name in ("pushReal8", "pushReal8Array(100)", "plain_array") else None
        rate = f"{per_value / push:10.2f}" if per_value else f"{'':10s}"
        print(f"{name:22s} {push:8.2f} {pop:8.2f} {first:14.2f} {rate}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
