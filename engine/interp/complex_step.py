"""Complex step for the IL interpreter: the intrinsics on x + i h d (Squire and Trapp 1998).

`Interpreter(tree, complex_step=True)` stores every real (real(4), real(8), float, double:
all promoted to complex128, so that single-precision programs are stepped in double too)
as a complex number whose imaginary part carries h times the derivative. With h = STEP =
1e-30 no second-order term survives rounding, so imag(f(x + i h d)) / h is the directional
derivative to the precision of f itself: there is no subtraction, hence no cancellation.

The rules (Martins, Sturdza and Alonso 2003): comparisons and branches read the real part;
abs, sign, max, min, mod, modulo and dim choose their branch by the real part and keep the
whole complex value; int, nint, floor, ceiling drop the imaginary part (their derivative is
0); the smooth functions use their analytic complex extension, or, for erf (numpy has no
complex erf), the first-order one f(a) + i f'(a) b, which is the same thing to rounding when
b is 1e-30 times the direction. Integer storage stays integer. A program with genuinely
complex variables cannot be stepped this way: the interpreter refuses it. Where a stepped
value reaches a point where the function is not differentiable (abs at 0, a tie in max, an
integer under floor), the step means nothing: NonSmoothPoint is raised.

`FORTRAN_CS` and `C_CS` are the interpreter's intrinsic tables for this mode.
"""
from __future__ import annotations

import math

import numpy as np

from . import intrinsics as ii
from .intrinsics import as_value, common, convert

STEP = 1e-30
C128 = np.dtype(np.complex128)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


class NonSmoothPoint(ArithmeticError):
    """A stepped value at a point where the function has no derivative."""


def _check_smooth(at_kink, *stepped, name):
    """Raise NonSmoothPoint if some element is at a kink while a `stepped` value carries a
    derivative there."""
    carries = np.any([np.imag(v) != 0 for v in stepped], axis=0)
    if np.any(np.logical_and(at_kink, carries)):
        raise NonSmoothPoint(f"{name} at a non-differentiable point")


def _out(v):
    return as_value(np.asarray(v))


def _at_integers(x):
    """The jumps of int, floor, ceiling, aint."""
    return x == np.trunc(x)


def _at_halves(x):
    """The jumps of nint, anint, C round."""
    return np.abs(x - np.trunc(x)) == 0.5


def _by_real_part(plain, jumps=_at_integers):
    """A function of the real part only (int, floor, ...): the imaginary part is dropped."""
    def run(a, *rest, **kw):
        a = as_value(a)
        if a.dtype.kind == "c":
            _check_smooth(jumps(a.real), a, name=plain.__name__)
            a = a.real
        return plain(a, *rest, **kw)
    return run


def _real_valued(plain, jumps=_at_integers):
    """aint, anint, C floor, ...: real-valued but locally constant: a zero imaginary part."""
    def run(a, *rest, **kw):
        a = as_value(a)
        if a.dtype.kind != "c":
            return plain(a, *rest, **kw)
        _check_smooth(jumps(a.real), a, name=getattr(plain, "__name__", "rounding"))
        return convert(as_value(plain(a.real, *rest)), C128)
    return run


def cs_abs(a):
    a = as_value(a)
    if a.dtype.kind != "c":
        return np.abs(a)
    _check_smooth(a.real == 0, a, name="abs")
    return _out(np.where(a.real < 0, -a, a))


def _extreme(better):
    def run(*args):
        vals = common(*args)
        r = vals[0]
        for v in vals[1:]:
            r = _out(np.where(better(np.real(v), np.real(r)), v, r))
        # a tie for the extreme between values of different derivatives: a kink
        _check_smooth(np.any([(np.real(v) == np.real(r)) & (v != r) for v in vals], axis=0), *vals,
                      name="max/min")
        return r
    return run


cs_max = _extreme(np.greater)
cs_min = _extreme(np.less)


def cs_sign(a, b):
    a, b = common(a, b)
    if a.dtype.kind != "c":
        return ii.f_sign(a, b)
    _check_smooth(b.real == 0, a, b, name="sign")
    magnitude = cs_abs(a)
    return _out(np.where(np.signbit(b.real), -magnitude, magnitude))


def _remainder(plain_mod):
    """a - k p with k = (a - mod(a, p)) / p an integer read from the real parts."""
    def run(a, p):
        a, p = common(a, p)
        if a.dtype.kind != "c":
            return plain_mod(a, p)
        rest = plain_mod(a.real, p.real)
        _check_smooth(rest == 0, a, p, name="mod")
        k = np.round((a.real - rest) / p.real)
        return _out(rest + 1j * (a.imag - k * p.imag))
    return run


cs_mod = _remainder(np.fmod)
cs_modulo = _remainder(np.mod)


def cs_dim(x, y):
    x, y = common(x, y)
    d = x - y
    _check_smooth(np.real(d) == 0, d, name="dim")
    return _out(np.where(np.real(d) > 0, d, 0).astype(d.dtype))


def _first_order(f, df):
    """f(a + i b) = f(a) + i f'(a) b: exact to rounding for the tiny b of a complex step."""
    def run(z):
        z = as_value(z)
        if z.dtype.kind != "c":
            return f(z)
        return _out(f(z.real) + 1j * df(z.real) * z.imag)
    return run


