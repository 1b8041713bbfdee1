"""Statement functions called with expression arguments (`F(X+H, 2*Y)`, `DFLOAT(I-1)`).

The reader expands a call in place, each dummy replaced by the actual argument as a whole
(frontends/fortran.py, `_substitute`): the IL keeps the argument a subtree, so the back end
must parenthesize it where precedence asks, and the tangent differentiates the expanded
expression whether the argument is active (X+1.0D0, X independent) or passive (DFLOAT(I-1),
I a loop counter). Checked against gfortran's own statement functions (the original compiled
as written), complex step, and the compiled tangent.
"""
from __future__ import annotations

import numpy as np
import pytest

import adspec
from harness import Arg, Spec, compare_bits, compile_and_run, interp_run, require_compilers
from tangent_check import TangentCase, compiled_errors, vector_error

R, I = "real", "int"

# Each line is an operator whose operand, substituted without its parentheses, would regroup.
PRECEDENCE = """\
      SUBROUTINE F(X, Y, Z, W)
      DOUBLE PRECISION X, Y, Z, W, A, B, G, S, P, D, E, Q, R, T
      G(A, B) = A*B**2
      S(A) = -A
      P(A, B) = A**B
      D(A, B) = A/B
      E(A, B) = A - B
      Q(A) = A*A
      R(A, B) = D(A, B) - E(B, A)
      Z = G(X+Y, 2*Y) + S(X-Y)**2 + P(X, Y**2) + P(X**2, Y)
      W = D(X, Y*Z) + E(X, Y-Z) + Q(-X) + Q(X-Y) + R(X+Y, Z-W)
      W = W + D(Z, -Y) + E(-X, -Y)**2
      END
"""
EXPANDED = ["z = (x + y)*(2*y)**2 + (-(x - y))**2 + x**y**2 + (x**2)**y",
            "w = x/(y*z) + (x - (y - z)) + (-x)*(-x) + (x - y)*(x - y) +",
            "((x + y)/(z - w) - (z - w - (x + y)))",
            "w = w + z/(-y) + (-x - (-y))**2"]


def test_expansion_keeps_each_argument_whole():
    text = adspec.unparse(adspec.parse(PRECEDENCE, lang="fortran", filename="t.f", form="fixed"))
    joined = " ".join(line.strip().lstrip("&").strip() for line in text.splitlines())
    for expected in EXPANDED:
        assert expected in joined, text


@pytest.mark.compile
def test_expansion_computes_what_gfortran_computes(tmp_path):
    """The original compiled as written (gfortran expands its own statement functions), the
    expansion written back and compiled, and the interpreter: the same bits."""
    require_compilers("fortran")
    spec = Spec("f", tuple(Arg(n, "r8") for n in "xyzw"))
    inputs = {"x": np.array(1.25), "y": np.array(0.75), "z": np.array(0.0), "w": np.array(0.5)}
    tree = adspec.parse(PRECEDENCE, lang="fortran", filename="t.f", form="fixed")
    gfortran = compile_and_run(PRECEDENCE, "fortran", spec, inputs, tmp_path / "orig", "fixed")
    expanded = compile_and_run(adspec.unparse(tree), "fortran", spec, inputs, tmp_path / "expanded", "fixed")
    assert not compare_bits(gfortran, expanded)
    assert not compare_bits(gfortran, interp_run(tree, spec, inputs))


# Active arguments (X+1.0D0, X-Y, 2*Y: X and Y independent), passive ones (DFLOAT(I-1), I a
# loop counter; H a constant), a dummy named like a local that the actual argument reads
# (S(T+Y) with T a local), nested statement functions (R calls G and S), DFLOAT as a
# statement function (MINPACK's DFLOAT(IVAR) = IVAR: an INTEGER body made DOUBLE) and as
# gfortran's intrinsic (DBLE too).
STATEMENT_FUNCTIONS = """\
      SUBROUTINE SF(X, Y, Z, N)
      INTEGER N, I, IVAR
      DOUBLE PRECISION X, Y, Z, H, A, B, T, G, S, R, DFLOAT
      G(A, B) = A*B**2
      S(T) = T*T - 3.0D0*T
      R(A, B) = G(B, A) - S(A - B)
      DFLOAT(IVAR) = IVAR
      H = 0.5D0
      Z = G(X+H, 2*Y) + S(X+1.0D0) - G(X, Y-H)/S(Y-X) + G(H, X)
      T = 2*X
      Z = Z + S(T+Y) + R(X*Y, X-Y)
      DO 10 I = 1, N
         Z = Z + X*DFLOAT(I-1)/DFLOAT(N) + S(DFLOAT(I-1)*Y)
         Z = Z + G(DFLOAT(I+1), Y) - R(DFLOAT(N-I), X/DFLOAT(I))
   10 CONTINUE
      END
"""
INTRINSIC_DFLOAT = """\
      SUBROUTINE SF(X, Y, Z, N)
      INTEGER N, I
      DOUBLE PRECISION X, Y, Z, S, T
      S(T) = T*T - 3.0D0*T
      Z = 0.0D0
      DO 10 I = 1, N
         Z = Z + X**2*DFLOAT(I-1)/DFLOAT(N) + S(DBLE(I+1)*Y)
         Z = Z + S(DFLOAT(I)*X - Y)
   10 CONTINUE
      END
"""
ARGS = [("x", R, (), None), ("y", R, (), None), ("z", R, (), None), ("n", I, (), 4)]
CASES = [pytest.param(STATEMENT_FUNCTIONS, head, id=f"statement-dfloat-{tag}")
         for head, tag in (("sf(z)/(x y)", "x-y-active"), ("sf(z)/(x)", "y-passive"), ("sf(z)/(y)", "x-passive"))]
