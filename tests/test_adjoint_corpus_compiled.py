"""The adjoint of every tangent-corpus program that adjoint mode differentiates
(tests/test_adjoint_corpus.py), compiled: P, P_D and P_b built with gcc/gfortran -O2 and the
project's runtime pass the dot-product test to 1e-12, X̄ equals the interpreted adjoint's to
1e-13, and a second build under AddressSanitizer/UBSan (C) or -fcheck=all (Fortran) reports
nothing."""
import pytest

from adspec.engine.errors import UnsupportedError
from adjoint_check import AdjointCase
from c_tangent_cases import source
from test_adjoint_corpus import C, FORTRAN, tolerance
import test_tangent_programs as T


@pytest.mark.compile
@pytest.mark.parametrize("name, head, args", FORTRAN + C, ids=[c[0] for c in FORTRAN + C])
def test_corpus_adjoint_compiled(name, head, args, tmp_path):
    lang = "c" if name.endswith(".c") else "fortran"
    text = source(name) if lang == "c" else (T.HERE / name).read_text()
    try:
        case = AdjointCase(text, lang, head, args, filename=name)
    except UnsupportedError:
        pytest.skip("refused with file:line (tests/test_adjoint_corpus.py checks how)")
    check = case.compiled_check(tmp_path, flags=("-O2",), checked=True)
    assert check.error < tolerance(name), check.report()
    assert check.interpreter_error < (1e-13 if tolerance(name) == 1e-12 else tolerance(name)), check.report()
