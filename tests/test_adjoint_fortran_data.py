"""Adjoint mode on Fortran data (issue 16): array statements and sections with the adjoints
of fig. 14 (SUM <-> SPREAD, WHERE masks), reductions, arrays saved whole on the stack.
Each program passes the dot-product test <Xdot, Xbar> = <Ydot, Ybar> against the tangent
in the interpreter (tests/adjoint_check.py), with the stack empty at the end; the key ones
compiled with gfortran -O2 and once with -fcheck=all. What is not covered is refused with
file:line."""
from __future__ import annotations

import re
import shutil
import subprocess

import pytest

import adspec
from adspec.engine.errors import UnsupportedError
from adjoint_check import AdjointCase

TOL = 1e-12


# the rewrites of 4.8 off: the structure tests read the statements the rules write
UNMERGED = frozenset({"mergediff", "splitdiff", "spareinit"})


def dot_product(source, head, args, seed=1, **options):
    case = AdjointCase(source, "fortran", head, args, seed=seed, **options)
    check = case.check()
    assert check.stack_state == 0, check.report()
    assert check.error < TOL, check.report()
    return case, check


def real(name, shape=()):
    return (name, "real", shape, None)


def integer(name, value):
    return (name, "int", (), value)


def lines(text: str) -> list:
    return [" ".join(line.split()) for line in text.splitlines()]


FIG14 = """
subroutine fig14(a, b, t, c, d, x, r, s, n)
  integer n
  real(8) a(n), b(n), t(n), c(0:n-1), d(n, 3), x, r, s
  a(:) = 2.9*a(:) + x
  s = s + sum(a(:)*x, mask=b(:)>1)
  where (t(:) < 1) a(:) = r*r
  a(1:n) = c(0:n-1)*sum(d(:,:), dim=2)
end subroutine
"""
FIG14_ARGS = [real("a", (5,)), real("b", (5,)), real("t", (5,)), real("c", (5,)), real("d", (5, 3)),
              real("x"), real("r"), real("s"), integer("n", 5)]
FIG14_HEAD = "fig14(a s)/(a x r s c d)"
# the inputs are in (0.5, 1.5): masks against 1 take some elements and leave others


def test_fig14_structure():
    """The adjoint statements of fig. 14, up to names, layout and factoring."""
    case, _ = dot_product(FIG14, FIG14_HEAD, FIG14_ARGS, nooptim=UNMERGED)
    text = lines(case.adjoint.text)
    expected = [  # in the order of the backward sweep
        "cb(0:n - 1) = cb(0:n - 1) + sum(d(:, :), dim=2)*ab(1:n)",
        "db(:, :) = db(:, :) + spread(c(0:n - 1)*ab(1:n), 2, size(d(:, :), 2))",
        "ab(1:n) = 0.0d0",
        "rb = rb + r*sum(ab(:), mask=t(:) < 1)",
        "where (t(:) < 1)", "ab(:) = 0.0d0",
        "where (b(:) > 1)", "ab(:) = ab(:) + x*sb",
        "xb = xb + sum(a(:)*sb, mask=b(:) > 1)",
        "xb = xb + sum(ab(:))",
        "ab(:) = 2.9*ab(:)",
    ]
    positions = [text.index(line) for line in expected]
    assert positions == sorted(positions), case.adjoint.text
    assert not any(line.startswith("where") for line in text[:text.index("cb = 0.0d0")]), \
        "the forward WHERE is sliced away (its assignment is dead)"


@pytest.mark.parametrize("seed", [1, 2])
def test_fig14_dot_product(seed):
    case, check = dot_product(FIG14, FIG14_HEAD, FIG14_ARGS, seed=seed)
    assert check.adjoint_side != 0.0


WHERE = """
subroutine w(a, b, t, r, s, n)
  integer n
  real(8) a(n), b(n), t(n), r, s
  where (t(:) < 1)
    a(:) = r*r*b(:)
  elsewhere
    a(:) = 2*a(:) + r
    b(:) = b(:)*r
  end where
  s = sum(a*a) + sum(b)
end subroutine
"""


WHERE_SAVED = """
subroutine ws(a, b, t, r, s, n)
  integer n
  real(8) a(n), b(n), t(n), r, s
  where (t(:) < 1)
    b(:) = b(:) + a(:)
    a(:) = a(:)*r
    b(:) = sin(b(:))
  elsewhere
    a(:) = a(:)*a(:)*r
  end where
  s = sum(a*b)
end subroutine
"""


