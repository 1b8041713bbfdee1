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
