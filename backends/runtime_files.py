"""The push/pop runtime that adjoint code links with (backends/runtime/, shipped as package
data): `adspec runtime -O DIR` copies it out."""
from __future__ import annotations

import shutil
from pathlib import Path

RUNTIME_DIR = Path(__file__).resolve().parent / "runtime"
RUNTIME_FILES = ("adStack.h", "adStack.c", "adStack_cuda.cuh")


def copy_runtime(outdir: str | Path) -> list[Path]:
    """Copies the runtime files into `outdir` (made if missing); returns the paths written."""
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name in RUNTIME_FILES:
        shutil.copyfile(RUNTIME_DIR / name, out / name)
        written.append(out / name)
    return written