def test_where_saving_values():
    """a = a*r under the mask needs the old a (r's adjoint): a pushed whole between two
    WHEREs of the same mask, popped before the masked increments."""
    case, _ = dot_product(WHERE_SAVED, "ws(s)/(a b r)", [real("a", (6,)), real("b", (6,)), real("t", (6,)),
                                                         real("r"), real("s"), integer("n", 6)])
    text = lines(case.adjoint.text)
    forward = text[:text.index("ab = 0.0d0") if "ab = 0.0d0" in text else len(text)]
    assert forward.count("call pushreal8array(a, size(a))") + forward.count("call pushreal8array(a(:), size(a(:)))") == 2
    assert "where (.not.t(:) < 1)" in text or "where (.not. t(:) < 1)" in text, case.adjoint.text


def test_where_elsewhere():
    """Both parts of the WHERE under their masks (the ELSEWHERE's is .not. M)."""
    case, check = dot_product(WHERE, "w(s)/(a b r)", [real("a", (6,)), real("b", (6,)), real("t", (6,)),
                                                      real("r"), real("s"), integer("n", 6)])
    assert "elsewhere" in case.adjoint.text and ".not." in case.adjoint.text, case.adjoint.text


# A-where-saved: the masks are written (by the WHERE's own statements), ELSEWHERE (mask) is
# evaluated after the statements before it; in a loop, the masks are pushed at each trip
WHERE_MOVING_MASK = """
subroutine wm(a, b, x, s, n)
  integer n, k
  real(8) a(n), b(n), x, s
  do k = 1, 3
    where (a > 1.0d0)
      a = 0.5d0*a*x
      b = b + a
    elsewhere (a < 0.9d0)
      b = b*a
      a = a + 0.3d0*x
    elsewhere
      a = a*a
    end where
  end do
  s = sum(a*b)
end subroutine
"""
WHERE_MOVING_MASK_ARGS = [real("a", (8,)), real("b", (8,)), real("x"), real("s"), integer("n", 8)]
WHERE_NESTED = """
subroutine wn(a, x, s, n)
  integer n
  real(8) a(n), x, s
  where (a > 1.0d0)
    a = a*x
    where (a > 1.2d0) a = a - x*x
  elsewhere
    a = sin(a)*x
  end where
  s = sum(a*a)
end subroutine
"""


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_where_whose_mask_its_statements_write(seed):
    """The mask a > 1 is saved before a = 0.5*a*x moves a below 1, ELSEWHERE (a < 0.9)'s
    after it (only where a > 1 was false); in the loop each trip pushes them. A backward
    sweep evaluating the masks again, or one mask for all trips, gets other elements."""
    case, check = dot_product(WHERE_MOVING_MASK, "wm(s)/(a b x)", WHERE_MOVING_MASK_ARGS, seed=seed)
    text = lines(case.adjoint.text)
    assert "wheremask = a > 1.0d0" in text and "where (.not. wheremask .and. .not. wheremask0)" in text, \
        case.adjoint.text
    assert text.count("call pushbooleanarray(wheremask, size(wheremask))") == 1 \
        and text.count("call popbooleanarray(wheremask0, size(wheremask0))") == 1, case.adjoint.text
    assert check.adjoint_side != 0.0


def test_where_nested_runs_once():
    """A WHERE nested in a WHERE: its mask is the outer one .and. its own, evaluated after
    a = a*x; outside any loop the temporaries keep their values for the backward sweep
    (no push)."""
    case, _ = dot_product(WHERE_NESTED, "wn(s)/(a x)", [real("a", (8,)), real("x"), real("s"), integer("n", 8)])
    text = lines(case.adjoint.text)
    assert "wheremask0 = wheremask" in text and not any("booleanarray" in line for line in text), case.adjoint.text


WHERE_CALLED = WHERE_NESTED + """
subroutine top(a, x, s, n)
  integer n
  real(8) a(n), x, s
  call wn(a, x, s, n)
  s = s * x
  call wn(a, x, s, n)
end subroutine
"""


def test_where_in_a_procedure_called_split(tmp_path):
    """-nocheckpoint: WN_FWD pushes the masks (two runs of the WHERE before the backward
    sweeps), WN_BWD allocates its own temporaries to the masks' extents and pops them."""
    args = [real("a", (8,)), real("x"), real("s"), integer("n", 8)]
    case, _ = dot_product(WHERE_CALLED, "top(s)/(a x)", args, nooptim=frozenset({"checkpoint"}))
    text = lines(case.adjoint.text)
    assert "allocate(wheremask(size(a, 1)))" in text and "call pushbooleanarray(wheremask, size(wheremask))" in text, \
        case.adjoint.text
    check = AdjointCase(WHERE_CALLED, "fortran", "top(s)/(a x)", args, nooptim=frozenset({"checkpoint"})
                        ).compiled_check(tmp_path, flags=("-O2",), checked=True)
    assert check.error < 1e-12 and check.interpreter_error < 1e-13, check.report()