CASES.append(pytest.param(INTRINSIC_DFLOAT, "sf(z)/(x y)", id="intrinsic-dfloat"))


@pytest.mark.compile
@pytest.mark.parametrize("source, head", CASES)
def test_tangent_of_statement_functions_with_expression_arguments(source, head, tmp_path):
    require_compilers("fortran")
    case = TangentCase(source, "fortran", head, ARGS, filename="sf.f", form="fixed")
    runs = case.compiled(tmp_path / "tangent")
    errors = compiled_errors(case, runs)
    report = f"{errors}\n{case.result.text}"
    assert errors["complex step"] <= 1e-12 and errors["central differences"] <= 1e-6, report
    assert errors["interpreter"] <= 1e-14 and errors["primal"] <= 1e-14, report
    assert runs.vector is not None and vector_error(runs) <= 1e-14, (runs.vector, runs.scalar_runs)
    assert runs.checks == "", runs.checks
    # statement functions and their dummies are no variables of the code written back (the
    # labels of DO terminations are a back end matter: `Label 10 defined but not used`)
    assert "Unused variable" not in runs.compiler_messages, runs.compiler_messages
    # the expansion means what gfortran means: the original as written gives the same z
    spec = Spec("sf", (Arg("x", "r8"), Arg("y", "r8"), Arg("z", "r8"), Arg("n", "i4", None, False, 4)))
    inputs = {name: np.asarray(case.values[name]) for name in ("x", "y", "z", "n")}
    gfortran = compile_and_run(source, "fortran", spec, inputs, tmp_path / "orig", "fixed")
    assert not compare_bits({"z": gfortran["z"]}, {"z": np.asarray(runs.primal["z"])})
    # the derivative is not zero: every independent reaches z through the expansions
    assert abs(float(runs.tangent["z"])) > 1e-3


def test_the_code_written_back_declares_no_statement_function():
    """G, S, R, DFLOAT and the dummies A, B, IVAR go; T, a dummy of S but also a local that
    the code assigns, stays DOUBLE (undeclared, it would be an implicit REAL)."""
    text = adspec.unparse(adspec.parse(STATEMENT_FUNCTIONS, lang="fortran", filename="t.f", form="fixed"))
    assert "         integer :: n, i\n         real(8) :: x, y, z, h, t\n" in text, text


@pytest.mark.parametrize("declarations, call, message", [
    ("", "G(X)", "t.f:4: statement function g: argument 1 is real(8), its dummy a is real(4)"),
    ("      DOUBLE PRECISION A\n", "G(2)", "t.f:5: statement function g: argument 1 is integer(4), its dummy a is real(8)"),
    ("      DOUBLE PRECISION A\n", "G(1.5)", "t.f:5: statement function g: argument 1 is real(4), its dummy a is real(8)"),
])
def test_an_argument_of_another_type_than_its_dummy_is_refused(declarations, call, message):
    """gfortran refuses these calls (type mismatch); the expansion would compute them in the
    actual's precision, which is neither the program's nor any compiler's."""
    source = f"      SUBROUTINE F(X, Y)\n      DOUBLE PRECISION X, Y\n{declarations}      G(A) = A*3\n" \
             f"      Y = {call}\n      END\n"
    with pytest.raises(adspec.SourceError) as refused:
        adspec.parse(source, lang="fortran", filename="t.f", form="fixed")
    assert str(refused.value) == message
