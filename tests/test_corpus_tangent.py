"""Tangent and vector tangent over the round-trip corpus tests/programs/: real code, not
written for adspec. For every program with a head in HEADS, each mode either

(a) differentiates: F_D (and F_DV, nbdirs = 3) compiled with the original in one
    gcc/gfortran -Wall build, no warning in the derivative code, F_D against complex step to
    1e-12 (and central differences, the interpreted F_D), F_DV against three F_D runs to 1e-14,
    and the same program built under ASan/UBSan and -fcheck=all runs clean; or
(b) is refused with `file:line: reason` (UnsupportedError), listed in REFUSED with the reason.
The faults still open are in KNOWN_FAULTS (strict xfail: fixing one fails the test until its
entry goes). Programs with float, long long or complex arguments are in NOT_CHECKED.

A new fault in the generated code fails (a); a refusal that goes away fails (b) until its entry
is removed, so the table stays the truth.
"""
from __future__ import annotations

import re

import pytest

import adspec
from adspec.engine.errors import UnsupportedError
from harness import PROGRAMS_DIR, compile_only, load_program, make_inputs, program_paths, require_compilers
from tangent_check import C_DIFFSIZES, DIFFSIZES, TangentCase, compiled_errors, vector_error

COMPLEX_STEP_TOLERANCE = 1e-12
SAME_CODE_TOLERANCE = 1e-14

# program -> head: the real outputs the program computes, along its real inputs
HEADS = {
    "c01_scalar_math.c": "scalar_math(scalar_math)/(x y)",
    "c02_arrays_for.c": "stencil(b s)/(a b)",
    "c03_pointer_arith.c": "walk(out)/(a)",
    "c04_structs.c": "centroid(c)/(xs ys)",
    "c05_malloc.c": "heap(a heap)/(a)",
    "c06_globals.c": "accumulate(accumulate)/(x)",
    "c07_loops.c": "loops(a loops)/(a)",
    "c08_goto.c": "newton(x)/(a)",
    "c09_recursion.c": "rec(rec)/(x)",
    "c12_directives.c": "smooth(u e)/(u)",
    "c13_matrix2d.c": "matops(m t)/(m v)",
    "c14_calls.c": "model(p y model)/(p x)",
    "c15_bits_logic.c": "bits(x)/(x)",
    "c16_comments_typedef.c": "kinetic(m e)/(v m)",
    "c17_struct_values.c": "structvals(out structvals)/(p)",
    "c18_switch.c": "limited(out limited)/(u)",
    "c19_incdec_hoist.c": "compact(packed)/(x)",
    "c20_comma_for.c": "twoends(b twoends)/(a)",
    "c21_enum_modes.c": "heat(u heat)/(u work)",  # work: its derivative an argument (see helper ptr)
    "c22_union_bits.c": "bitsplit(out bitsplit)/(x)",
    "c23_const_restrict.c": "kernels(z kernels)/(x y)",
    "f01_scalar_intrinsics.f90": "scalar_mix(scalar_mix)/(x y)",
    "f02_array_sections.f90": "sections(b s)/(a)",
    "f03_matmul.f90": "matops(r t)/(m v)",
    "f04_module_use.f90": "simulate(x v e)/(x v)",
    "f05_internal_procs.f90": "host(res)/(a)",
    "f06_derived_types.f90": "polyarea(area cx)/(xs ys)",
    "f07_pointers_alloc.f90": "ptrs(a s)/(a)",
    "f08_common_f77.f": "relax(x r)/(x)",
    "f09_goto_f77.f": "newton(x)/(a)",
    "f12_logical_char.f90": "flags(x)/(x)",
    "f13_recursion.f90": "rec(rec)/(x)",
    "f14_loops.f90": "loops(a s)/(a)",
    "f15_directives.f90": "smooth(u e)/(u)",
    "f16_f77_function.f": "trapz(trapz)/(f)",
    "f18_reductions.f90": "reduce(out)/(a v)",
    "f19_module_only.f90": "integrate(q)/(x0 vals)",
    "f20_implicit_f77.f": "gauss(b)/(a b)",
    "f21_parameter_dimension.f": "smooth(u s)/(u)",
    "f22_select_case.f90": "heat_flux(flux total)/(t)",
    "f23_where_forall.f90": "smooth_limit(u r s)/(u)",
    "f24_interfaces.f90": "power_iter(x lambda)/(a x)",
    "f25_gauss_data.f": "gquad(res)/(a b c)",
    "f26_include_io.f": "pendulum(theta omega energy)/(theta omega)",
    "f27_use_rename.f90": "chain_energy(e)/(x)",
    "f28_optional_kw.f90": "cubic_roots(roots)/(c x0)",
    "f29_constructors.f90": "cheb_interp(ys tab)/(f xs)",
    "f30_rk_select.f": "rkint(y)/(y)",
    "f31_io_format.f90": "heat_explicit(u umax)/(u)",
    "f32_generic_physics.f90": "particles(x v ekin)/(x v)",
    "f33_fixed_where.f": "diffuse(c total)/(c)",
    "f34_computed_goto.f": "select(f select)/(x)",
    "f35_arithmetic_if.f90": "walk(r)/(a)",
}