def test_where_mask_of_changing_shape_in_a_loop_refused():
    source = ("subroutine r(a, x, n)\n  integer n, k\n  real(8) a(n), x\n  do k = 1, n\n"
              "    where (a(1:k) > 1.0d0) a(1:k) = a(1:k)*x\n  end do\nend subroutine\n")
    with pytest.raises(UnsupportedError, match=r":5: adjoint mode does not support a WHERE in a loop whose mask's "
                                               r"shape may change from one run to the next yet"):
        AdjointCase(source, "fortran", "r(a)/(a x)", [real("a", (5,)), real("x"), integer("n", 5)])


IMPLICIT_LOCALS = """
      SUBROUTINE IMPL(X, Y, N)
      IMPLICIT DOUBLE PRECISION (A-H, O-Z)
      DIMENSION X(N), W(2)
      Y = 0.0D0
      DO 10 I = 1, N
         CALL STEP(X(I), Y)
   10 CONTINUE
      W(1) = Y * X(1)
      W(2) = W(1) * Y
      Y = W(1) + W(2)
      END

      SUBROUTINE STEP(XI, Y)
      IMPLICIT DOUBLE PRECISION (A-H, O-Z)
      T = XI * Y + 1.0D0
      Y = Y + T * T
      END
"""


def test_implicitly_typed_locals(tmp_path):
    """T and Y's partials in STEP, the loop's T: locals no statement declares get adjoints
    declared like them (tb real(8) by the same IMPLICIT) and zeroed where the backward sweep
    starts, at each call of STEP_B. Arrays typed by IMPLICIT and dimensioned by DIMENSION
    (X, W): their derivatives too (they were scalars, xd(i) a call, in both modes)."""
    dot_product(IMPLICIT_LOCALS, "impl(y)/(x)", [real("x", (4,)), real("y"), integer("n", 4)])
    case, _ = dot_product(IMPLICIT_LOCALS, "impl(y)/(x)", [real("x", (4,)), real("y"), integer("n", 4)],
                          nooptim=UNMERGED)
    text = lines(case.adjoint.text)
    assert "real(8) :: tb" in text and "tb = 0.0d0" in text and "dimension xb(n), wb(2)" in text, case.adjoint.text
    check = AdjointCase(IMPLICIT_LOCALS, "fortran", "impl(y)/(x)", [real("x", (4,)), real("y"), integer("n", 4)]
                        ).compiled_check(tmp_path, flags=("-O2",), checked=True)
    assert check.error < 1e-12 and check.interpreter_error < 1e-13, check.report()


REDUCTIONS = """
subroutine red(a, b, c, s, n)
  integer n
  real(8) a(n), b(n), c(n), s
  s = maxval(a) + product(b) + norm2(c) + dot_product(a, c) + minval(b, mask=b > 1) + sum(a*b)
  s = s * sum(c(2:n)) 
end subroutine
"""


def test_reductions():
    dot_product(REDUCTIONS, "red(s)/(a b c)", [real("a", (5,)), real("b", (5,)), real("c", (5,)), real("s"),
                                               integer("n", 5)])


WHOLE = """
subroutine whole(a, b, c, x, y, n)
  integer n
  real(8) a(n), b(n), c(n), x, y
  a = b*x + c
  b = a*a
  c(2:n) = sin(c(2:n))*x
  a(1:n-1) = a(1:n-1) * c(2:n)
  y = sum(a) + sum(b*c)
end subroutine
"""
WHOLE_ARGS = [real("a", (5,)), real("b", (5,)), real("c", (5,)), real("x"), real("y"), integer("n", 5)]


def test_whole_arrays_and_sections_pushed():
    """b = a*a overwrites b, c(2:n) = ... the section: the values the backward sweep reads
    are pushed whole, or as the exact section (PUSHREAL8ARRAY(c(2:n), size(c(2:n))))."""
    case, check = dot_product(WHOLE, "whole(y)/(a b c x)", WHOLE_ARGS)
    text = case.adjoint.text.lower()
    assert "call pushreal8array(c(2:n), size(c(2:n)))" in text, text
    assert "call popreal8array(c(2:n), size(c(2:n)))" in text, text
    assert "call pushreal8array(b, size(b))" in text, text
    assert check.pushed_bytes == 8 * 5 + 8 * 4, check.pushed_bytes   # b whole, then c(2:5)


OVERLAP = """
subroutine ov(a, x, y, n)
  integer n
  real(8) a(n), x, y
  a(2:n) = a(1:n-1)*x
  a = a + sum(a)*x
  a(n:2:-1) = a(1:n-1)*a(2:n)
  y = sum(a*a)
end subroutine
"""


