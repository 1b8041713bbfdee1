"""The derivative table (rules/derivatives.py): every partial checked against complex step
(smooth functions, to 1e-12; the interpreter's complex-step intrinsics,
engine/interp_complex_step.py) or central differences (piecewise functions, to 1e-6), every
non-differentiable point tested, every intrinsic the front ends know accounted for."""
from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import numpy as np
import pytest

from adspec.engine import interp_complex_step as cs
from adspec.engine import interp_intrinsics as ii
from adspec.engine.errors import SourceError, UnsupportedError
from adspec.engine.il import check, mk, walk
from adspec.engine.intrinsics import C_INTRINSICS, FORTRAN_INTRINSICS, differentiable_args
from adspec.rules.derivatives import (DERIVATIVES, LINEAR_INTRINSICS, NOT_DIFFERENTIABLE, NOT_TABULATED,
                                      PARTIALLY_DIFFERENTIABLE, LinearOnly, derivative, require_derivative)

DOCS = Path(__file__).resolve().parents[1] / "docs" / "derivatives.md"

# --- a small evaluator of partial-derivative IL on numpy values ---------------------------------
# Intrinsics are the interpreter's (engine/interp_intrinsics.py; complex step: interp_complex_step.py).
_BINARY = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
           "div": lambda a, b: a / b, "power": lambda a, b: a ** b,
           "eq": lambda a, b: a == b, "ne": lambda a, b: a != b, "lt": lambda a, b: a < b,
           "le": lambda a, b: a <= b, "gt": lambda a, b: a > b, "ge": lambda a, b: a >= b,
           "and": np.logical_and, "or": np.logical_or}


def ev(e, env, lang, complex_step=False):
    op = e.op
    def sub(k):
        return ev(k, env, lang, complex_step)
    if op == "ident":
        return env[e.kids[0]]
    if op == "realCst":
        return (np.float32 if e.kids[1] == 4 else np.float64)(e.kids[0])
    if op == "intCst":
        return np.int32(e.kids[0])
    if op == "complexCst":
        return np.complex128(complex(sub(e.kids[0]), sub(e.kids[1])))
    if op == "boolCst":
        return np.bool_(e.kids[0])
    if op == "arrayConstructor":
        return np.concatenate([np.atleast_1d(sub(k)) for k in e.kids[0]])
    if op == "neg":
        return -sub(e.kids[0])
    if op == "pos":
        return sub(e.kids[0])
    if op == "not":
        return np.logical_not(sub(e.kids[0]))
    if op == "ifExpr":
        return sub(e.kids[1]) if sub(e.kids[0]) else sub(e.kids[2])
    if op in _BINARY:
        return _BINARY[op](sub(e.kids[0]), sub(e.kids[1]))
    assert op == "intrinsic", op
    name, args = e.kids
    if complex_step:
        table = cs.C_CS if lang == "c" else cs.FORTRAN_CS
    else:
        table = ii.C_IMPL if lang == "c" else ii.FORTRAN_IMPL
    fn = table.get(name) if name != "size" else np.size   # size: an inquiry in the interpreter
    assert fn is not None, f"{lang} intrinsic {name} unknown to the interpreter"
    return fn(*(sub(a) for a in args if a.op != "namedArg"),
              **{a.kids[0]: sub(a.kids[1]) for a in args if a.op == "namedArg"})


# --- an independent complex erf: the interpreter's is built from erf's derivative ------------------
def _erf(z):
    """erf by its Taylor series (exact to round-off for |z| <= 1.5)."""
    total, term, n = 0j, z, 0
    while abs(term) > 1e-18 * max(1.0, abs(total)) or n < 3:
        total += term / (2 * n + 1)
        n += 1
        term = -term * z * z / n
    return 2 / math.sqrt(math.pi) * total


INDEPENDENT_COMPLEX = {"erf": _erf, "erfc": lambda z: 1 - _erf(z)}
# Piecewise functions: central differences on the interpreter's real functions.
PIECEWISE = {"abs", "sign", "max", "min", "mod", "modulo", "dim", "int", "nint", "floor", "ceiling"}

