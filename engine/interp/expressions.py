"""Expressions of the IL interpreter: `eval` and the table EXPRESSIONS, IL operator -> the
function that gives its meaning, one line per operator (docs/semantics.md is generated from it).

Each function takes the interpreter `it` and the node and returns a value (values.py). The
binary arithmetic, bitwise and comparison operators are built by `arithmetic` and `comparison`,
which state the numeric promotion rule once.
"""
from __future__ import annotations

import operator
from math import prod

import numpy as np

from ..il import Node
from . import calls, frames, memory, places
from . import intrinsics as ii
from .constructs import e_impliedDo
from .intrinsic_calls import e_intrinsic
from .intrinsics import COMPLEX_KINDS, INT_KINDS, convert, promote
from .values import (CArr, FArr, Ptr, Record, UNASSOCIATED, concat_values, err, truth)


def eval(it, node: Node):
    """The value of expression `node` in the running frame."""
    try:
        return it._expr[node.op](it, node)
    except KeyError:
        if node.op in it._expr:
            raise
        raise err(node, f"expression {node.op} is not supported by the interpreter") from None


def e_intCst(it, node):
    """The integer of the literal's kind (4, or 8 when the value needs it)."""
    v = it._consts.get(id(node))
    if v is None:
        value, kind = node.kids
        if kind is None:
            kind = 4 if -2**31 <= value < 2**31 else 8
        v = it._consts[id(node)] = INT_KINDS[kind].type(value)
    return v


def e_realCst(it, node):
    """The literal rounded once to its kind (cached per node)."""
    v = it._consts.get(id(node))
    if v is None:
        v = it._consts[id(node)] = _parse_real(node.text, node.kind, node)
    return v


def e_boolCst(it, node):
    """Fortran logical; C int 0 or 1."""
    return np.int32(node.value) if it.is_c else np.bool_(node.value)


def e_stringCst(it, node):
    """The string itself."""
    return node.value


def e_complexCst(it, node):
    """Complex of the larger real kind of its parts (refused in complex step)."""
    if it.complex_step:
        raise err(node, "complex step on a program with complex constants is not supported")
    re_, im = ii.as_value(eval(it, node.re)), ii.as_value(eval(it, node.im))
    kinds = [v.dtype.itemsize for v in (re_, im) if v.dtype.kind == "f"]
    dt = COMPLEX_KINDS[max(kinds) if kinds else 4]
    return dt.type(complex(re_, im))


def e_ident(it, node):
    """The value of a scalar variable, the array of an array variable (a view), a C array."""
    b = it.frame.vars.get(node.kids[0])
    if b is None:
        b = frames.binding(it, node.kids[0], node=node)
    if type(b) is np.ndarray:  # a scalar: the common case, first
        return b[()]
    return _held(b, node, "array", node.kids[0])


def _held(b, node, kind, name):
    """The value binding b of `name` (kind: array or component) holds; an error if none."""
    if type(b) is np.ndarray:
        return b[()]
    if type(b) is FArr:
        if b.data is None:
            raise err(node, f"{kind} {name} is not allocated")
        return b.data
    if b is UNASSOCIATED:
        raise err(node, f"pointer {name} is not associated")
    return b  # CArr, Record, ...


def e_arrayAccess(it, node):
    """An element or a section (Fortran, bounds checked), a substring; C a[i]: an element or a row."""
    if it.is_c:
        place = places.c_index(it, node)
        if type(place) is tuple:
            return place[0][place[1]]
        return place
    if places.is_substring(it, node):
        text, lo, hi = places.substring(it, node)
        return text[lo:hi]
    data, key = places.f_place(it, node)
    return data[key]


def e_fieldAccess(it, node):
    """A component's value; of an array of records, the array of the components."""
    return _held(places.field_of(it, eval(it, node.base), node), node, "component", node.field)


def e_address(it, node):
    """C &x: a Ptr to the place; `p + k` marked pointer_sum: pointer arithmetic."""
    if node.ann.get("pointer_sum"):  # C `p + k` (may point one past the end): pointer arithmetic
        base, (index,) = node.expr.kids
        return _ADD(it, Node("add", (base, index), node.ann))
    place = places.c_index(it, node.expr) if node.expr.op == "arrayAccess" else places.c_place(it, node.expr)
    if isinstance(place, CArr):
        return Ptr(place.buf, place.off)
    container, key = place
    if isinstance(container, CArr):
        return Ptr(container.buf, container.off)
    if container.ndim == 0:
        return Ptr(container.reshape(1), 0)
    return Ptr(container, key)