def test_overlapping_lhs_through_an_array_temporary():
    """The lhs in its rhs other than elementwise: LHSb moves whole into an allocatable V
    before the increments (the paper's temporary, on arrays)."""
    case, _ = dot_product(OVERLAP, "ov(y)/(a x)", [real("a", (6,)), real("x"), real("y"), integer("n", 6)])
    assert "real(8), allocatable :: tempb(:)" in case.adjoint.text, case.adjoint.text
    assert "tempb = ab(2:n)" in case.adjoint.text


MOVES = """
subroutine mv(m, v, x, y, n)
  integer n
  real(8) m(n, n), v(n), x, y, p(n, n), w(n), u(n)
  p = matmul(m, transpose(m)) * x
  w = matmul(p, v) + matmul(v, m) + cshift(v, 2) * x
  u = sum(spread(v, 2, n) * m, dim=2) + sum(reshape(m, [n*n]))
  p = reshape(m, [n, n]) * spread(w, 1, n)
  y = dot_product(u, w) + sum(p) + sum(spread(x, 1, n)) + sum(transpose(m)*m)
end subroutine
"""


def test_transposed_moves():
    """TRANSPOSE, SPREAD (SUM along its dim), CSHIFT (shifted back), RESHAPE (to the
    argument's shape) and MATMUL (matrix-matrix, matrix-vector, vector-matrix)."""
    case, _ = dot_product(MOVES, "mv(y)/(m v x)", [real("m", (4, 4)), real("v", (4,)), real("x"), real("y"),
                                                    integer("n", 4)])
    text = case.adjoint.text
    assert "matmul(transpose(m), " in text and "cshift(" in text and "sum(" in text, text


SHIFTS = """
subroutine sh(x, z, v, y, n)
  integer n
  real(8) x(n), z, v(n), y, w(n)
  w = eoshift(x, 2, z) * x + eoshift(x*z, -1) + pack(x, x > 1.0d0, v*z)
  y = sum(w*w) + sum(pack(x, x < 1.0d0)) * z + sum(eoshift(x, 1, z*z)) + sum(pack(x*x, x > 1, v))
end subroutine
"""


def test_eoshift_and_pack():
    """EOSHIFT: the array gets VAL shifted back, the boundary the VAL of the places it filled;
    PACK: the array gets VAL unpacked on the mask, the vector the VAL after COUNT(mask);
    broadcast into SUM and not."""
    case, _ = dot_product(SHIFTS, "sh(y)/(x z v)", [real("x", (6,)), real("z"), real("v", (6,)), real("y"),
                                                     integer("n", 6)])
    assert "unpack(" in case.adjoint.text and "eoshift(" in case.adjoint.text


@pytest.mark.parametrize("body, what", [
    ("a = [x, x, x, (x, i = 1, n - 3)]", "the adjoint of an array constructor of other than scalars, or under a mask"),
    ("a(1:2) = a([3, 3])*x", "the adjoint of an array read through a vector subscript other than one rank-1 "
                             "integer array"),
    ("a = eoshift(reshape(a, [1, 5]), 1, x, dim=2)*x", "the adjoint of eoshift other than of a rank-1 array without dim="),
])
def test_refused_with_line(body, what):
    source = f"subroutine r(a, x, n)\n  integer n\n  real(8) a(n), x\n  {body}\nend subroutine\n"
    with pytest.raises(UnsupportedError) as e:
        AdjointCase(source, "fortran", "r(a)/(a x)", [real("a", (5,)), real("x"), integer("n", 5)])
    assert re.match(r".*:4: adjoint mode does not support " + re.escape(what) + " yet", str(e.value)), str(e.value)


VECTOR_SUBSCRIPTS = """
subroutine vs(a, b, s, x)
  real(8) a(5), b(4), s, x
  integer idx(4)
  idx = [2, 5, 2, 2]
  b = a(idx) * x
  s = sum(a(idx)) + sum(a(idx) * b)
end subroutine
"""


def test_vector_subscript_repeating_an_element():
    """a(idx) with idx = [2, 5, 2, 2]: a(2)'s adjoint gets three contributions, one element at
    a time (one array assignment ab(idx) = ab(idx) + v would keep one)."""
    case, _ = dot_product(VECTOR_SUBSCRIPTS, "vs(b s)/(a x)", [real("a", (5,)), real("b", (4,)), real("s"),
                                                                real("x")])
    assert "ab(idx(ii)) = ab(idx(ii)) + " in case.adjoint.text, case.adjoint.text


LOGICAL_AND_CHARACTER = """
subroutine g(x, flag, mode)
  real(8) x
  logical flag
  character(len=*) mode
  if (flag .and. mode(1:1) == 'a') then
    x = x*x
  else
    x = sin(x)
  end if
end subroutine

subroutine lc(x)
  real(8) x
  logical flag
  character(len=4) mode
  integer i
  do i = 1, 4
    flag = x > 0.5d0
    mode = 'abcd'(i:i)
    call g(x, flag, mode)
  end do
end subroutine
"""