# programs the compiled check cannot call (tests/tangent_check.py passes double and int
# arguments only): their F_D and F_DV are only compiled with the original (-Wall, no warning
# in the derivative code) -> (head, why not run)
NOT_CHECKED = {
    "c10_float.c": ("horner(y horner)/(c x)", "float arguments"),
    "c11_intdiv_mixed.c": ("mixed(x mixed)/(x)", "a long long argument"),
    "f10_real4.f90": ("horner4(y horner4)/(c x)", "real(4) arguments"),
    "f11_complex.f90": ("cplx(z w r)/(z w)", "complex arguments"),
    "f17_int8_kinds.f90": ("kinds(x)/(x)", "integer(8) arguments"),
}

# (program, mode) -> what the refusal says: constructs that need more than a local fix
_POINTER_STORE = "the derivative of pp (reached through a pointer or an alias) is not supported yet"
_STATIC_FILE = "a static file-scope variable ({}) used by differentiated code"
REFUSED = {
    **{("c03_pointer_arith.c", m): _POINTER_STORE for m in ("tangent", "vector")},
    **{("c06_globals.c", m): _STATIC_FILE.format("ncalls") for m in ("tangent", "vector")},
    **{("c23_const_restrict.c", m): _STATIC_FILE.format("NCOEF") for m in ("tangent", "vector")},
    # silently wrong before: `b.i ^= sign bit` flips the sign of b.d, which bd.i = 0 did not follow
    **{("c22_union_bits.c", m): "the derivative of a union (dbits) whose members of other types share its storage"
       for m in ("tangent", "vector")},
    **{("f18_reductions.f90", m): "the derivative of an array constructor with a passive item that may be an array"
       for m in ("tangent", "vector")},
    **{("f19_module_only.f90", m): "an active array expression as an actual argument"
       for m in ("tangent", "vector")},
    **{("f27_use_rename.f90", m): "an active call of the external function link_energy"
       for m in ("tangent", "vector")},
}


# programs whose run passes through a non-differentiable point where it does not matter: the
# interpreter's complex step refuses them, central differences check them
AT_A_KINK = {"f28_optional_kw.f90": "Newton's iteration reaches f = 0 exactly, and abs(f) < eps compares abs "
                                    "at its kink"}

# (program, mode) -> a fault still open, owned elsewhere or left for later: the test fails
# until it is fixed (strict xfail), then the entry must go
KNOWN_FAULTS = {
}


def _programs(mode, names=HEADS):
    return [pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=KNOWN_FAULTS[(name, mode)]))
            if (name, mode) in KNOWN_FAULTS else name for name in sorted(names)]


def _args(spec):
    """The head's formals as tangent_check reads them; integers fixed to the harness's inputs."""
    out, inputs = [], make_inputs(spec)
    for a in spec.args:
        shape = a.dims or ((1,) if a.pointer else ())
        real = a.type == "r8"
        out.append((a.name, "real" if real else "int", shape, a.fixed if real else inputs[a.name].tolist()))
    return out