def e_deref(it, node):
    """C *p: the element p points to (bounds and NULL checked)."""
    p = eval(it, node.expr)
    if isinstance(p, CArr):
        return places.c_row(it, p, 0, node)
    if type(p) is not Ptr:
        raise err(node, "dereference of a null or non-pointer value")
    if not 0 <= p.off < len(p.buf):
        raise err(node, "dereference out of bounds")
    return p.buf[p.off]


def e_call(it, node):
    """A function call's result (calls.py)."""
    return calls.call_user(it, node)


def e_namedArg(it, node):
    """Only inside a call: elsewhere an error."""
    raise err(node, "keyword argument outside a call")


def e_cast(it, node):
    """C (T) e: converted as C converts (pointers and structs unchanged)."""
    v = eval(it, node.expr)
    t = node.type
    if t.op == "pointerType" or isinstance(v, (Ptr, CArr)) or v is None:
        return Ptr(v.buf, v.off) if isinstance(v, CArr) else v
    dtype, factory = memory.elem_kind(it, t)
    if factory is not None or dtype == object:
        return v
    return convert(ii.as_value(v), dtype)


def e_sizeof(it, node):
    """C sizeof of a type or of an expression's value, in bytes."""
    arg = node.arg
    if arg.op in ("type", "typeRef", "pointerType"):
        return np.int64(memory.sizeof_type(it, arg))
    v = eval(it, arg)
    if isinstance(v, CArr):
        return np.int64(prod(v.dims) * memory.sizeof_elem(it, v.buf.flat[0] if v.buf.dtype == object
                                                          else v.buf.dtype))
    return np.int64(memory.sizeof_elem(it, v if isinstance(v, (Record, Ptr)) or v is None else v.dtype))


def e_ifExpr(it, node):
    """C c ? a : b: only the chosen branch is evaluated."""
    cond, a, b = node.kids
    return eval(it, a) if truth(eval(it, cond)) else eval(it, b)


def e_arrayConstructor(it, node):
    """Fortran: one 1-d array of the items' common type; C: a brace initializer (a tuple)."""
    vals = [eval(it, i) for i in node.items]
    if it.is_c:
        return tuple(vals)
    return concat_values(vals)


def e_arrayTriplet(it, node):
    """Only inside a subscript: elsewhere an error."""
    raise err(node, "array section outside an array reference")


def e_star(it, node):
    """Only in a declaration or an I/O list: elsewhere an error."""
    raise err(node, "'*' outside a declaration or I/O list")


# --- numbers ----------------------------------------------------------------------------------
# The promotion rule, stated once: both operands of a binary operator are converted to their
# common type, intrinsics.promote (Fortran mixed mode: integer < real < complex, then the larger
# kind, an integer never widening a real; C: the usual arithmetic conversions, with every
# integer at least int). Single precision and integer arithmetic then stay in their type, as
# in the compiled code.


def arithmetic(text, fn, on_integers=None):
    """The meaning of a binary arithmetic or bitwise operator: `text` on the operands promoted
    to their common type (on integers, on_integers(node, a, b) if given: it checks for zero);
    C pointer operands take pointer arithmetic."""
    def run(it, node):
        a = eval(it, node.kids[0])
        b = eval(it, node.kids[1])
        if it.is_c and (type(a) in (Ptr, CArr) or type(b) in (Ptr, CArr) or a is None or b is None):
            return pointer_arithmetic(node, a, b)
        try:
            dt = promote(a.dtype, b.dtype, it.is_c)
        except (AttributeError, TypeError):
            raise err(node, f"{node.op} of {type(a).__name__} and {type(b).__name__}") from None
        if a.dtype != dt:
            a = convert(a, dt)
        if b.dtype != dt:
            b = convert(b, dt)
        if on_integers is not None and dt.kind in "iu":
            return on_integers(node, a, b)
        return fn(a, b)
    integers = f"; on integers, {on_integers.__doc__.rstrip('.')}" if on_integers is not None else ""
    pointers = "; with a C pointer operand, pointer arithmetic" if fn in (operator.add, operator.sub) else ""
    return _named(run, "arithmetic", text, f"{text} of the operands promoted to their common type{integers}{pointers}.")


def comparison(text, fn):
    """The meaning of a comparison: `text` on the operands promoted to their common type
    (complex step: on the real parts, so that branches follow them), on Fortran strings
    without their trailing blanks, on C pointers by address; logical (Fortran) or int (C)."""
    def run(it, node):
        a = eval(it, node.kids[0])
        b = eval(it, node.kids[1])
        if isinstance(a, str) or isinstance(b, str):
            r = fn(str(a).rstrip(" "), str(b).rstrip(" "))
        elif it.is_c and (type(a) in (Ptr, CArr) or type(b) in (Ptr, CArr) or a is None or b is None):
            r = fn(*_ptr_keys(a, b, node))
        else:
            dt = promote(a.dtype, b.dtype, it.is_c)
            a, b = convert(a, dt), convert(b, dt)
            if it.complex_step and dt.kind == "c":
                a, b = np.real(a), np.real(b)
            r = fn(a, b)
        return np.int32(r) if it.is_c else (np.bool_(r) if not isinstance(r, np.ndarray) else r)
    return _named(run, "comparison", text, f"{text} of the operands promoted to their common type (complex step: "
                  "of their real parts); strings without trailing blanks; C pointers by address.")


