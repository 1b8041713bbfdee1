"""What each intrinsic of engine/intrinsics.py computes, for the IL interpreter.

`FORTRAN_IMPL` and `C_IMPL` map an intrinsic name to a Python function called with the
evaluated actual arguments (numpy scalars or arrays; Fortran keyword arguments as Python
keywords). Results keep the precision the compiled code has: Fortran generics work in the
kind of their argument (sin of a real(4) is computed in float32); C functions without a
suffix work in double and the `f`-suffixed ones in float. Reductions add in element order
(column-major), like the loops gfortran generates, not numpy's pairwise summation.

Intrinsics that inspect a variable rather than a value (size, lbound, ubound, shape,
allocated, associated, present) and printf are in intrinsic_calls.py; atomics and the CUDA
runtime in cuda.py. `CUDA_IMPL` and `CUDA_ALIASES`: CUDA's device math.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import math

import numpy as np

from .array_moves import _flat, f_cshift, f_eoshift, f_pack, f_reshape, f_spread, f_unpack

INT_KINDS = {1: np.dtype(np.int8), 2: np.dtype(np.int16), 4: np.dtype(np.int32), 8: np.dtype(np.int64)}
REAL_KINDS = {4: np.dtype(np.float32), 8: np.dtype(np.float64), 10: np.dtype(np.longdouble),
              16: np.dtype(np.longdouble)}
COMPLEX_KINDS = {4: np.dtype(np.complex64), 8: np.dtype(np.complex128), 10: np.dtype(np.clongdouble),
                 16: np.dtype(np.clongdouble)}
F64 = np.dtype(np.float64)
F32 = np.dtype(np.float32)
I32 = np.dtype(np.int32)

_CATEGORY = {"b": 0, "i": 1, "u": 1, "f": 2, "c": 3}
_PROMOTE_CACHE: dict = {}


def promote(da: np.dtype, db: np.dtype, c_lang: bool = False) -> np.dtype:
    """The type of a binary operation on operands of types da, db (Fortran mixed mode or the
    C usual arithmetic conversions): integer < real < complex, then the larger kind; an
    integer operand never widens a real (int * real(4) is real(4))."""
    key = (da, db, c_lang)
    r = _PROMOTE_CACHE.get(key)
    if r is None:
        r = _PROMOTE_CACHE[key] = _promote(da, db, c_lang)
    return r


def _promote(da, db, c_lang):
    ca, cb = _CATEGORY.get(da.kind, 9), _CATEGORY.get(db.kind, 9)
    if 9 in (ca, cb):
        raise TypeError(f"no arithmetic on {da} and {db}")
    cat = max(ca, cb)
    if cat == 0:
        return I32 if c_lang else np.dtype(np.bool_)
    if cat == 1:
        size = max(d.itemsize for d in (da, db) if d.kind != "b") if max(ca, cb) else 4
        return INT_KINDS[max(size, 4) if c_lang else size]
    if cat == 2:
        return REAL_KINDS[max(d.itemsize for d in (da, db) if d.kind == "f")]
    comp = max(d.itemsize // 2 if d.kind == "c" else d.itemsize for d in (da, db) if d.kind in "fc")
    return COMPLEX_KINDS[comp]


def convert(v, dt: np.dtype):
    """v (numpy scalar or array) converted to dtype dt (truncating like the compilers)."""
    if isinstance(v, np.ndarray):
        return v if v.dtype == dt else v.astype(dt)
    if v.dtype == dt:
        return v
    if dt.kind in "iu" and v.dtype.kind == "c":
        v = v.real
    return dt.type(v)


def as_value(v):
    """Python numbers and 0-d arrays as numpy scalars; everything else unchanged."""
    if isinstance(v, np.ndarray):
        return v[()] if v.ndim == 0 else v
    if isinstance(v, bool):
        return np.bool_(v)
    if isinstance(v, int):
        return np.int32(v) if -2**31 <= v < 2**31 else np.int64(v)
    if isinstance(v, float):
        return np.float64(v)
    if isinstance(v, complex):
        return np.complex128(v)
    return v


def common(*vals):
    """Convert all arguments to their common (promoted) type."""
    vals = [as_value(v) for v in vals]
    dt = vals[0].dtype
    for v in vals[1:]:
        dt = promote(dt, v.dtype)
    return [convert(v, dt) for v in vals]


def _kind(kind, table, default):
    return table[int(kind)] if kind is not None else default


# --- elementwise helpers -------------------------------------------------------------------

def _real_kind_of(x):
    x = as_value(x)
    if x.dtype.kind == "c":
        return REAL_KINDS[x.dtype.itemsize // 2]
    if x.dtype.kind == "f":
        return x.dtype
    return F32


def f_int(a, kind=None):
    a = as_value(a)
    dt = _kind(kind, INT_KINDS, I32)
    if a.dtype.kind == "c":
        a = a.real
    if a.dtype.kind in "iub":
        return convert(a, dt)
    return convert(np.trunc(a), dt)


def f_nint(a, kind=None):
    a = as_value(a)
    t = np.trunc(a)
    frac = a - t  # exact in floating point
    r = t + np.where(np.abs(frac) >= 0.5, np.sign(a), 0).astype(a.dtype)
    return as_value(convert(np.asarray(r), _kind(kind, INT_KINDS, I32)))


def f_anint(a, kind=None):
    a = as_value(a)
    t = np.trunc(a)
    r = t + np.where(np.abs(a - t) >= 0.5, np.sign(a), 0).astype(a.dtype)
    return as_value(convert(np.asarray(r), _kind(kind, REAL_KINDS, a.dtype)))


def f_aint(a, kind=None):
    a = as_value(a)
    return convert(np.trunc(a), _kind(kind, REAL_KINDS, a.dtype))


def f_floor(a, kind=None):
    return convert(np.floor(as_value(a)), _kind(kind, INT_KINDS, I32))


def f_ceiling(a, kind=None):
    return convert(np.ceil(as_value(a)), _kind(kind, INT_KINDS, I32))


def f_real(a, kind=None):
    a = as_value(a)
    if kind is None:
        dt = REAL_KINDS[a.dtype.itemsize // 2] if a.dtype.kind == "c" else F32
    else:
        dt = REAL_KINDS[int(kind)]
    if a.dtype.kind == "c":
        a = a.real
    return convert(a, dt)


def f_dble(a):
    a = as_value(a)
    return convert(a.real if a.dtype.kind == "c" else a, F64)


def f_cmplx(x, y=None, kind=None):
    dt = _kind(kind, COMPLEX_KINDS, np.dtype(np.complex64))
    x = as_value(x)
    if x.dtype.kind == "c":
        return convert(x, dt)
    rdt = REAL_KINDS[dt.itemsize // 2]
    re = convert(x, rdt)
    im = convert(as_value(y), rdt) if y is not None else rdt.type(0)
    return as_value(np.asarray(re + 1j * np.asarray(im, dtype=rdt)).astype(dt))


def f_dcmplx(x, y=None):
    return f_cmplx(x, y, 8)


def f_aimag(z):
    z = as_value(z)
    return z.imag if isinstance(z, np.ndarray) else z.dtype.type(z).imag


def f_conjg(z):
    return np.conj(as_value(z))


def f_abs(a):
    return np.abs(as_value(a))


def f_mod(a, p):
    a, p = common(a, p)
    return np.fmod(a, p)


def f_modulo(a, p):
    a, p = common(a, p)
    return np.mod(a, p)


def f_sign(a, b):
    a, b = common(a, b)
    if a.dtype.kind == "f":
        return np.copysign(np.abs(a), b)
    return as_value(np.where(b >= 0, np.abs(a), -np.abs(a)).astype(a.dtype))


def f_dim(x, y):
    x, y = common(x, y)
    d = x - y
    return as_value(np.where(d > 0, d, 0).astype(d.dtype))


def _fold(fn):
    def run(*args):
        vals = common(*args)
        r = vals[0]
        for v in vals[1:]:
            r = fn(r, v)
        return r
    return run


f_max, f_min = _fold(np.maximum), _fold(np.minimum)


def _fixed(fn, dt):
    """A specific-name intrinsic (amax1, dmin1, max0, ...): the generic, result in type dt."""
    return lambda *args: convert(as_value(fn(*args)), dt)


# Compiled code calls the C math library (gfortran too: sinf, pow, ...), whose float functions
# are not all correctly rounded; numpy's own loops differ from it by an ulp here and there. So
# real math functions call that same libm; without one, single precision goes through double.
_WIDER = {F32: F64, np.dtype(np.complex64): np.dtype(np.complex128)}
_LIBM_PATH = ctypes.util.find_library("m")
_LIBM = ctypes.CDLL(_LIBM_PATH) if _LIBM_PATH else None
_LIBM_FUNCS: dict = {}


def _libm(cname: str, dt: np.dtype, nargs: int):
    key = (cname, dt)
    if key not in _LIBM_FUNCS:
        f = None
        if _LIBM is not None and dt in (F32, F64):
            f = getattr(_LIBM, cname + ("f" if dt == F32 else ""), None)
            if f is not None:
                ctype = ctypes.c_float if dt == F32 else ctypes.c_double
                f.argtypes, f.restype = [ctype] * nargs, ctype
        _LIBM_FUNCS[key] = f
    return _LIBM_FUNCS[key]


def _elemental(cname, ufunc, vals):
    """ufunc on same-typed numpy values, computed like the compiled code computes it."""
    dt = vals[0].dtype
    f = _libm(cname, dt, len(vals))
    if f is not None:
        if any(isinstance(v, np.ndarray) for v in vals):
            return np.frompyfunc(f, len(vals), 1)(*vals).astype(dt)
        return dt.type(f(*vals))
    wide = _WIDER.get(dt)
    if wide is None:
        return ufunc(*vals)
    return convert(ufunc(*(convert(v, wide) for v in vals)), dt)


def _math(cname, ufunc):
    """A Fortran generic elemental function: computed in the kind of its argument."""
    def run(*args):
        vals = common(*args)
        if vals[0].dtype.kind in "iub":  # not standard, but give it the real meaning
            vals = [convert(v, F32) for v in vals]
        return _elemental(cname, ufunc, vals)
    return run


def real_power(a, b):
    """Fortran real ** real (same-typed operands): gfortran calls powf / pow."""
    return _elemental("pow", np.power, [a, b])


def _c_math(cname, ufunc, dt):
    """A C library function: arguments converted to dt (double, or float for the f forms)."""
    return lambda *args: _elemental(cname, ufunc, [convert(as_value(a), dt) for a in args])


def _vectorized(fn):
    def ufunc(x):
        if isinstance(x, np.ndarray):
            return np.vectorize(lambda v: x.dtype.type(fn(v)), otypes=[x.dtype])(x)
        return x.dtype.type(fn(x))
    return ufunc


# --- array reductions and transformations ------------------------------------------------------

def _axis_reduce(acc, array, dim, mask, neutral):
    a = np.asarray(as_value(array))
    if mask is not None:
        a = np.where(mask, a, a.dtype.type(neutral))
    if dim is None:
        flat = _flat(a)
        return acc(flat, dtype=a.dtype)[-1] if flat.size else a.dtype.type(neutral)
    axis = int(dim) - 1
    if a.shape[axis] == 0:
        return np.full(a.shape[:axis] + a.shape[axis + 1:], neutral, dtype=a.dtype, order="F")
    return np.take(acc(a, axis=axis, dtype=a.dtype), -1, axis=axis)


def f_sum(array, dim=None, mask=None):
    return as_value(_axis_reduce(np.cumsum, array, dim, mask, 0))


def f_product(array, dim=None, mask=None):
    return as_value(_axis_reduce(np.cumprod, array, dim, mask, 1))


def _extreme(reduce, limit_sign):
    def run(array, dim=None, mask=None):
        a = np.asarray(as_value(array))
        info = np.finfo(a.dtype) if a.dtype.kind == "f" else np.iinfo(a.dtype)
        neutral = info.max * -limit_sign if a.dtype.kind == "f" else (info.min if limit_sign > 0 else info.max)
        if mask is not None:
            a = np.where(mask, a, a.dtype.type(neutral))
        if a.size == 0:
            return a.dtype.type(neutral)
        return as_value(reduce(a, axis=None if dim is None else int(dim) - 1))
    return run


f_maxval, f_minval = _extreme(np.max, 1), _extreme(np.min, -1)


def _loc(arg):
    def run(array, dim=None, mask=None):
        a = np.asarray(array)
        if mask is not None:
            fill = -np.inf if arg is np.argmax else np.inf
            a = np.where(mask, a, fill)
        if dim is not None:
            return (arg(a, axis=int(dim) - 1) + 1).astype(np.int32)
        pos = np.unravel_index(arg(_flat(a)), a.shape, order="F") if a.size else (-1,) * a.ndim
        return np.array(pos, dtype=np.int32) + 1
    return run


def f_dot_product(a, b):
    a, b = common(a, b)
    if a.dtype.kind == "c":
        a = np.conj(a)
    if a.dtype.kind == "b":
        return np.bool_(np.any(a & b))
    prod = a * b
    return np.cumsum(prod, dtype=prod.dtype)[-1] if prod.size else prod.dtype.type(0)


def f_matmul(a, b):
    """Sum over the inner index in order (a(:,k) * b(k,:) accumulated), element by element."""
    a, b = common(a, b)
    a2 = a.reshape(1, -1) if a.ndim == 1 else a
    b2 = b.reshape(-1, 1) if b.ndim == 1 else b
    out = np.zeros((a2.shape[0], b2.shape[1]), dtype=a.dtype, order="F")
    for k in range(a2.shape[1]):
        out += a2[:, k:k + 1] * b2[k:k + 1, :]
    if a.ndim == 1:
        return out[0, :]
    if b.ndim == 1:
        return out[:, 0]
    return out


def f_transpose(a):
    return np.asfortranarray(np.asarray(a).T)


def f_norm2(x, dim=None):
    a = np.asarray(as_value(x))
    squares = a * a
    total = f_sum(squares, dim)
    return as_value(np.sqrt(total))


def f_hypot(x, y):
    x, y = common(x, y)
    return as_value(np.hypot(x, y))


def f_merge(tsource, fsource, mask):
    t, f = common(tsource, fsource)
    return as_value(np.where(mask, t, f))


def f_count(mask, dim=None, kind=None):
    m = np.asarray(mask, dtype=bool)
    r = np.count_nonzero(m) if dim is None else np.count_nonzero(m, axis=int(dim) - 1)
    return as_value(np.asarray(r).astype(_kind(kind, INT_KINDS, I32)))


def f_any(mask, dim=None):
    return as_value(np.any(np.asarray(mask, dtype=bool), axis=None if dim is None else int(dim) - 1))


def f_all(mask, dim=None):
    return as_value(np.all(np.asarray(mask, dtype=bool), axis=None if dim is None else int(dim) - 1))


def _number_model(field):
    def run(x):
        x = as_value(x)
        dt = x.dtype
        if dt.kind in "iu":
            return dt.type(np.iinfo(dt).max)
        return dt.type(getattr(np.finfo(dt), field))
    return run


def f_kind(x):
    x = as_value(x)
    return np.int32(x.dtype.itemsize // 2 if x.dtype.kind == "c" else x.dtype.itemsize)


# --- characters (only as far as printing needs them) ----------------------------------

def f_len(s, kind=None):
    return np.int32(len(s))


def f_len_trim(s, kind=None):
    return np.int32(len(s.rstrip(" ")))


def f_char(i, kind=None):
    return chr(int(i))


def f_ichar(c, kind=None):
    return np.int32(ord(c[0]))


def _erf(fn):
    return _vectorized(fn)


# --- tables ------------------------------------------------------------------------------------

_GENERIC_MATH = {"sqrt": np.sqrt, "exp": np.exp, "log": np.log, "log10": np.log10, "sin": np.sin,
                 "cos": np.cos, "tan": np.tan, "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan,
                 "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh, "atan2": np.arctan2}

FORTRAN_IMPL = {name: _math(name, fn) for name, fn in _GENERIC_MATH.items()}
for _name, _fn in _GENERIC_MATH.items():
    FORTRAN_IMPL["d" + _name] = _math(_name, _fn)   # dsqrt, dexp, ..., datan2
    FORTRAN_IMPL["c" + _name] = _math(_name, _fn)   # csqrt, cexp, ... (complex: numpy)
FORTRAN_IMPL.update({
    "abs": f_abs, "iabs": f_abs, "dabs": f_abs, "cabs": f_abs,
    "max": f_max, "min": f_min, "max0": _fixed(f_max, I32), "min0": _fixed(f_min, I32),
    "amax1": _fixed(f_max, F32), "amin1": _fixed(f_min, F32),
    "dmax1": _fixed(f_max, F64), "dmin1": _fixed(f_min, F64),
    "mod": f_mod, "amod": f_mod, "dmod": f_mod, "modulo": f_modulo,
    "sign": f_sign, "isign": f_sign, "dsign": f_sign, "dim": f_dim,
    "int": f_int, "ifix": f_int, "idint": f_int, "nint": f_nint, "idnint": f_nint,
    "real": f_real, "float": lambda a: convert(as_value(a), F32), "sngl": lambda a: convert(as_value(a), F32),
    "dble": f_dble, "dfloat": f_dble, "cmplx": f_cmplx, "dcmplx": f_dcmplx,
    "aimag": f_aimag, "dimag": f_aimag, "conjg": f_conjg, "dconjg": f_conjg,
    "floor": f_floor, "ceiling": f_ceiling, "aint": f_aint, "dint": f_aint, "anint": f_anint, "dnint": f_anint,
    "sum": f_sum, "product": f_product, "maxval": f_maxval, "minval": f_minval,
    "dot_product": f_dot_product, "matmul": f_matmul, "transpose": f_transpose,
    "reshape": f_reshape, "spread": f_spread, "pack": f_pack, "unpack": f_unpack, "cshift": f_cshift,
    "eoshift": f_eoshift,
    "norm2": f_norm2, "hypot": f_hypot,
    "maxloc": _loc(np.argmax), "minloc": _loc(np.argmin),
    "count": f_count, "any": f_any, "all": f_all, "merge": f_merge,
    "len": f_len, "len_trim": f_len_trim, "trim": lambda s: s.rstrip(" "),
    "adjustl": lambda s: s.lstrip(" ") + " " * (len(s) - len(s.lstrip(" "))),
    "char": f_char, "ichar": f_ichar,
    "huge": _number_model("max"), "tiny": _number_model("tiny"), "epsilon": _number_model("eps"),
    "kind": f_kind,
})

_C_MATH = dict(_GENERIC_MATH, pow=np.power, fabs=np.abs, fmin=np.fmin, fmax=np.fmax, floor=np.floor,
               ceil=np.ceil, fmod=np.fmod, hypot=np.hypot, cbrt=np.cbrt, expm1=np.expm1, log1p=np.log1p,
               erf=_erf(math.erf), erfc=_erf(math.erfc), trunc=np.trunc, copysign=np.copysign,
               round=lambda x: np.copysign(np.floor(np.abs(x) + 0.5), x), exp2=np.exp2, log2=np.log2,
               asinh=np.arcsinh, acosh=np.arccosh, atanh=np.arctanh)
_C_FLOAT_FORMS = ("sin cos tan asin acos atan atan2 sinh cosh tanh exp log log10 sqrt pow fabs fmin fmax floor "
                  "ceil fmod hypot cbrt expm1 log1p erf erfc trunc copysign round exp2 log2 asinh acosh atanh").split()

C_IMPL = {name: _c_math(name, fn, F64) for name, fn in _C_MATH.items()}
C_IMPL.update({name + "f": _c_math(name, _C_MATH[name], F32) for name in _C_FLOAT_FORMS})
C_IMPL.update({
    "abs": lambda a: np.abs(convert(as_value(a), I32)),
    "labs": lambda a: np.abs(convert(as_value(a), INT_KINDS[8])),
})


# --- CUDA device math (issue 8) ---------------------------------------------------------------
# The fast intrinsics (__expf, __sinf, ...) are less accurate on a GPU; the interpreter gives
# them the meaning of the accurate function they approximate (the reference semantics).
CUDA_ALIASES = {"__" + name + "f": name + "f" for name in "exp sin cos tan log log2 log10 pow".split()}
CUDA_ALIASES.update({"__fdividef": "fdividef", "__fmaf_rn": "fmaf", "__fma_rn": "fma", "__exp10f": "exp10f"})


def _min_max(pick):
    def run(a, b):
        a, b = common(a, b)
        if a.dtype.kind == "f":
            return (np.fmin if pick is min else np.fmax)(a, b)
        return pick(a, b)
    return run


def _c_math_n(cname, ufunc, dt, nargs):
    """Like _c_math, for a function of nargs arguments (fma)."""
    return lambda *args: _elemental(cname, ufunc, [convert(as_value(a), dt) for a in args[:nargs]])


def _reciprocal(fn, dt):
    return lambda x: dt.type(1) / fn(x)


CUDA_IMPL = {
    "rsqrt": _reciprocal(C_IMPL["sqrt"], F64), "rsqrtf": _reciprocal(C_IMPL["sqrtf"], F32),
    "rcbrt": _reciprocal(C_IMPL["cbrt"], F64), "rcbrtf": _reciprocal(C_IMPL["cbrtf"], F32),
    "fma": _c_math_n("fma", lambda x, y, z: x * y + z, F64, 3),
    "fmaf": _c_math_n("fma", lambda x, y, z: x * y + z, F32, 3),
    "fdim": _c_math_n("fdim", lambda x, y: np.maximum(x - y, 0), F64, 2),
    "fdimf": _c_math_n("fdim", lambda x, y: np.maximum(x - y, 0), F32, 2),
    "exp10": _c_math("exp10", lambda x: np.power(10.0, x), F64),
    "exp10f": _c_math("exp10", lambda x: np.power(np.float32(10), x), F32),
    "sinpi": _c_math("sinpi", lambda x: np.sin(np.pi * x), F64),
    "cospi": _c_math("cospi", lambda x: np.cos(np.pi * x), F64),
    "sinpif": _c_math("sinpi", lambda x: np.sin(np.float32(np.pi) * x), F32),
    "cospif": _c_math("cospi", lambda x: np.cos(np.float32(np.pi) * x), F32),
    "fdividef": lambda x, y: convert(as_value(x), F32) / convert(as_value(y), F32),
    "__saturatef": lambda x: np.clip(convert(as_value(x), F32), F32.type(0), F32.type(1)),
    "min": _min_max(min), "max": _min_max(max),
    "isnan": lambda x: np.int32(np.isnan(x)), "isinf": lambda x: np.int32(np.isinf(x)),
    "isfinite": lambda x: np.int32(np.isfinite(x)),
}
