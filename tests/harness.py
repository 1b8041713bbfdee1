"""The round-trip test programs (tests/programs/) on top of the compile-and-run harness
(adspec/oracle/harness.py, shared with `adspec check`).

Each program names its head procedure and argument types in an `adspec-test:` signature
line (format in tests/programs/README.md).

    prog = load_program(path)
    inputs = make_inputs(prog.spec, seed=0)
    ref = compile_and_run(prog.text, prog.lang, prog.spec, inputs, tmp / "orig", prog.form)
    tree = parse_file(str(path)); text = unparse(tree, prog.lang)
    assert not compare_bits(ref, compile_and_run(text, prog.lang, prog.spec, inputs, tmp / "rt", prog.form))
    assert not compare_rel(ref, interp_run(tree, prog.spec, inputs), 1e-14)
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from adspec.oracle import harness as _harness
from adspec.oracle.harness import (  # noqa: F401  (re-exported to the tests)
    CHECKED_ENV, CHECKED_FLAGS, DERIVATIVE_TAG, OUTPUT_TAG, RESULT, RUN_TIMEOUT, TYPES, Arg, Call, CompileError,
    HarnessError, RunError, Spec, _guess_fixed_form, build_calls_driver, build_driver, checked_run,
    compare_bits, compare_rel, compile_and_run, compile_calls_and_run, compile_only, interp_run, make_inputs,
    missing_compilers, parse_output, parse_spec, with_derivatives)

PROGRAMS_DIR = Path(__file__).resolve().parent / "programs"
if str(PROGRAMS_DIR) not in _harness.FORTRAN_INCLUDES:
    _harness.FORTRAN_INCLUDES.append(str(PROGRAMS_DIR))


def require_compilers(lang: str) -> None:
    """pytest.skip when the compilers a language needs are not installed."""
    missing = missing_compilers(lang)
    if missing:
        import pytest
        pytest.skip(f"compiler(s) not installed: {', '.join(missing)}")


@dataclass(frozen=True)
class Program:
    path: Path
    text: str
    lang: str          # 'fortran' | 'c'
    form: str | None   # 'free' | 'fixed' for Fortran
    spec: Spec

    @property
    def name(self) -> str:
        return self.path.name


def lang_form_of(path) -> tuple[str, str | None]:
    ext = Path(path).suffix.lower()
    if ext in (".f", ".for", ".f77"):
        return "fortran", "fixed"
    if ext in (".f90", ".f95", ".f03", ".f08"):
        return "fortran", "free"
    if ext == ".c":
        return "c", None
    raise HarnessError(f"not a test program: {path}")


def program_paths() -> list[Path]:
    """Every test program, sorted by name."""
    return sorted(p for p in PROGRAMS_DIR.iterdir() if p.suffix.lower() in (".f", ".f90", ".c"))


def load_program(path) -> Program:
    path = Path(path)
    text = path.read_text()
    lang, form = lang_form_of(path)
    return Program(path, text, lang, form, parse_spec(text))



def run_original(prog: Program, workdir, seed: int = 0) -> dict:
    """Compile and run a test program as written, on make_inputs(spec, seed)."""
    return compile_and_run(prog.text, prog.lang, prog.spec, make_inputs(prog.spec, seed), workdir, prog.form)