_CASES: dict = {}


def _case(name, workdir):
    """The program's TangentCase and its compiled runs (original + F_D + F_DV, one build),
    made once; the TangentCase's own UnsupportedError when F_D is refused."""
    if name not in _CASES:
        prog = load_program(PROGRAMS_DIR / name)
        require_compilers(prog.lang)
        # no form=: the file name's extension gives it, as on the command line
        case = TangentCase(prog.text, prog.lang, HEADS[name], _args(prog.spec), filename=str(prog.path))
        _CASES[name] = case, case.compiled(workdir)
    return _CASES[name]


def _assert_refused(name, mode, error):
    reason = REFUSED[(name, mode)]
    assert isinstance(error, UnsupportedError), error
    assert re.match(rf"(.*/)?{re.escape(name)}:\d+: ", str(error)), str(error)
    assert reason in str(error), str(error)


def test_the_table_covers_the_corpus():
    names = {p.name for p in program_paths()}
    assert names == set(HEADS) | set(NOT_CHECKED)
    assert {p for p, _ in REFUSED} <= set(HEADS)


@pytest.mark.compile
@pytest.mark.parametrize("name", _programs("tangent"))
def test_corpus_tangent(name, tmp_path_factory):
    if (name, "tangent") in REFUSED:
        with pytest.raises(UnsupportedError) as refused:
            prog = load_program(PROGRAMS_DIR / name)
            adspec.differentiate(prog.text, head=HEADS[name], lang=prog.lang, filename=str(prog.path))
        _assert_refused(name, "tangent", refused.value)
        return
    case, runs = _case(name, tmp_path_factory.mktemp(name.split(".")[0]))
    errors = compiled_errors(case, runs)
    report = f"{name} {HEADS[name]}: {errors}\n{case.result.text}"
    assert not runs.warnings, runs.compiler_messages
    assert errors["interpreter"] <= SAME_CODE_TOLERANCE, report
    assert errors["primal"] <= SAME_CODE_TOLERANCE, report
    if name in AT_A_KINK:  # central differences instead, at the tolerance of the compiled tier
        assert errors["complex step skipped"] and errors["central differences"] <= 1e-6, report
        return
    assert "complex step skipped" not in errors, report
    assert errors["complex step"] <= COMPLEX_STEP_TOLERANCE, report
    assert runs.checks == "", f"{name}: {runs.checks}\n{case.result.text}"


@pytest.mark.compile
@pytest.mark.parametrize("name", _programs("vector"))
def test_corpus_vector_tangent(name, tmp_path_factory):
    if (name, "tangent") in REFUSED:
        pytest.skip("F_D is refused")
    case, runs = _case(name, tmp_path_factory.mktemp(name.split(".")[0]))
    if (name, "vector") in REFUSED:
        _assert_refused(name, "vector", case.vector)
        return
    assert runs.vector is not None, f"-vector refused {name}: {case.vector}"
    assert not runs.warnings, runs.compiler_messages
    assert vector_error(runs) <= SAME_CODE_TOLERANCE, (runs.vector, runs.scalar_runs)
    assert runs.checks == "", f"{name}: {runs.checks}\n{case.vector.text}"


def test_source_text_takes_its_form_from_the_file_name():
    """adspec.differentiate(text, lang=..., filename="x.f") reads fixed form, as the CLI does
    with the file: column 1 `C` is a comment, not the start of a free-form statement."""
    path = PROGRAMS_DIR / "f21_parameter_dimension.f"
    from_text = adspec.differentiate(path.read_text(), head=HEADS[path.name], lang="fortran", filename=path.name)
    from_file = adspec.differentiate([str(path)], head=HEADS[path.name])
    assert from_text.tree.ann["form"] == "fixed"
    assert from_text.text == from_file.text