def test_implied_do_of_constant_bounds_in_a_constructor():
    """[x, (x*i, (a(j)*i, j = 1, 2), i = 1, 2), y]: the implied DOs are taken apart, item k of
    the constructor's adjoint going to its own element."""
    source = ("subroutine c(a, x, y)\n  real(8) a(7), x, y\n  integer i, j\n"
              "  a = [x, (x*i, (a(j)*i, j = 1, 2), i = 1, 2)] * y\nend subroutine\n")
    dot_product(source, "c(a)/(a x y)", [real("a", (7,)), real("x"), real("y")])


def test_logical_and_character_saved():
    """flag and mode, overwritten at each iteration and read by g_b: pushed as a Boolean and
    as a CHARACTER array of their length."""
    case, _ = dot_product(LOGICAL_AND_CHARACTER, "lc(x)/(x)", [real("x")])
    assert "call pushboolean(flag)" in case.adjoint.text and "call pushcharacterarray(mode, 4)" in case.adjoint.text, \
        case.adjoint.text


COMPILED = {
    "logical and character saved": (LOGICAL_AND_CHARACTER, "lc(x)/(x)", [real("x")]),
    "vector subscripts": (VECTOR_SUBSCRIPTS, "vs(b s)/(a x)", [real("a", (5,)), real("b", (4,)), real("s"),
                                                                real("x")]),
    "fig. 14": (FIG14, FIG14_HEAD, FIG14_ARGS),
    "WHERE / ELSEWHERE": (WHERE, "w(s)/(a b r)", [real("a", (6,)), real("b", (6,)), real("t", (6,)),
                                                  real("r"), real("s"), integer("n", 6)]),
    "reductions": (REDUCTIONS, "red(s)/(a b c)", [real("a", (5,)), real("b", (5,)), real("c", (5,)), real("s"),
                                                  integer("n", 5)]),
    "arrays pushed": (WHOLE, "whole(y)/(a b c x)", WHOLE_ARGS),
    "eoshift and pack": (SHIFTS, "sh(y)/(x z v)", [real("x", (6,)), real("z"), real("v", (6,)), real("y"),
                                                   integer("n", 6)]),
    "WHERE saving values": (WHERE_SAVED, "ws(s)/(a b r)", [real("a", (6,)), real("b", (6,)), real("t", (6,)),
                                                           real("r"), real("s"), integer("n", 6)]),
    "WHERE whose mask is written": (WHERE_MOVING_MASK, "wm(s)/(a b x)", WHERE_MOVING_MASK_ARGS),
    "WHERE nested": (WHERE_NESTED, "wn(s)/(a x)", [real("a", (8,)), real("x"), real("s"), integer("n", 8)]),
    "moves": (MOVES, "mv(y)/(m v x)", [real("m", (4, 4)), real("v", (4,)), real("x"), real("y"), integer("n", 4)]),
    "overlapping lhs": (OVERLAP, "ov(y)/(a x)", [real("a", (6,)), real("x"), real("y"), integer("n", 6)]),
}


@pytest.mark.parametrize("name", sorted(COMPILED))
def test_compiled(name, tmp_path):
    """gfortran -O2 with the runtime (PUSHREAL8ARRAY's Fortran entry point), then once under
    -fcheck=all: the dot-product test, and X̄ equal to the interpreted adjoint's."""
    source, head, args = COMPILED[name]
    checked = name not in ("moves", "eoshift and pack")   # their -fcheck=all build nears the harness's 20 s
    check = AdjointCase(source, "fortran", head, args).compiled_check(tmp_path, flags=("-O2",), checked=checked)
    assert check.error < 1e-12, check.report()
    assert check.interpreter_error < 1e-13, check.report()


def test_active_array_constructor():
    source = ("subroutine f(x, a, y)\n  real(8) x, a(3), y\n  a = [x*x, sin(x), a(1)] * a\n"
              "  y = sum(a) + sum([x, a(2)])\nend subroutine\n")
    dot_product(source, "f(y)/(x a)", [real("x"), real("a", (3,)), real("y")])


def test_constant_array_constructor():
    """A passive constructor times a scalar: the scalar's adjoint is the SUM over it (the
    program test_adjoint.py refused before array adjoints)."""
    source = "subroutine f(x, y)\n  real(8) x, y\n  y = sum(x*[1.0d0, 2.0d0]) + y*x\nend subroutine\n"
    case, _ = dot_product(source, "f(y)/(x y)", [real("x"), real("y")], nooptim=UNMERGED)
    assert "xb = xb + sum((/ 1.0d0, 2.0d0 /)*yb)" in case.adjoint.text, case.adjoint.text