_erf_real = np.vectorize(math.erf, otypes=[np.float64])
cs_erf = _first_order(_erf_real, lambda x: _TWO_OVER_SQRT_PI * np.exp(-x * x))
cs_erfc = _first_order(lambda x: 1.0 - _erf_real(x), lambda x: -_TWO_OVER_SQRT_PI * np.exp(-x * x))


def cs_atan2(y, x):
    y, x = common(y, x)
    if y.dtype.kind != "c":
        return np.arctan2(y, x)
    # atan(y/x) is atan2 up to a multiple of pi (read from the real parts); atan(x/y) near x = 0
    steep = np.abs(x.real) < np.abs(y.real)
    with np.errstate(all="ignore"):
        tilt = np.where(steep, -np.arctan(x / y), np.arctan(y / x))
    return _out(np.arctan2(y.real, x.real) + 1j * tilt.imag)


def cs_hypot(x, y):
    x, y = common(x, y)
    if x.dtype.kind != "c":
        return np.hypot(x, y)
    return _out(np.sqrt(x * x + y * y))


def cs_cbrt(z):
    z = as_value(z)
    if z.dtype.kind != "c":
        return np.cbrt(z)
    s = np.where(z.real < 0, -1.0, 1.0)
    return _out(s * (s * z) ** (1.0 / 3.0))


def cs_dot_product(a, b):
    """No conjugation: the complex numbers here are stepped reals."""
    a, b = common(a, b)
    prod = a * b
    return np.cumsum(prod, dtype=prod.dtype)[-1] if prod.size else prod.dtype.type(0)


def _extreme_value(pick):
    def run(array, dim=None, mask=None):
        a = np.asarray(as_value(array))
        if a.dtype.kind != "c":
            return (ii.f_maxval if pick is np.argmax else ii.f_minval)(array, dim, mask)
        if dim is not None:
            raise TypeError("complex step: maxval/minval with dim= is not supported")
        key = a.real.ravel(order="F")
        if mask is not None:
            key = np.where(np.asarray(mask).ravel(order="F"), key, -np.inf if pick is np.argmax else np.inf)
        return a.ravel(order="F")[pick(key)]
    return run


def _loc(plain):
    return lambda array, dim=None, mask=None: plain(np.real(np.asarray(array)), dim, mask)


def to_stepped_real(a, kind=None):
    """real(x), dble(x), float(x), sngl(x): every real is complex128 here."""
    return convert(as_value(a), C128)


def _refuse(name):
    def run(*args, **kw):
        raise TypeError(f"complex step: {name} of a complex value (the program has complex variables)")
    return run


# --- tables ----------------------------------------------------------------------------------------
# The generic smooth functions (sin, sqrt, ...) of intrinsics.py already take complex
# arguments; numpy's arctan2 does not.
FORTRAN_CS = dict(ii.FORTRAN_IMPL)
FORTRAN_CS.update({
    "atan2": ii._math("atan2", cs_atan2), "datan2": ii._math("atan2", cs_atan2),
    "abs": cs_abs, "dabs": cs_abs,
    "max": cs_max, "min": cs_min, "amax1": cs_max, "amin1": cs_min, "dmax1": cs_max, "dmin1": cs_min,
    "mod": cs_mod, "amod": cs_mod, "dmod": cs_mod, "modulo": cs_modulo,
    "sign": cs_sign, "dsign": cs_sign, "dim": cs_dim,
    "int": _by_real_part(ii.f_int), "ifix": _by_real_part(ii.f_int), "idint": _by_real_part(ii.f_int),
    "nint": _by_real_part(ii.f_nint, _at_halves), "idnint": _by_real_part(ii.f_nint, _at_halves),
    "floor": _by_real_part(ii.f_floor), "ceiling": _by_real_part(ii.f_ceiling),
    "aint": _real_valued(ii.f_aint), "dint": _real_valued(ii.f_aint),
    "anint": _real_valued(ii.f_anint, _at_halves), "dnint": _real_valued(ii.f_anint, _at_halves),
    "real": to_stepped_real, "float": to_stepped_real, "sngl": to_stepped_real, "dble": to_stepped_real,
    "dfloat": to_stepped_real,
    "cmplx": _refuse("cmplx"), "dcmplx": _refuse("dcmplx"), "aimag": _refuse("aimag"),
    "dimag": _refuse("dimag"), "conjg": _refuse("conjg"), "dconjg": _refuse("dconjg"), "cabs": _refuse("cabs"),
    "dot_product": cs_dot_product, "maxval": _extreme_value(np.argmax), "minval": _extreme_value(np.argmin),
    "maxloc": _loc(FORTRAN_CS["maxloc"]), "minloc": _loc(FORTRAN_CS["minloc"]),
    "hypot": cs_hypot,
})

# C: every real function works in complex128 (the f forms too).
_C_CS_MATH = dict(ii._C_MATH, atan2=cs_atan2, hypot=cs_hypot, cbrt=cs_cbrt, erf=cs_erf, erfc=cs_erfc,
                  fabs=cs_abs, fmin=cs_min, fmax=cs_max, fmod=cs_mod, copysign=cs_sign,
                  floor=_real_valued(np.floor), ceil=_real_valued(np.ceil), trunc=_real_valued(np.trunc),
                  round=_real_valued(ii._C_MATH["round"], _at_halves))
C_CS = dict(ii.C_IMPL)
C_CS.update({name: ii._c_math(name, fn, C128) for name, fn in _C_CS_MATH.items()})
C_CS.update({name + "f": ii._c_math(name, _C_CS_MATH[name], C128) for name in ii._C_FLOAT_FORMS})