def test_dimension_and_save_statements_reach_the_derivatives():
    """f21: `DOUBLE PRECISION W` + `DIMENSION W(0:NX+1)` + `SAVE W`: wd is an array, saved."""
    path = PROGRAMS_DIR / "f21_parameter_dimension.f"
    text = adspec.differentiate([str(path)], head=HEADS[path.name]).text
    assert "wd(0:nx + 1) = 0.0d0" in text and "ud(nx, 0:ny - 1)" in text, text


def test_a_typedef_enum_is_defined_in_the_tangent_file():
    """c21: `typedef enum {...} scheme;` types a differentiated function's argument."""
    path = PROGRAMS_DIR / "c21_enum_modes.c"
    text = adspec.differentiate([str(path)], head=HEADS[path.name]).text
    assert text.index("} scheme;") < text.index("scheme s"), text


def test_an_array_constructor_with_a_passive_array_item_is_refused_with_its_line():
    """(/ x, w /) with w a passive array: its zero derivative has w's size, not written yet."""
    source = ("subroutine g(x, y)\n  real(8) :: x, y(3), w(2)\n  w = 1.0d0\n"
              "  y = (/ x, w /)\nend subroutine g\n")
    with pytest.raises(UnsupportedError, match=r"^g\.f90:4: the derivative of an array constructor"):
        adspec.differentiate(source, head="g(y)/(x)", lang="fortran", filename="g.f90")


@pytest.mark.compile
@pytest.mark.parametrize("name", _programs("compile", NOT_CHECKED))
def test_corpus_tangent_compiles(name, tmp_path):
    """The programs the harness cannot call: F_D and F_DV compile with the original, clean."""
    prog = load_program(PROGRAMS_DIR / name)
    require_compilers(prog.lang)
    head = NOT_CHECKED[name][0]
    suffix = prog.path.suffix
    sources = [("original" + suffix, prog.text)]
    for mode, stem in (("tangent", "tangent"), ("vector", "tangent_dv")):
        text = adspec.differentiate([str(prog.path)], head=head, mode=mode).text
        sources.append((stem + suffix, text))
    sizes = ("diffsizes.f90", DIFFSIZES) if prog.lang == "fortran" else ("DIFFSIZES.h", C_DIFFSIZES)
    messages = []
    compile_only([sizes] + sources, prog.lang, tmp_path, messages)
    warnings = [line for line in "".join(messages).splitlines() if line.startswith(("tangent", "tangent_dv"))]
    assert not warnings, "".join(messages)


_COMPLEX_WRAPPER = """
subroutine wrap(zr, zi, wr, wi, r)
  real(8) :: zr(3), zi(3), wr, wi, r
  complex(8) :: z(3), w
  z = cmplx(zr, zi, kind=8)
  w = cmplx(wr, wi, kind=8)
  call cplx(z, w, r)
  zr = real(z)
  zi = aimag(z)
  wr = real(w)
  wi = aimag(w)
end subroutine wrap
"""


@pytest.mark.compile
def test_complex_program_through_a_real_wrapper(tmp_path):
    """f11 (complex arithmetic, abs of a complex value: d|z| = real(conjg(z) zd)/|z|) called
    through real arguments: F_D compiled agrees with central differences and the interpreter."""
    require_compilers("fortran")
    source = (PROGRAMS_DIR / "f11_complex.f90").read_text() + _COMPLEX_WRAPPER
    args = [("zr", "real", (3,), None), ("zi", "real", (3,), None), ("wr", "real", (), None),
            ("wi", "real", (), None), ("r", "real", (), None)]
    case = TangentCase(source, "fortran", "wrap(zr zi wr wi r)/(zr zi wr wi)", args, filename="f11.f90")
    runs = case.compiled(tmp_path)
    errors = compiled_errors(case, runs)
    assert errors["central differences"] <= 1e-6 and errors["interpreter"] <= SAME_CODE_TOLERANCE, errors
    assert not runs.warnings and runs.checks == "", (runs.compiler_messages, runs.checks)
    assert vector_error(runs) <= SAME_CODE_TOLERANCE