GLOBALS = """
module m
  real(8) :: w(3), s
end module

subroutine f(x, y)
  use m
  real(8) x, y, c, k(2)
  common /blk/ c, k
  s = x*2
  c = s*x
  k(1) = c + x
  w = [1.0d0, 2.0d0, 3.0d0] * x
  w = w*s + k(1)
  w(2) = w(2)*w(1) + s
  y = sum(w) * s * c + k(1)
end subroutine
"""


def test_module_and_common_globals():
    """Module variables (their adjoints in m_diff), COMMON /blk/ (/blk_b/): the head zeroes
    the adjoints of the globals before its backward sweep, w pushed whole where overwritten."""
    case, check = dot_product(GLOBALS, "f(y)/(x)", [real("x"), real("y")], nooptim=UNMERGED)
    text = lines(case.adjoint.text)
    assert "module m_diff" in text and "real(8) :: wb(3), sb" in text, case.adjoint.text
    assert "common /blk_b/ cb, kb" in text and "use m_diff" in text, case.adjoint.text
    backward = text[text.index("xb = 0.0d0"):]
    assert {"cb = 0.0d0", "kb = 0.0d0", "sb = 0.0d0", "wb = 0.0d0"} <= set(backward[:6]), case.adjoint.text
    assert "call pushreal8array(w, size(w))" in text


COMMON_SAVE = """
subroutine f(x, y, n)
  integer n, i
  real(8) x(n), y, c, k(2), acc
  common /blk/ c, k
  save acc
  c = 0
  acc = 1
  do i = 1, n
    c = c + x(i)*k(1)
    acc = acc * sin(c)
  end do
  k(2) = c*acc
  y = k(2)*c
end subroutine
"""


def test_common_and_save_in_a_loop():
    """COMMON members and a SAVE local overwritten in a loop: their values pushed, their
    adjoints zeroed by the head."""
    case, check = dot_product(COMMON_SAVE, "f(y)/(x)", [real("x", (5,)), real("y"), integer("n", 5)])
    assert "save acc" in case.adjoint.text.lower() or "save :: acc" in case.adjoint.text.lower(), case.adjoint.text
    assert check.pushed_bytes > 0


@pytest.mark.parametrize("which", ["COMMON and SAVE", "module and COMMON"])
def test_globals_compiled(which, tmp_path):
    """/blk/ and /blk_b/, m and m_diff, with gfortran -O2, then -fcheck=all (the programs
    read no global before writing it: the tangent's run leaves them changed)."""
    source, args = {"COMMON and SAVE": (COMMON_SAVE, [real("x", (5,)), real("y"), integer("n", 5)]),
                    "module and COMMON": (GLOBALS, [real("x"), real("y")])}[which]
    check = AdjointCase(source, "fortran", "f(y)/(x)", args).compiled_check(tmp_path, flags=("-O2",), checked=True)
    assert check.error < 1e-12 and check.interpreter_error < 1e-13, check.report()


MODULE_PROCEDURE = """
module physics
  implicit none
  real(8) :: scale
contains
  subroutine g(u, v)
    real(8) u, v, t
    t = scale * sin(u)
    scale = scale * u
    v = t * scale + u
  end subroutine
end module
"""


def test_module_procedure_with_module_variable():
    """A module procedure's P_b lives in m_diff next to the adjoints of the module's
    variables (its statuses were looked up under the wrong name before); the head zeroes the
    adjoint of the module variable (`scale:out` in the header)."""
    case, _ = dot_product(MODULE_PROCEDURE, "g(v)/(u)", [real("u"), real("v")])
    assert case.adjoint.statuses == {"u": "out", "v": "in-zero", "scale": "out"}
    assert "public :: scaleb, g_b" in case.adjoint.text


SHAPES = """
module shapes
  type point
    real(8) :: x, y
    real(8) :: w(3)
    integer :: tag
  end type
end module
"""
STRUCTURES = SHAPES + """
subroutine f(a, s, n)
  use shapes
  integer n, i
  real(8) a(n), s
  type(point) p, q(2)
  p%tag = n
  p%x = a(1)*a(2)
  p%y = sin(p%x) + a(3)
  p%w = a(1:3)*p%x
  q(1)%x = p%y*p%x
  q(2)%w(2) = q(1)%x + p%w(2)
  p%x = p%x*p%y
  p%w(1) = p%w(1) * p%w(2)
  q(:)%y = p%w(2:3) * a(4)
  s = p%x + q(2)%w(2)*p%w(3) + sum(p%w) + sum(q%y)
end subroutine
"""


