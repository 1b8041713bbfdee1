"""Names of the intrinsic functions the front ends recognise, per language.

A call to one of these names (not shadowed by a declaration of the same name) becomes an
`intrinsic` IL node; the IL interpreter gives each its meaning (engine/interp/).
Which arguments of an intrinsic carry a derivative is not written here: `differentiable_args`
is a view of the derivative table (rules/derivatives.py), loaded on first use.
"""

FORTRAN_INTRINSICS = frozenset("""
abs iabs dabs cabs sqrt dsqrt csqrt exp dexp cexp log dlog clog log10 dlog10
sin dsin csin cos dcos ccos tan dtan asin dasin acos dacos atan datan atan2 datan2
sinh dsinh cosh dcosh tanh dtanh
min max min0 max0 amin1 amax1 dmin1 dmax1 mod amod dmod modulo sign isign dsign dim
int ifix idint nint idnint real float sngl dble dfloat cmplx dcmplx aimag dimag conjg dconjg
floor ceiling aint anint dint dnint
sum product maxval minval dot_product matmul transpose size shape lbound ubound
reshape spread pack cshift eoshift norm2 hypot
maxloc minloc count any all merge
len len_trim trim adjustl char ichar
present associated allocated null huge tiny epsilon kind
""".split())

C_INTRINSICS = frozenset("""
sin cos tan asin acos atan atan2 sinh cosh tanh exp log log10 sqrt pow fabs fmin fmax
floor ceil fmod hypot cbrt expm1 log1p erf erfc trunc round copysign exp2 log2 asinh acosh atanh
sinf cosf tanf asinf acosf atanf atan2f sinhf coshf tanhf expf logf log10f sqrtf powf
fabsf fminf fmaxf floorf ceilf fmodf hypotf cbrtf expm1f log1pf erff erfcf truncf roundf copysignf
exp2f log2f asinhf acoshf atanhf
abs labs printf malloc free
atomicAdd __syncthreads
""".split())

# CUDA (a .cu file): its device math beyond math.h, intrinsics like C's (the fast `__expf`
# family included); and its runtime, atomics and barrier, which the IL keeps as plain calls by
# name (engine/il.py, CUDA conventions).
CUDA_MATH = frozenset("""
rsqrt rsqrtf rcbrt rcbrtf fma fmaf fdim fdimf exp10 exp10f sinpi cospi sinpif cospif fdividef
min max isnan isinf isfinite
__expf __sinf __cosf __tanf __logf __log2f __log10f __powf __exp10f __fdividef __saturatef
__fmaf_rn __fma_rn
""".split())
CUDA_CALLS = frozenset("""
__syncthreads __syncthreads_count __syncthreads_and __syncthreads_or
atomicAdd atomicSub atomicMax atomicMin atomicExch atomicCAS atomicAnd atomicOr atomicXor atomicInc atomicDec
cudaMalloc cudaMemcpy cudaMemset cudaFree cudaDeviceSynchronize cudaMemcpyToSymbol cudaMemcpyFromSymbol
cudaGetLastError cudaPeekAtLastError
dim3
""".split())
# CUDA's built-in variables, the coordinates of the running thread (uint3 / dim3 values): known
# in device code (`__global__` and `__device__` procedures) only; read-only integers.
CUDA_BUILTIN_VARIABLES = ("threadIdx", "blockIdx", "blockDim", "gridDim")
DEVICE_SPACES = frozenset(("__global__", "__device__"))
# Named constants of the CUDA runtime a .cu file uses without declaring them (cudaMemcpyKind, and
# the status cudaSuccess), with their values.
CUDA_CONSTANTS = {"cudaMemcpyHostToHost": 0, "cudaMemcpyHostToDevice": 1, "cudaMemcpyDeviceToHost": 2,
                  "cudaMemcpyDeviceToDevice": 3, "cudaMemcpyDefault": 4, "cudaSuccess": 0}

# Inquiry intrinsics: they look at an argument's shape, allocation or association status, not
# at its values (their arguments are not "read" by data-flow analyses).
INQUIRY_INTRINSICS = frozenset("size shape lbound ubound allocated associated present kind len "
                               "huge tiny epsilon".split())

# Differentiability of intrinsic arguments is NOT written here: it is a view of the derivative
# table (rules/derivatives.py, the one source of truth: each entry marks its inactive arguments).
# The engine must not depend on the rules at import time (DESIGN: dependencies point one way), so
# the table is loaded on first use; it depends on engine.il only, so no cycle can form.
_TABLE = None


def _table():
    global _TABLE
    if _TABLE is None:
        from ..rules import derivatives
        _TABLE = derivatives
    return _TABLE


def non_differentiable(name: str, lang: str) -> bool:
    """True when no argument of intrinsic `name` carries a derivative into its value."""
    return _table().non_differentiable(name, lang)


def differentiable_args(name: str, nargs: int, lang: str) -> tuple:
    """Positions of the arguments of intrinsic `name` (called with nargs arguments) through
    which its value is differentiable (almost everywhere). Unknown names: all arguments (the
    safe choice). Derived from the derivative table."""
    return _table().differentiable_args(name, nargs, lang)