SAMPLES = {
    "default": [(0.37,), (0.81,), (1.4,), (-0.6,)],
    "positive": [(0.37,), (0.81,), (1.4,), (2.3,)],
    "unit": [(0.37,), (-0.81,), (0.6,)],
    "two": [(0.7, 1.3), (-1.1, 0.4), (2.5, -0.8)],
    "power": [(0.7, 1.3), (1.9, -0.4), (2.5, 2.0)],
    "max": [(0.3, 0.9, -0.2), (1.5, 0.2, 0.7), (-0.1, -0.5, -0.3), (0.4, 0.4, 0.9), (0.7, 1.3), (1.1, -0.4)],
    "min": [(0.3, 0.9, -0.2), (1.5, 0.2, 0.7), (-0.1, -0.5, -0.3), (0.9, 0.9, 0.4), (0.7, 1.3), (1.1, -0.4)],
    "mod": [(7.3, 2.1), (-5.2, 1.7), (3.3, -1.2)],
    "round": [(0.37,), (1.8,), (-2.7,)],
    "above_one": [(1.37,), (1.81,), (2.4,)],
}
SAMPLE_KIND = {"sqrt": "positive", "cbrt": "default", "log": "positive", "log10": "positive",
               "log1p": "positive", "asin": "unit", "acos": "unit", "atan2": "two", "hypot": "two",
               "pow": "power", "power": "power", "add": "two", "sub": "two", "mul": "two", "div": "two",
               "sign": "two", "dim": "two", "max": "max", "min": "min", "mod": "mod", "modulo": "mod",
               "erf": "unit", "erfc": "unit", "log2": "positive", "atanh": "unit", "acosh": "above_one"}
# array entries: arrays of rank 1 (the tangent refuses the others for the reductions)
SAMPLES["array"] = [(np.array([0.3, -1.2, 0.9, 0.45]),), (np.array([2.5, 0.7, -0.1]),)]
SAMPLE_KIND.update(maxval="array", minval="array", product="array", norm2="array")
NONDIFF_POINTS = {"maxval": [(np.array([1.0, 3.0, 3.0]),)], "minval": [(np.array([-2.0, 0.5, -2.0]),)],
                  "norm2": [(np.zeros(3),)],
"acosh": [(1.0,)], "sqrt": [(0.0,)], "cbrt": [(0.0,)], "asin": [(1.0,), (-1.0,)], "acos": [(1.0,), (-1.0,)],
                  "atan2": [(0.0, -1.0), (0.0, 0.0)], "hypot": [(0.0, 0.0)], "pow": [(0.0, 1.5), (-1.0, 2.0)],
                  "power": [(0.0, 1.5)], "abs": [(0.0,)], "sign": [(0.0, 1.0), (0.0, -2.0)],
                  "max": [(1.0, 1.0, 0.5), (0.2, 2.0, 2.0)], "min": [(1.0, 1.0, 3.5), (0.2, 2.0, 0.2)],
                  "mod": [(3.0, 1.5), (-4.5, 1.5)], "modulo": [(3.0, 1.5)], "dim": [(1.0, 1.0)],
                  "int": [(2.0,), (-3.0,)], "nint": [(2.5,), (-0.5,)], "floor": [(3.0,)], "ceiling": [(-2.0,)]}
SMOOTH_SPOTS = {"max": [(1.0, 1.0, 3.5)], "min": [(1.0, 1.0, 0.5)]}   # ties below the extreme


def _samples(entry):
    return SAMPLES[SAMPLE_KIND.get(entry.name, "round" if entry.all_inactive else "default")]


def _args(entry, n):
    names = entry.args if not entry.variadic else tuple(f"{entry.args[0]}{i}" for i in range(n))
    return tuple(mk("ident", a) for a in names[:n])


def _lang_names(entry):
    """(language, a name of the family in it) for each language the family has."""
    out = []
    if entry.ops:
        out += [("fortran", entry.ops[0]), ("c", entry.ops[0])]
    if entry.fortran:
        out.append(("fortran", entry.fortran[0]))
    doubles = [n for n in entry.c if not n.endswith("f") or n[:-1] not in entry.c]
    if doubles:
        out.append(("c", doubles[0]))
    return out


ARRAY_OPS = ("sum", "transpose", "reshape", "spread", "pack", "cshift", "eoshift")
SCALAR = [e for e in DERIVATIVES if e.build is not LinearOnly and not (e.reduction or e.multilinear)
          and e.name not in ("real", "cmplx", "merge") + ARRAY_OPS]


def _node(entry, name, n):
    return mk(name, *_args(entry, n)) if name in entry.ops else mk("intrinsic", name, _args(entry, n))


def _f_real(entry, name, lang, vals):
    return float(ev(_node(entry, name, len(vals)), _env(entry, vals), lang))