def test_derived_type_components():
    """Components of structures and of arrays of structures: pb%x, qb(2)%w(2), qb(:)%y, in
    the T_DIFF type of the tangent (point_diff in shapes_diff); components pushed."""
    case, _ = dot_product(STRUCTURES, "f(s)/(a)", [real("a", (5,)), real("s"), integer("n", 5)])
    text = lines(case.adjoint.text)
    assert "type(point_diff) :: pb, qb(2)" in text, case.adjoint.text
    assert "call pushreal8(p%w(1))" in text and "call popreal8(p%w(1))" in text
    assert "qb(2)%w(2) = qb(2)%w(2) + p%w(3)*sb" in text


COPIES = SHAPES + """
subroutine f(a, s, n)
  use shapes
  integer n
  real(8) a(n), s, s1
  type(point) p, q(2)
  p%tag = n
  p%x = a(1)*a(2)
  p%y = sin(p%x) + a(3)
  p%w = a(1:3)*p%x
  q(2)%x = a(4)
  q(2)%y = a(5)*a(4)
  q(2)%w = a(3:5)
  q(2)%tag = 1
  q(1) = p
  s1 = q(1)%x * p%y
  p = q(2)
  s = s1 + p%x*p%w(1)*p%y + q(1)%w(2)*q(1)%y
end subroutine
"""


def test_whole_structure_copies():
    """`q(1) = p` and `p = q(2)`: adjoints added and reset component by component (the
    components of point_diff), p pushed component by component where overwritten."""
    case, _ = dot_product(COPIES, "f(s)/(a)", [real("a", (5,)), real("s"), integer("n", 5)])
    text = lines(case.adjoint.text)
    assert "qb(2)%w = qb(2)%w + pb%w" in text and "pb%x = pb%x + qb(1)%x" in text, case.adjoint.text
    assert "call pushinteger4(p%tag)" in text and "call popinteger4(p%tag)" in text
    assert "call pushreal8array(p%w, size(p%w))" in text


def test_overlapping_structure_copy_refused():
    source = COPIES.replace("  q(1) = p\n", "  q(1) = p\n  q(1) = q(n-3)\n")
    with pytest.raises(UnsupportedError, match=r"t\.f90:\d+: adjoint mode does not support assigning a whole array "
                                               r"of structures, or structures that may overlap"):
        AdjointCase(source, "fortran", "f(s)/(a)", [real("a", (5,)), real("s"), integer("n", 5)])


@pytest.mark.parametrize("which", ["components", "copies"])
def test_structures_compiled(which, tmp_path):
    source = {"components": STRUCTURES, "copies": COPIES}[which]
    check = AdjointCase(source, "fortran", "f(s)/(a)", [real("a", (5,)), real("s"), integer("n", 5)]) \
        .compiled_check(tmp_path, flags=("-O2",), checked=True)
    assert check.error < 1e-12 and check.interpreter_error < 1e-13, check.report()


ALLOCATABLE = """
subroutine al(x, y, n)
  integer n
  real(8) x(n), y
  real(8), allocatable :: t(:), w(:, :)
  allocate(t(n))
  allocate(w(n, 2))
  t = sin(x)
  w(:, 1) = t * x
  deallocate(t)
  w(:, 2) = w(:, 1) * x(n)
  y = sum(w*w)
  deallocate(w)
end subroutine
"""


def test_allocatable_locals():
    """The adjoint allocated with its array in the forward sweep; the deallocations deferred
    to the backward sweep, which reads t (w's partial) after the original freed it."""
    case, _ = dot_product(ALLOCATABLE, "al(y)/(x)", [real("x", (4,)), real("y"), integer("n", 4)])
    text = lines(case.adjoint.text)
    forward, backward = text[:text.index("xb = 0.0d0")], text[text.index("xb = 0.0d0"):]
    assert forward.count("allocate(t(n))") == 1 and "allocate(tb(n))" in forward and "allocate(wb(n, 2))" in forward
    assert not any(line.startswith("deallocate") for line in forward), case.adjoint.text
    assert backward[-5:-1] == ["deallocate(wb)", "deallocate(w)", "deallocate(tb)", "deallocate(t)"], case.adjoint.text


def test_allocation_in_a_loop_refused():
    source = ("subroutine al(x, y, n)\n  integer n, i\n  real(8) x(n), y\n  real(8), allocatable :: t(:)\n"
              "  y = 0\n  do i = 1, n\n    allocate(t(i))\n    t = x(1:i)*y\n    y = y + sum(t)\n"
              "    deallocate(t)\n  end do\nend subroutine\n")
    with pytest.raises(UnsupportedError, match=r"t\.f90:7: adjoint mode does not support allocating or deallocating t "
                                               r"inside a loop or a branch yet"):
        AdjointCase(source, "fortran", "al(y)/(x)", [real("x", (4,)), real("y"), integer("n", 4)])