def _named(run, kind, text, doc):
    run.__name__ = run.__qualname__ = f"{kind}({text})"
    run.__doc__ = doc
    return run


def integer_division(node, a, b):
    """the quotient truncated toward zero."""
    if np.any(b == 0):
        raise err(node, "integer division by zero")
    q = np.abs(a) // np.abs(b)
    return q * np.sign(a) * np.sign(b)


def integer_remainder(node, a, b):
    """the remainder with the sign of a (Fortran MOD, C %)."""
    if np.any(b == 0):
        raise err(node, "integer modulo by zero")
    return np.fmod(a, b)


def e_power(it, node):
    """a ** b: integer powers by repeated squaring in a's type (as gfortran), else real power in
    the common type."""
    a = ii.as_value(eval(it, node.left))
    b = ii.as_value(eval(it, node.right))
    if b.dtype.kind in "iu":
        if a.dtype.kind in "iu":
            dt = promote(a.dtype, b.dtype)
            return _int_power(convert(a, dt), int(b) if not isinstance(b, np.ndarray) else b, node)
        if isinstance(b, np.ndarray):
            return np.power(a, b.astype(a.dtype))
        return _powi(a, int(b))
    dt = promote(a.dtype, b.dtype)
    return ii.real_power(convert(a, dt), convert(b, dt))


def e_neg(it, node):
    """-a (a C logical is an int first)."""
    v = eval(it, node.expr)
    if it.is_c and v.dtype.kind == "b":
        v = np.int32(v)
    return -v


def e_pos(it, node):
    """+a: a itself."""
    return eval(it, node.expr)


def e_not(it, node):
    """Fortran .NOT.; C !a, an int."""
    v = eval(it, node.expr)
    if it.is_c:
        return np.int32(not truth(v))
    return np.logical_not(v)


def e_bitNot(it, node):
    """C ~a."""
    return ~eval(it, node.expr)


def short_circuit(text, fn, decides):
    """The meaning of .AND./&& and .OR./||: the left operand decides when its truth is `decides`,
    else the value is the right operand's truth; on arrays, fn elementwise."""
    def run(it, node):
        a = eval(it, node.left)
        if isinstance(a, np.ndarray):
            return fn(a, eval(it, node.right))
        if truth(a) is decides:
            return np.int32(decides) if it.is_c else np.bool_(decides)
        b = eval(it, node.right)
        if isinstance(b, np.ndarray):
            return fn(a, b)
        return np.int32(truth(b)) if it.is_c else np.bool_(truth(b))
    return _named(run, "short_circuit", text, f"{text}: the right operand only when the left one is "
                  f"{str(not decides).lower()} (elementwise on arrays); Fortran logical, C int.")


def e_eqv(it, node):
    """Fortran .EQV. of the logical values."""
    return np.equal(np.asarray(eval(it, node.left), bool), np.asarray(eval(it, node.right), bool))[()]


def e_neqv(it, node):
    """Fortran .NEQV. of the logical values."""
    return np.not_equal(np.asarray(eval(it, node.left), bool), np.asarray(eval(it, node.right), bool))[()]


def e_concat(it, node):
    """Fortran // of two strings."""
    return str(eval(it, node.left)) + str(eval(it, node.right))


def pointer_arithmetic(node, a, b):
    """C pointer + integer, integer + pointer, pointer - integer, pointer - pointer."""
    if isinstance(a, CArr):
        a = Ptr(a.buf, a.off)
    if isinstance(b, CArr):
        b = Ptr(b.buf, b.off)
    op = node.op
    if op == "add" and type(a) is Ptr and type(b) is not Ptr and b is not None:
        return Ptr(a.buf, a.off + int(b))
    if op == "add" and type(b) is Ptr and type(a) is not Ptr and a is not None:
        return Ptr(b.buf, b.off + int(a))
    if op == "sub" and type(a) is Ptr and type(b) is Ptr:
        return np.int64(a.off - b.off)
    if op == "sub" and type(a) is Ptr and b is not None:
        return Ptr(a.buf, a.off - int(b))
    raise err(node, f"{op} on pointers is not supported")