def _f_complex(entry, name, lang, z):
    """f at complex arguments, by the interpreter's complex-step intrinsics."""
    if entry.name in INDEPENDENT_COMPLEX:
        return INDEPENDENT_COMPLEX[entry.name](*z)
    env = {a.kids[0]: np.complex128(v) for a, v in zip(_args(entry, len(z)), z)}
    return ev(_node(entry, name, len(z)), env, lang, complex_step=True)


def _env(entry, vals):
    return {a.kids[0]: np.asarray(v, dtype=np.float64)[()] for a, v in zip(_args(entry, len(vals)), vals)}


@pytest.mark.parametrize("entry", SCALAR, ids=lambda e: e.name)
def test_every_partial_matches_complex_step_or_central_differences(entry):
    """d sin(x)/dx = cos(x), ... at sample points away from the non-differentiable ones."""
    for vals in _samples(entry):
        for lang, name in _lang_names(entry):
            if lang == "c" and entry.variadic and len(vals) != 2:
                continue           # fmax, fmin: two arguments
            args = _args(entry, len(vals))
            partials = entry.partials(args, lang, 8)
            assert len(partials) == len(args)
            for i, partial in enumerate(partials):
                if partial is None:
                    assert i in entry.inactive or entry.all_inactive or (
                        entry.name == "power" and args[1].op == "intCst")
                    if entry.name in PIECEWISE:   # no derivative flows: f is locally constant in it
                        h = 1e-6
                        up, down = list(vals), list(vals)
                        up[i] += h
                        down[i] -= h
                        assert _f_real(entry, name, lang, up) == _f_real(entry, name, lang, down)
                    continue
                check(partial)
                got = float(np.real(ev(partial, _env(entry, vals), lang)))
                if entry.name in PIECEWISE:
                    h = 1e-6
                    up, down = list(vals), list(vals)
                    up[i] += h
                    down[i] -= h
                    want = (_f_real(entry, name, lang, up) - _f_real(entry, name, lang, down)) / (2 * h)
                    assert got == pytest.approx(want, rel=1e-6, abs=1e-6), (name, lang, vals, i)
                if entry.name in PIECEWISE and entry.name not in ("int", "nint", "floor", "ceiling"):
                    # complex step by the real part's branch (abs, max, mod, ...) agrees exactly
                    z = [complex(v) for v in vals]
                    z[i] += 1e-30j
                    assert got == pytest.approx(np.imag(_f_complex(entry, name, lang, z)) / 1e-30, rel=1e-12,
                                                abs=1e-300), (name, lang, vals, i)
                else:
                    h = 1e-30
                    z = [complex(v) for v in vals]
                    z[i] += 1j * h
                    want = np.imag(_f_complex(entry, name, lang, z)) / h
                    assert got == pytest.approx(want, rel=1e-12, abs=1e-300), (name, lang, vals, i)


@pytest.mark.parametrize("entry", [e for e in SCALAR if e.c and e.name not in PIECEWISE], ids=lambda e: e.name)
def test_float_forms_use_the_float_functions(entry):
    """C sinf: d/dx = cosf(x), evaluated in float: agrees with the double partial to 1e-5."""
    for vals in _samples(entry):
        args = _args(entry, len(vals))
        for p4, p8 in zip(entry.partials(args, "c", 4), entry.partials(args, "c", 8)):
            if p8 is None:
                continue
            assert all(n.kids[0].endswith("f") for n in walk(p4) if n.op == "intrinsic")
            assert float(ev(p4, _env(entry, vals), "c")) == pytest.approx(float(ev(p8, _env(entry, vals), "c")),
                                                                          rel=1e-5)


def test_integer_power_folds_the_exponent():
    """x**2 -> 2.0*x; x**3 -> 3.0*x**2 (and x < 0 is fine); the literal exponent is inactive."""
    x = mk("ident", "x")
    power = derivative("power", "fortran")
    d2, n2 = power.partials((x, mk("intCst", 2, None)), "fortran")
    assert n2 is None and d2 == mk("mul", mk("realCst", "2.0", 8), x)
    d3, _ = power.partials((x, mk("intCst", 3, None)), "fortran")
    for v in (-1.3, 0.0, 2.1):
        assert float(ev(d3, {"x": np.float64(v)}, "fortran")) == pytest.approx(3 * v * v, rel=1e-15)
    assert power.nondifferentiable((x, mk("intCst", 3, None))) is None
    assert power.nondifferentiable((x, mk("intCst", -1, None))) == mk("eq", x, mk("realCst", "0.0", 8))