@pytest.mark.parametrize("attribute", ["allocatable", "pointer"])
def test_allocatable_compiled(attribute, tmp_path):
    source = ALLOCATABLE.replace("allocatable ::", f"{attribute} ::")
    check = AdjointCase(source, "fortran", "al(y)/(x)", [real("x", (4,)), real("y"), integer("n", 4)]) \
        .compiled_check(tmp_path, flags=("-O2",), checked=True)
    assert check.error < 1e-12 and check.interpreter_error < 1e-13, check.report()


MEMORY = """
subroutine ev(x, state, hist, n, y)
  integer n, t, i
  real(8) x(2), state(n), hist(*), y
  do t = 1, 3
    do i = 1, n
      state(i) = state(i)*x(1) + sin(x(2)*state(i))
      hist(i) = hist(i) + 0.5d0*state(i)
    end do
  end do
  y = 0
  do i = 1, n
    y = y + state(i)*hist(i)
  end do
end subroutine
"""
MEMORY_ARGS = [real("x", (2,)), real("state", (4,)), real("hist", (4,)), integer("n", 4), real("y")]


def test_memory_arguments():
    """state and hist hold active values but are no independent nor dependent: their adjoints
    are arguments (the tangent's contract); stateb is zeroed by ev_b (explicit shape,
    `state:out`), histb passed zeroed by the caller (assumed size; ev writes hist, so
    `hist:in-out`: the zero is read as the adjoint of its last value), as the .msg says."""
    case, _ = dot_product(MEMORY, "ev(y)/(x)", MEMORY_ARGS)
    assert case.adjoint.statuses["state"] == "out" and case.adjoint.statuses["hist"] == "in-out"
    assert "subroutine ev_b(x, xb, state, stateb, hist, histb, n, y, yb)" in case.adjoint.text
    assert any("the caller passes histb, a zeroed buffer of the size of hist" in m for m in case.adjoint.messages)


def test_memory_arguments_compiled(tmp_path):
    check = AdjointCase(MEMORY, "fortran", "ev(y)/(x)", MEMORY_ARGS).compiled_check(tmp_path, flags=("-O2",),
                                                                                      checked=True)
    assert check.error < 1e-12 and check.interpreter_error < 1e-13, check.report()


def test_function_writing_a_global_resets_its_adjoint():
    """Found by the corpus (g09): a function called in an expression resets an active COMMON
    variable; its adjoint is reset where the backward sweep passes the call (in the branch)."""
    from test_tangent_programs import HERE
    name = "g09_common_function_reset.f90"
    case, _ = dot_product((HERE / name).read_text(), "f(y)/(x)", [real("x"), real("y"), integer("n", 3)])
    assert re.search(r"if \(branch == 0\) then\s+gb = 0\.0d0\s+else", case.adjoint.text), case.adjoint.text


STRUCTURE_FORMAL = """
module shapes
  type point
    real(8) :: x, y
    integer :: tag
  end type
end module
subroutine f(p, y)
  use shapes
  type(point) p
  real(8) y
  y = p%x * p%y + p%tag
end subroutine
"""


def test_structure_formal_zeroed_by_component(tmp_path):
    """An independent structure's adjoint (type(point_diff)) is zeroed component by
    component (`pb = 0.0` is no Fortran); gfortran accepts the adjoint."""
    result = adspec.differentiate(STRUCTURE_FORMAL, head="f(y)/(p)", mode="adjoint", lang="fortran", filename="t.f90")
    text = lines(result.text)
    assert "pb%x = 0.0d0" in text and "pb%y = 0.0d0" in text and "pb = 0.0" not in text, result.text
    if shutil.which("gfortran"):
        (tmp_path / "all.f90").write_text(STRUCTURE_FORMAL + result.text)
        done = subprocess.run(["gfortran", "-fsyntax-only", "all.f90"], cwd=tmp_path, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr


def test_pointer_array_allocated():
    """A local POINTER array allocated and deallocated: as an allocatable (A-allocate)."""
    source = ALLOCATABLE.replace("real(8), allocatable :: t(:), w(:, :)", "real(8), pointer :: t(:), w(:, :)")
    case, _ = dot_product(source, "al(y)/(x)", [real("x", (4,)), real("y"), integer("n", 4)])
    assert "real(8), pointer :: tb(:)" in lines(case.adjoint.text) or "real(8), pointer :: tb(:), wb(:, :)" in \
        lines(case.adjoint.text), case.adjoint.text


def test_allocated_query_refused():
    """ALLOCATED(t) after the DEALLOCATE the forward sweep defers would answer otherwise."""
    source = ALLOCATABLE.replace("  deallocate(w)\n", "  deallocate(w)\n  if (allocated(t)) y = 2*y\n")
    with pytest.raises(UnsupportedError, match=r"t\.f90:6: adjoint mode does not support asking whether t is allocated"):
        AdjointCase(source, "fortran", "al(y)/(x)", [real("x", (4,)), real("y"), integer("n", 4)])
