"""The harness itself and the test corpus: every program, compiled as written, runs
deterministically and gives finite outputs. (The round trip is tests/test_roundtrip.py.)"""
from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest

from harness import (RESULT, Arg, Call, HarnessError, Spec, build_driver, compare_bits, compare_rel,
                     compile_calls_and_run, load_program, make_inputs, parse_spec, program_paths, run_original,
                     with_derivatives)

PROGRAMS = program_paths()


# --- signature parsing and inputs ---------------------------------------------------

def test_parse_fortran_signature():
    spec = parse_spec("x = 1\n! adspec-test: head(x:r8[3], m:r8[2,3], n:i4=3) -> r8\n")
    assert spec == Spec("head", (Arg("x", "r8", (3,)), Arg("m", "r8", (2, 3)), Arg("n", "i4", None, False, 3)), "r8")


def test_parse_c_signature():
    spec = parse_spec("/* adspec-test: head(x:r8*, a:r8[4], h:r8=0.5, k:i4) */")
    x, a, h, k = spec.args
    assert spec.result is None
    assert x.pointer and not x.by_value and x.size == 1
    assert a.dims == (4,) and not a.by_value
    assert h.fixed == 0.5 and h.by_value
    assert k.by_value and k.fixed is None


@pytest.mark.parametrize("text", ["int x;", "/* adspec-test: f(x:q8) */", "! adspec-test: f(x r8)",
                                  "! adspec-test: f(x:r8) -> c8"])
def test_bad_signatures(text):
    with pytest.raises(HarnessError):
        parse_spec(text)


def test_inputs_deterministic_and_in_range():
    spec = parse_spec("! adspec-test: f(x:r8[5], s:r4, k:i4[3], z:c8, n:i4=7, h:r8=0.25)")
    a, b = make_inputs(spec, 3), make_inputs(spec, 3)
    assert not compare_bits(a, b)
    assert compare_bits(a, make_inputs(spec, 4))
    assert a["x"].shape == (5,) and a["s"].shape == () and a["s"].dtype == np.float32
    assert np.all((a["x"] >= 0.5) & (a["x"] <= 1.5))
    assert np.all((a["k"] >= 1) & (a["k"] <= 5))
    assert int(a["n"]) == 7 and float(a["h"]) == 0.25 and a["z"].dtype == np.complex128


def test_driver_is_bit_exact():
    spec = parse_spec("! adspec-test: f(x:r8, s:r4) -> r8")
    text = build_driver(spec, "fortran", {"x": np.array(0.1), "s": np.array(0.1, dtype=np.float32)})
    assert "double f_(double *x, float *s);" in text
    assert (0.1).hex() in text and float(np.float32(0.1)).hex() + "f" in text


def test_tangent_signature_and_several_calls(tmp_path):
    """with_derivatives: x, xd after it with x's passing (C: by value for a by-value scalar,
    a pointer for an array); a driver with two tagged calls of the same procedure."""
    spec = Spec("f", (Arg("x", "r8"), Arg("u", "r8", (2,)), Arg("n", "i4")))
    tangent = with_derivatives(spec, "f_d", {"x", "u"}, "c")
    assert [(a.name, a.by_value) for a in tangent.args] == [("x", True), ("x__d", True), ("u", False),
                                                            ("u__d", False), ("n", True)]
    source = "void f_d(double x, double xd, double *u, double *ud, int n) {\n  ud[0] = x * xd * n;\n" \
             "  ud[1] = u[1];\n}\n"
    inputs = {"x": np.array(1.5), "x__d": np.array(2.0), "u": np.array([0.0, 3.0]), "u__d": np.zeros(2),
              "n": np.array(2, dtype=np.int32)}
    first, second = compile_calls_and_run([("t.c", source)], "c", [Call(tangent, inputs, "a_"),
                                                                   Call(tangent, dict(inputs, n=np.int32(3)), "b_")],
                                          tmp_path)
    assert list(first["u__d"]) == [6.0, 3.0] and list(second["u__d"]) == [9.0, 3.0]


# Each body runs without a crash in the plain -O0 build; the checked build must report it.
_C_HEAD = "void f(double *u, int n) {\n"
_F_HEAD = "      subroutine f(u, n)\n      real(8) u(2), v(2)\n      integer n\n"
CHECKED_FAULTS = [
    pytest.param("c", _C_HEAD + "  u[0] = u[n];\n}\n", "global-buffer-overflow", id="c-read-past-array"),
    pytest.param("c", _C_HEAD + "  double *w = (double *)__builtin_malloc(sizeof(double));\n  w[0] = u[0];\n"
                 "  u[1] = w[0] * n;\n}\n", "LeakSanitizer", id="c-leak"),
    pytest.param("c", _C_HEAD + "  int k = 2147483647;\n  k += n;\n  u[0] = k;\n}\n", "signed integer overflow",
                 id="c-signed-overflow"),
    pytest.param("c", _C_HEAD + "  u[0] = u[1] / (n - 2);\n}\n", "FPE", id="c-divide-by-zero"),
    pytest.param("fortran", _F_HEAD + "      v = u\n      u(1) = v(n + 1)\n      end\n",
                 "above upper bound of 2", id="fortran-bounds"),
    pytest.param("fortran", _F_HEAD + "      u(1) = sqrt(u(1) - 2.0d0*n)\n      end\n", "FPE", id="fortran-invalid"),
]