@pytest.mark.parametrize("entry", [e for e in DERIVATIVES if e.nondiff_build is not None], ids=lambda e: e.name)
def test_nondifferentiable_points_are_detected_and_samples_are_not(entry):
    """abs at 0, max at a tie, sqrt at 0, sign at 0, mod where a/p is an integer, ..."""
    assert entry.nondiff_doc and not entry.nondiff_doc.startswith("none")
    for lang, _ in _lang_names(entry):
        if entry.reduction:
            lang = "fortran"
        for vals in NONDIFF_POINTS[entry.name] + [(1.0, 1.0)] * entry.variadic:
            if lang == "c" and entry.variadic and len(vals) != 2:
                continue
            cond = entry.nondifferentiable(_args(entry, len(vals)), lang)
            assert ev(cond, _env(entry, vals), lang), (entry.name, lang, vals)
        for vals in _samples(entry) + SMOOTH_SPOTS.get(entry.name, []):
            if lang == "c" and entry.variadic and len(vals) != 2:
                continue
            cond = entry.nondifferentiable(_args(entry, len(vals)), lang)
            assert not ev(cond, _env(entry, vals), lang), (entry.name, lang, vals)


COMPLEX_SPECIFIC = {"csqrt", "cexp", "clog", "csin", "ccos"}


def test_family_members_compute_the_same_function():
    """dsin is sin, amax1 is max, fmodf is fmod ...: grouping a name into a family is right."""
    for entry in SCALAR:
        for lang, names in (("fortran", entry.fortran), ("c", entry.c)):
            impl = ii.C_IMPL if lang == "c" else ii.FORTRAN_IMPL
            known = [n for n in names if n in impl and n not in COMPLEX_SPECIFIC]
            for vals in [v for v in _samples(entry) if lang == "fortran" or not entry.variadic or len(v) == 2]:
                values = {n: float(np.real(impl[n](*(np.float64(v) for v in vals)))) for n in known}
                if values:
                    ref = next(iter(values.values()))
                    for n, v in values.items():
                        assert v == pytest.approx(ref, rel=1e-5, abs=1e-5), (n, vals)


def test_linear_entries():
    """real(x), sum(a), merge(t, f, m), cmplx(x, y): the derivative is the same operation."""
    x, y, m = mk("ident", "x"), mk("ident", "y"), mk("ident", "m")
    assert derivative("dble", "fortran").partials((x,), "fortran")[0] == mk("realCst", "1.0", 8)
    merge = derivative("merge", "fortran").partials((x, y, m), "fortran")
    assert merge[2] is None
    for mask in (True, False):
        env = {"m": mask}
        assert ev(merge[0], env, "fortran") == (1.0 if mask else 0.0)
        assert ev(merge[1], env, "fortran") == (0.0 if mask else 1.0)
    dx, dy, kind = derivative("cmplx", "fortran").partials((x, y, mk("intCst", 8, None)), "fortran")
    assert kind is None and ev(dy, {}, "fortran") == 1j and ev(dx, {}, "fortran") == 1.0
    assert derivative("sum", "fortran").partials((x, y, m), "fortran") == (mk("realCst", "1.0", 8), None, None)
    with pytest.raises(UnsupportedError, match="conjg"):
        derivative("conjg", "fortran").partials((x,), "fortran")
    assert all(derivative(n, "fortran").linear for n in ("add", "sub", "neg", "pos", "real", "sum", "conjg"))
    assert not any(derivative(n, "fortran").linear for n in ("mul", "div", "power", "sin", "max"))


def test_partials_read_only_their_arguments():
    """The partial IL is built from the argument nodes: its variables are the arguments'."""
    for entry in DERIVATIVES:
        if entry.build is LinearOnly:
            continue
        args = _args(entry, 3 if entry.variadic else len(entry.args))
        for lang in ("fortran", "c"):
            for p in entry.partials(args, lang):
                if p is not None:
                    assert {n.kids[0] for n in walk(p) if n.op == "ident"} <= {a.kids[0] for a in args}