def _ptr_keys(a, b, node):
    """Comparable keys of two C pointer operands (NULL is None or the integer 0)."""
    def key(p):
        if isinstance(p, CArr):
            return (id(p.buf.base if p.buf.base is not None else p.buf), p.off)
        if type(p) is Ptr:
            return (id(p.buf.base if p.buf.base is not None else p.buf), p.off)
        if p is None or (not isinstance(p, (Ptr, CArr)) and p == 0):
            return (0, 0)
        raise err(node, "comparison of a pointer with a number")
    ka, kb = key(a), key(b)
    if ka[0] != kb[0] and node.op not in ("eq", "ne"):
        raise err(node, "ordering of pointers into different buffers")
    return ka, kb


def _int_power(a, n, node):
    """Integer ** integer; a negative power truncates 1/a**|n| toward zero."""
    if isinstance(n, np.ndarray) or isinstance(a, np.ndarray):
        raise err(node, "integer ** on arrays is not supported")
    if n >= 0:
        return _powi(a, n)
    if a == 0:
        raise err(node, "0 ** negative integer")
    if a == 1 or a == -1:
        return a.dtype.type(a if n % 2 else 1)
    return a.dtype.type(0)


def _powi(x, n: int):
    """x**n by repeated squaring in the type of x (gfortran's _gfortran_pow / __builtin_powi)."""
    if n < 0:
        return x.dtype.type(1) / _powi(x, -n) if not isinstance(x, np.ndarray) else 1 / _powi(x, -n)
    result = None
    while n:
        if n & 1:
            result = x if result is None else result * x
        n >>= 1
        if n:
            x = x * x
    if result is None:
        return np.ones_like(x) if isinstance(x, np.ndarray) else x.dtype.type(1)
    return result


def _parse_real(text: str, kind: int, node):
    """The literal `text` rounded once, directly to the precision of `kind`."""
    if kind == 8:
        return np.float64(text)
    if kind in (10, 16):
        return np.longdouble(text)
    if kind != 4:
        raise err(node, f"real kind {kind} is not supported")
    from fractions import Fraction
    exact = Fraction(text)
    f = np.float32(float(text))
    best = f
    for cand in (np.nextafter(f, np.float32(np.inf)), np.nextafter(f, np.float32(-np.inf))):
        if np.isfinite(cand):
            d_best, d_cand = abs(Fraction(float(best)) - exact), abs(Fraction(float(cand)) - exact)
            if d_cand < d_best or (d_cand == d_best and int(cand.view(np.int32)) % 2 == 0):
                best = cand
    return best


_ADD = arithmetic("a + b", operator.add)

# IL operator -> the function that gives its meaning (docs/semantics.md lists them).
EXPRESSIONS = {
    "intCst": e_intCst,
    "realCst": e_realCst,
    "boolCst": e_boolCst,
    "stringCst": e_stringCst,
    "complexCst": e_complexCst,
    "ident": e_ident,
    "arrayAccess": e_arrayAccess,
    "fieldAccess": e_fieldAccess,
    "address": e_address,
    "deref": e_deref,
    "call": e_call,
    "intrinsic": e_intrinsic,
    "namedArg": e_namedArg,
    "cast": e_cast,
    "sizeof": e_sizeof,
    "ifExpr": e_ifExpr,
    "arrayConstructor": e_arrayConstructor,
    "impliedDo": e_impliedDo,
    "arrayTriplet": e_arrayTriplet,
    "star": e_star,
    "add": _ADD,
    "sub": arithmetic("a - b", operator.sub),
    "mul": arithmetic("a * b", operator.mul),
    "div": arithmetic("a / b", operator.truediv, integer_division),
    "mod": arithmetic("fmod(a, b)", np.fmod, integer_remainder),
    "power": e_power,
    "neg": e_neg,
    "pos": e_pos,
    "not": e_not,
    "bitNot": e_bitNot,
    "eq": comparison("a == b", operator.eq),
    "ne": comparison("a != b", operator.ne),
    "lt": comparison("a < b", operator.lt),
    "le": comparison("a <= b", operator.le),
    "gt": comparison("a > b", operator.gt),
    "ge": comparison("a >= b", operator.ge),
    "and": short_circuit("a .and. b, a && b", np.logical_and, False),
    "or": short_circuit("a .or. b, a || b", np.logical_or, True),
    "eqv": e_eqv,
    "neqv": e_neqv,
    "concat": e_concat,
    "bitAnd": arithmetic("a & b", np.bitwise_and),
    "bitOr": arithmetic("a | b", np.bitwise_or),
    "bitXor": arithmetic("a ^ b", np.bitwise_xor),
    "lShift": arithmetic("a << b", np.left_shift),
    "rShift": arithmetic("a >> b", np.right_shift),
}