CHECKED_CLEAN = {"c": _C_HEAD + "  u[0] = u[1] * n;\n}\n", "fortran": _F_HEAD + "      u(1) = u(2)*n\n      end\n"}


@pytest.mark.compile
@pytest.mark.parametrize("lang, source, report", CHECKED_FAULTS)
def test_checked_build_reports_faults_the_plain_build_hides(lang, source, report, tmp_path):
    spec = Spec("f", (Arg("u", "r8", (2,)), Arg("n", "i4", None, False, 2)))
    filename = "t.c" if lang == "c" else "t.f"
    reports: list = []
    out, = compile_calls_and_run([(filename, source)], lang, [Call(spec, make_inputs(spec))], tmp_path / "faulty",
                                 reports=reports)
    assert out["u"].shape == (2,) and len(reports) == 1 and report in reports[0], reports
    clean: list = []
    compile_calls_and_run([(filename, CHECKED_CLEAN[lang])], lang, [Call(spec, make_inputs(spec))],
                          tmp_path / "clean", reports=clean)
    assert clean == [""]


def test_compare_helpers():
    a = {"x": np.array([1.0, 2.0, 0.0]), "k": np.array(3, dtype=np.int32)}
    b = {"x": np.array([1.0, 2.0 + 1e-15, 1e-17]), "k": np.array(3, dtype=np.int32)}
    assert len(compare_bits(a, b)) == 2
    assert not compare_rel(a, b, 1e-14)
    assert compare_rel(a, {**b, "k": np.array(4, dtype=np.int32)}, 1e-14)
    assert compare_rel(a, {"x": a["x"]}, 1e-14) == ["k: missing on one side"]


# --- the corpus ---------------------------------------------------------------------

def test_corpus_size():
    langs = [load_program(p).lang for p in PROGRAMS]
    fixed = [p for p in PROGRAMS if p.suffix == ".f"]
    assert langs.count("fortran") >= 16 and langs.count("c") >= 14 and len(fixed) >= 3


# Operators the corpus leaves out: CUDA launches (no CUDA front end test here),
# EQUIVALENCE (storage association, outside the round-trip programs' scope) and arrayType
# (only vector mode makes it, `double (*pd)[NBDirsMax]`; the C reader refuses pointers to arrays).
NOT_IN_CORPUS = {"kernelLaunch", "equivalence", "arrayType"}


def test_corpus_covers_every_il_operator():
    from adspec.engine.il import OPS, walk
    from adspec.engine.errors import SourceError
    try:
        from adspec.frontends import parse_file
        trees = [parse_file(str(p)) for p in PROGRAMS]
    except (ImportError, SourceError) as e:
        pytest.skip(f"front ends cannot parse the whole corpus yet: {e}")
    used = {node.op for tree in trees for node in walk(tree)}
    assert sorted(set(OPS) - NOT_IN_CORPUS - used) == []


@pytest.mark.compile
@pytest.mark.parametrize("path", PROGRAMS, ids=[p.name for p in PROGRAMS])
def test_original_runs_deterministically(path, tmp_path):
    prog = load_program(path)
    first = run_original(prog, tmp_path / "a")
    second = run_original(prog, tmp_path / "b")
    assert not compare_bits(first, second)
    expected = {a.name for a in prog.spec.args} | ({RESULT} if prog.spec.result else set())
    assert set(first) == expected
    for name, value in first.items():
        assert np.all(np.isfinite(value)), f"{prog.name}: {name} not finite: {value}"


# --- the benchmark generator ---------------------------------------------------------

@pytest.mark.compile
def test_bench_sources_compile(tmp_path):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
    from gen_sources import compile_check, write_random_fortran, write_sources
    for path in (*write_sources(tmp_path, 300), write_random_fortran(tmp_path, 300)):
        verdict = compile_check(path)
        if verdict.startswith("skipped"):
            pytest.skip(verdict)
        assert verdict == "ok", verdict


def test_random_bench_variant_has_a_different_shape_in_every_right_hand_side_and_is_reproducible():
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
    from gen_sources import fortran_random_source, fortran_source
    random_text = fortran_random_source(1000)
    assert random_text == fortran_random_source(1000)          # seeded
    plain, randomized = fortran_source(1000).splitlines(), random_text.splitlines()
    assert len(plain) == len(randomized)
    rhs = [line.split(" = ", 1)[1] for line in randomized if " = " in line and "do i" not in line]
    shapes = {re.sub(r"\d+\.\d+d0|x\(i\)|y\(i\)|\b[tus]\b", "_", text) for text in rhs}
    assert len(rhs) > 400 and len(shapes) == len(rhs)          # variables and constants aside


def test_fortran_form_guess():
    from harness import _guess_fixed_form
    for path in PROGRAMS:
        prog = load_program(path)
        if prog.lang == "fortran":
            assert _guess_fixed_form(prog.text) == (prog.form == "fixed"), prog.name