def test_every_intrinsic_of_the_front_ends_is_accounted_for():
    """Each name has an entry, or has no real derivative at all, or is a known gap."""
    for lang, names in (("fortran", FORTRAN_INTRINSICS), ("c", C_INTRINSICS)):
        for name in names:
            kinds = [derivative(name, lang) is not None, name in NOT_DIFFERENTIABLE[lang],
                     name in NOT_TABULATED[lang]]
            assert sum(kinds) == 1, (lang, name, kinds)
    assert NOT_TABULATED == {"fortran": {"cabs"}, "c": {"atomicAdd"}}
    assert {"maxloc", "minloc"} <= NOT_DIFFERENTIABLE["fortran"]     # integer results: passive


def test_derived_views_keep_the_analyses_facts():
    """sign(a, b): a only; nint: none; Fortran abs: its argument; C abs (integer): none."""
    assert differentiable_args("nint", 1, "fortran") == ()
    assert differentiable_args("sign", 2, "fortran") == (0,)
    assert differentiable_args("merge", 3, "fortran") == (0, 1)
    assert differentiable_args("mod", 2, "fortran") == (0, 1)
    assert differentiable_args("max", 4, "fortran") == (0, 1, 2, 3)
    assert differentiable_args("abs", 1, "c") == ()
    assert differentiable_args("unknown_fn", 2, "c") == (0, 1)
    assert PARTIALLY_DIFFERENTIABLE["fortran"]["sign"] == (0,)
    assert PARTIALLY_DIFFERENTIABLE["c"]["copysign"] == (0,)
    assert {"real", "dble", "sum", "merge", "conjg", "transpose", "cmplx"} <= LINEAR_INTRINSICS
    assert "sin" not in LINEAR_INTRINSICS


def test_a_missing_intrinsic_is_an_error_with_its_line():
    """cabs(z) active: `f.f90:12: intrinsic cabs has no entry in the derivative table`."""
    node = mk("intrinsic", "cabs", (mk("ident", "z"),), line=12)
    with pytest.raises(UnsupportedError) as err:
        require_derivative("cabs", "fortran", node, "f.f90")
    assert str(err.value).startswith("f.f90:12: intrinsic cabs has no entry")
    with pytest.raises(SourceError, match="f.c:3: intrinsic printf is not differentiable"):
        require_derivative("printf", "c", mk("intrinsic", "printf", (), line=3), "f.c")
    assert require_derivative("DSIN", "fortran").name == "sin"
    assert derivative("sinf", "c") is derivative("sin", "fortran")
    assert derivative("mod", "c") is None          # C % works on integers


