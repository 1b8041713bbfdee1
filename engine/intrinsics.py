"""Names of the intrinsic functions the front ends recognise, per language.

A call to one of these names (not shadowed by a declaration of the same name) becomes an
`intrinsic` IL node; the IL interpreter gives each its meaning (engine/interp.py).
"""

FORTRAN_INTRINSICS = frozenset("""
abs iabs dabs cabs sqrt dsqrt csqrt exp dexp cexp log dlog clog log10 dlog10
sin dsin csin cos dcos ccos tan dtan asin dasin acos dacos atan datan atan2 datan2
sinh dsinh cosh dcosh tanh dtanh
min max min0 max0 amin1 amax1 dmin1 dmax1 mod amod dmod modulo sign isign dsign dim
int ifix idint nint idnint real float sngl dble dfloat cmplx dcmplx aimag dimag conjg dconjg
floor ceiling aint anint dint dnint
sum product maxval minval dot_product matmul transpose size shape lbound ubound
maxloc minloc count any all merge
len len_trim trim adjustl char ichar
present associated allocated null huge tiny epsilon kind
""".split())

C_INTRINSICS = frozenset("""
sin cos tan asin acos atan atan2 sinh cosh tanh exp log log10 sqrt pow fabs fmin fmax
floor ceil fmod hypot cbrt expm1 log1p erf erfc
sinf cosf tanf asinf acosf atanf atan2f sinhf coshf tanhf expf logf log10f sqrtf powf
fabsf fminf fmaxf floorf ceilf fmodf
abs labs printf malloc free
atomicAdd __syncthreads
""".split())


# ---------------------------------------------------------------------------------------------
# Differentiability of intrinsic arguments: THE one table (zones.diff_reads, effects, activity
# and the derivative rules all read it). An argument is "differentiable" when the intrinsic's
# value depends on it through a non-zero derivative (almost everywhere).
# ---------------------------------------------------------------------------------------------

# The value is piecewise constant, integer, logical, character or an inquiry: no argument
# carries a derivative into it.
NON_DIFFERENTIABLE_FORTRAN = frozenset("""
int ifix idint nint idnint floor ceiling aint anint dint dnint isign iabs
size shape lbound ubound maxloc minloc count any all
len len_trim trim adjustl char ichar present associated allocated null huge tiny epsilon kind
""".split())
# C: integer abs, rounding functions, library calls without a real value.
NON_DIFFERENTIABLE_C = frozenset("""
abs labs floor ceil floorf ceilf printf malloc free __syncthreads
""".split())

# Intrinsics differentiable in some arguments only (0-based positions):
#   sign(a, b) = |a| * sign of b: derivative in a only (b contributes its sign, piecewise constant).
#   merge(tsource, fsource, mask): the mask is logical.
#   mod/modulo/fmod(a, p) = a - int(a/p)*p: differentiable in BOTH a and p (d/dp = -int(a/p) is not
#     zero), so they are absent from this table on purpose: dropping p would lose a derivative.
PARTIALLY_DIFFERENTIABLE = {
    "fortran": {"sign": (0,), "dsign": (0,), "merge": (0, 1)},
    "c": {"copysign": (0,), "copysignf": (0,)},
}

# Inquiry intrinsics: they look at an argument's shape, allocation or association status, not
# at its values (their arguments are not "read" by data-flow analyses).
INQUIRY_INTRINSICS = frozenset("size shape lbound ubound allocated associated present kind len "
                               "huge tiny epsilon".split())


def non_differentiable(name: str, lang: str) -> bool:
    """True when no argument of intrinsic `name` carries a derivative into its value."""
    table = NON_DIFFERENTIABLE_C if lang in ("c", "cuda") else NON_DIFFERENTIABLE_FORTRAN
    return name in table


def differentiable_args(name: str, nargs: int, lang: str) -> tuple:
    """Positions of the arguments of intrinsic `name` (called with nargs arguments) through
    which its value is differentiable. Unknown names: all arguments (the safe choice)."""
    if non_differentiable(name, lang):
        return ()
    partial = PARTIALLY_DIFFERENTIABLE["c" if lang in ("c", "cuda") else "fortran"].get(name)
    if partial is not None:
        return tuple(i for i in partial if i < nargs)
    return tuple(range(nargs))

# Intrinsics whose value is linear in their differentiable arguments: their partial derivatives
# are constants, so the derivative instruction reads none of the original values (use(I')).
LINEAR_INTRINSICS = frozenset("""
real float sngl dble dfloat cmplx dcmplx conjg dconjg aimag dimag sum transpose merge
""".split())