def test_reference_doc_is_up_to_date():
    spec = importlib.util.spec_from_file_location("make_derivatives_reference",
                                                  DOCS.parent / "make_derivatives_reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert DOCS.read_text() == module.reference(), "run: python docs/make_derivatives_reference.py"


def test_the_engine_does_not_load_the_rules_at_import():
    """DESIGN: dependencies point one way; the engine reads the table only when first asked."""
    import subprocess
    import sys
    code = ("import sys, adspec.engine.zones, adspec.engine.intrinsics as i; "
            "assert 'adspec.rules.derivatives' not in sys.modules; "
            "assert i.differentiable_args('sign', 2, 'fortran') == (0,); "
            "assert 'adspec.rules.derivatives' in sys.modules")
    subprocess.run([sys.executable, "-P", "-c", code], check=True)  # -P: not the checkout's folders


# --- array entries: each derivative against complex step of the interpreter's function ---------------
RNG = np.random.default_rng(17)
V4, W4, M23, M34 = RNG.normal(size=4), RNG.normal(size=4), RNG.normal(size=(2, 3)), RNG.normal(size=(3, 4))
ARRAY_CASES = [  # (name, arguments: values, or ("passive", value) for an inactive one)
    ("maxval", (V4,)), ("minval", (V4,)), ("product", (V4,)), ("product", (np.array([0.7, 0.0, -1.3, 2.0]),)),
    ("product", (np.array([0.0, 0.0, 1.5]),)), ("norm2", (V4,)),
    ("maxval", (V4, ("passive", None), ("passive", V4 < 0.5))), ("minval", (V4, ("passive", None), ("passive", V4 > 0))),
    ("product", (np.array([0.7, 0.0, -1.3, 2.0]), ("passive", None), ("passive", np.array([True, True, False, True])))),
    ("maxval", (V4, ("passive", None), ("passive", np.zeros(4, bool)))),
    ("dot_product", (V4, W4)), ("matmul", (M23, M34)), ("matmul", (M23, V4[:3])), ("matmul", (V4[:2], M23)),
    ("reshape", (V4, ("passive", np.array([2, 2])))),
    ("reshape", (M23, ("passive", np.array([4, 2])), W4, ("passive", np.array([2, 1])))),
    ("spread", (V4, ("passive", 2), ("passive", 3))),
    ("pack", (M23, ("passive", M23 > 0), RNG.normal(size=6))),
    ("cshift", (M34, ("passive", np.array([1, -2, 0, 5])), ("passive", 1))),
    ("eoshift", (M34, ("passive", 2), RNG.normal(size=3), ("passive", 2))),
    ("eoshift", (V4, ("passive", -1), 1.25)),
]


def _array_derivative(entry, args, directions):
    """The tangent's formula (rules/tangent): linear: f of the directions (inactive arguments
    kept); multilinear: Σ f(..., direction i, ...); reduction: sum(P * direction)."""
    name = entry.fortran[0]
    call = lambda kids: mk("intrinsic", name, tuple(kids))  # noqa: E731
    d = [mk("ident", f"d{i}") if directions[i] is not None else None for i in range(len(args))]
    if entry.reduction:
        partials = entry.partials(args, "fortran", 8)
        return mk("intrinsic", "sum", (mk("mul", partials[0], d[0]),))
    if entry.multilinear:
        terms = [call(args[:i] + (d[i],) + args[i + 1:]) for i in range(len(args))]
        return mk("add", *terms)
    active = entry.active_positions(len(args))
    return call(d[i] if i in active else a for i, a in enumerate(args))


@pytest.mark.parametrize("name, values", ARRAY_CASES, ids=[c[0] for c in ARRAY_CASES])
def test_array_derivatives_match_complex_step(name, values):
    """maxval, product (zeros too), norm2, dot_product, matmul, reshape, spread, pack, cshift,
    eoshift: the derivative the tangent writes for a random direction, against complex step of
    the interpreter's function to 1e-12."""
    entry = derivative(name, "fortran")
    args = tuple(mk("ident", f"a{i}") for i in range(len(values)))
    passive = [isinstance(v, tuple) for v in values]
    vals = [v[1] if p else v for v, p in zip(values, passive)]
    assert all((i not in entry.active_positions(len(args))) == p for i, p in enumerate(passive)), name
    directions = [None if p else RNG.normal(size=np.shape(v)) for v, p in zip(vals, passive)]
    env = {f"a{i}": v if v is None else np.asarray(v) for i, v in enumerate(vals)}   # None: left out
    env.update({f"d{i}": d for i, d in enumerate(directions) if d is not None})
    got = np.asarray(ev(_array_derivative(entry, args, directions), env, "fortran"), dtype=float)
    h = 1e-30
    stepped = {f"a{i}": (np.asarray(v) + 1j * h * d if d is not None else env[f"a{i}"])
               for i, (v, d) in enumerate(zip(vals, directions))}
    want = np.imag(ev(mk("intrinsic", name, args), stepped, "fortran", complex_step=True)) / h
    assert got.shape == np.shape(want)
    assert np.allclose(got, want, rtol=1e-12, atol=1e-40), (name, got, want)   # h**2 terms: 1e-60


def test_product_partial_does_not_divide():
    """PRODUCT's partial is the product of the other elements: no division, right at zeros."""
    partial = derivative("product", "fortran").partials((mk("ident", "a"),), "fortran", 8)[0]
    assert not any(n.op == "div" for n in walk(partial))
    got = ev(partial, {"a": np.array([2.0, 0.0, 3.0, 0.0])}, "fortran")
    assert list(got) == [0.0, 0.0, 0.0, 0.0]
    got = ev(partial, {"a": np.array([2.0, 0.0, 3.0])}, "fortran")
    assert list(got) == [0.0, 6.0, 0.0]


def test_maxval_takes_the_first_maximum_at_a_tie():
    """As max(a, b) at a tie: the first element's derivative (and the tie is a warned point)."""
    partial = derivative("maxval", "fortran").partials((mk("ident", "a"),), "fortran", 8)[0]
    assert list(ev(partial, {"a": np.array([1.0, 3.0, 0.5, 3.0])}, "fortran")) == [0.0, 1.0, 0.0, 0.0]
    partial = derivative("minval", "fortran").partials((mk("ident", "a"),), "fortran", 8)[0]
    assert list(ev(partial, {"a": np.array([1.0, -3.0, -3.0])}, "fortran")) == [0.0, 1.0, 0.0]
