"""The Fortran and checkpoint pieces of adjoint mode (issue 16), each proven by the
dot-product test in the interpreter, most of them compiled too (-O2, then -fcheck=all or
the sanitizers):
- `$AD CHECKPOINT-START` / `$AD CHECKPOINT-END` around a piece of code (TAPENADE.md
  "Directives"; paper 4.10, 5.4; rules/adjoint/pieces.py), Fortran and C, and the peak of
  the stack it lowers on a time loop;
- the snapshot of a call the forward sweep drops, and the CKPdataFlow re-analysis of a
  procedure only checkpointed calls reach (analyses/snapshots.py, analyses/diffliveness.py);
- functions called in split mode (f_fwd returns the value, f_bwd takes its adjoint);
- READ, WRITE, STOP, Fortran pointer assignment (rules/adjoint/statements.py), RESHAPE with
  pad= and order= (rules/adjoint/array_moves.py), FORALL (rules/adjoint/forall.py)."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import adspec
from adspec.engine.errors import UnsupportedError
from adjoint_check import RUNTIME, AdjointCase

HERE = Path(__file__).resolve().parent / "adjoint_programs"
TEXT = (HERE / "pieces.f90").read_text()
TOL = 1e-12


def real(name, shape=()):
    return (name, "real", shape, None)


def integer(name, value):
    return (name, "int", (), value)


def relax_args(nt):
    return [integer("n", 6), integer("nt", nt), real("u", (6,)), real("c"), real("e")]


def checked(case):
    check = case.check()
    assert check.stack_state == 0 and check.error < TOL, check.report()
    return check


def test_time_loop_piece():
    """The body of the time loop is a piece: the forward sweep runs it plain (no push inside
    it), the backward sweep restores its snapshot and calls relax_ckp1_b; a piece after the
    loop, and one reading what the previous one computed."""
    case = AdjointCase(TEXT, "fortran", "relax(e u)/(u c)", relax_args(4), filename="pieces.f90")
    checked(case)
    text = case.adjoint.text
    assert re.search(r"call relax_ckp1_b\(", text) and "subroutine relax_ckp1_b(" in text
    start = text.index("subroutine relax_b(")
    forward = text[start:text.index("cb = 0.0d0", start)]
    assert not re.search(r"call relax_ckp\d\(", text) and "pushcontrol1b" not in forward and "u(i) = t*cos(t) + u(i)" in forward


def test_piece_lowers_the_peak_stack():
    """Without the directives each time step leaves its whole trajectory on the stack; with
    them, a snapshot per step and one step's trajectory at a time."""
    with_pieces = checked(AdjointCase(TEXT, "fortran", "relax(e u)/(u c)", relax_args(12), filename="pieces.f90"))
    plain = checked(AdjointCase(TEXT.replace("!$AD", "!"), "fortran", "relax(e u)/(u c)", relax_args(12),
                                filename="pieces.f90"))
    # 1345 against 2420 bytes on 2026-11-25 (the plain adjoint pushes its sections whole since)
    assert with_pieces.peak_bytes < plain.peak_bytes * 0.6, (with_pieces.peak_bytes, plain.peak_bytes)


def test_function_pieces_back_to_back():
    """Pieces in a function that write its value, the second starting where the first ends."""
    case = AdjointCase(TEXT, "fortran", "fval(fval)/(x y)", [real("x"), real("y")], filename="pieces.f90")
    checked(case)
    assert "fval_ckp1_b" in case.adjoint.text and "fval_ckp2_b" in case.adjoint.text


@pytest.mark.skipif(not RUNTIME.is_dir(), reason="no runtime")
def test_pieces_compiled(tmp_path):
    case = AdjointCase(TEXT, "fortran", "relax(e u)/(u c)", relax_args(5), filename="pieces.f90")
    check = case.compiled_check(tmp_path, flags=("-O2",), checked=True)
    assert check.error < TOL and check.interpreter_error < 1e-13, check.report()


C_ARGS = [real("u", (8,)), real("c"), integer("n", 8), integer("nt", 3), real("e", (1,))]


@pytest.mark.skipif(not RUNTIME.is_dir(), reason="no runtime")
def test_c_pieces(tmp_path):
    """C: `/* $AD CHECKPOINT-START */` ... `/* $AD CHECKPOINT-END */` (the END closing the
    loop body is a comment); the piece's function takes scalars by address, a loop index
    copied in and out; the peak of the stack is lower than without the directives."""
    text = (HERE / "pieces.c").read_text()
    case = AdjointCase(text, "c", "relax(e u)/(u c)", C_ARGS, filename="pieces.c")
    with_pieces = checked(case)
    assert "static void relax_ckp1_b(int *i_at, int *k_at, double *t, double *tb," in case.adjoint.text
    plain = checked(AdjointCase(text.replace("$AD", "AD"), "c", "relax(e u)/(u c)", C_ARGS, filename="pieces.c"))
    assert with_pieces.peak_bytes < plain.peak_bytes, (with_pieces.peak_bytes, plain.peak_bytes)
    check = case.compiled_check(tmp_path, flags=("-O2",), checked=True)
    assert check.error < TOL and check.interpreter_error < 1e-13, check.report()


def test_pieces_split():
    """-nocheckpoint: the pieces' subroutines are called split (P_fwd, P_bwd) like any call."""
    case = AdjointCase(TEXT, "fortran", "relax(e u)/(u c)", relax_args(3), filename="pieces.f90",
                       nooptim=frozenset({"checkpoint"}))
    checked(case)
    assert "relax_ckp1_fwd" in case.adjoint.text


BODY = """subroutine g(x, y)
  real(8) :: x, y
  integer :: i
{}
end subroutine
"""


@pytest.mark.parametrize("piece, line, what", [
    ("  !$AD CHECKPOINT-START\n  y = x\n", 5, "CHECKPOINT-START without a CHECKPOINT-END in the same block"),
    ("  y = x\n  !$AD CHECKPOINT-END\n  y = y * x\n", 6, "CHECKPOINT-END without a CHECKPOINT-START"),
    ("  !$AD CHECKPOINT-START\n  if (x > 0) goto 10\n  y = x\n  !$AD CHECKPOINT-END\n10 y = y * x\n", 5,
     "a jump out of a \\$AD CHECKPOINT piece"),
    ("  do i = 1, 2\n  !$AD CHECKPOINT-START\n  y = y * x\n  if (y > 1) exit\n  !$AD CHECKPOINT-END\n  end do\n", 7,
     "EXIT of a loop around"),
    ("  !$AD CHECKPOINT-START\n  y = x\n  return\n  !$AD CHECKPOINT-END\n", 6, "RETURN inside"),
])
def test_piece_refusals(piece, line, what):
    with pytest.raises(UnsupportedError, match=rf"g.f90:{line}: adjoint mode does not support .*{what}"):
        adspec.differentiate(BODY.format(piece), head="g(y)/(x)", mode="adjoint", lang="fortran", filename="g.f90")


def test_tangent_ignores_pieces():
    out = adspec.differentiate(TEXT, head="relax(e u)/(u c)", mode="tangent", lang="fortran", filename="pieces.f90")
    assert "ckp" not in out.text


# --- functions called in split mode ----------------------------------------------------------
SPLIT_FUNCTION = (HERE / "split_function.f90").read_text()
SPLIT_ARGS = [real("x", (3,)), real("y"), integer("n", 3)]


def test_function_called_split():
    """g_fwd returns g's value (a function with g's RESULT), g_bwd takes its adjoint last;
    the same program without the directive (g_b, joint) gives the same adjoints."""
    case = AdjointCase(SPLIT_FUNCTION, "fortran", "f(y)/(x y)", SPLIT_ARGS, filename="split_function.f90")
    checked(case)
    joint = AdjointCase(SPLIT_FUNCTION.replace("!$AD NOCHECKPOINT", "!"), "fortran", "f(y)/(x y)", SPLIT_ARGS,
                        filename="split_function.f90")
    assert "call g_b(" in joint.adjoint.text
    (split_bar, _), (joint_bar, _) = case.run_adjoint(), joint.run_adjoint()
    for name in split_bar:
        assert np.allclose(split_bar[name], joint_bar[name], rtol=1e-13, atol=0), name
    text = case.adjoint.text
    assert re.search(r"function g_fwd\(x, a\) result\(r\)", text) and "subroutine g_bwd(x, xb, a, ab, rb)" in text
    assert re.search(r"= g_fwd\(x\(i\), y\)", text) and "real(8) :: g_fwd" in text and "g_b(" not in text


@pytest.mark.skipif(not RUNTIME.is_dir(), reason="no runtime")
def test_function_called_split_compiled(tmp_path):
    case = AdjointCase(SPLIT_FUNCTION, "fortran", "f(y)/(x y)", SPLIT_ARGS, filename="split_function.f90")
    check = case.compiled_check(tmp_path, flags=("-O2",), checked=True)
    assert check.error < TOL and check.interpreter_error < 1e-13, check.report()


@pytest.mark.skipif(not RUNTIME.is_dir(), reason="no runtime")
def test_c_function_called_split(tmp_path):
    """C: g_fwd ends with g's return, g_bwd takes the value's adjoint by value, last."""
    case = AdjointCase((HERE / "split_function.c").read_text(), "c", "f(y)/(x y)", [real("x", (3,)), real("y", (1,))],
                       filename="split_function.c", nooptim=frozenset({"checkpoint"}))
    checked(case)
    assert "static double g_fwd(double x, double a)" in case.adjoint.text
    assert "g_bwd(*y, yb, x[1], &xb[1], g_result0b);" in case.adjoint.text
    check = case.compiled_check(tmp_path, flags=("-O2",), checked=True)
    assert check.error < TOL and check.interpreter_error < 1e-13, check.report()


# --- the snapshot of a call the forward sweep does not run ----------------------------------
DEAD_CALL = """subroutine g(x, v, y)
  real(8) :: x, v, y
  v = v + 1
  y = y + v*x
end subroutine
subroutine f(x, y)
  real(8) :: x, y, v
  v = 3
  y = v*x
  call g(x, v, y)
  y = y * 2
end subroutine
"""


def test_no_snapshot_of_what_only_a_dropped_call_writes():
    """call g is not diff-live: the forward sweep drops it, so v, which g writes and the
    adjoint of y = v*x reads, keeps its value until g_b runs: no push nor pop of v in f_b
    (g_b restores the v it changes itself)."""
    case = AdjointCase(DEAD_CALL, "fortran", "f(y)/(x)", [real("x"), real("y")])
    checked(case)
    caller = case.adjoint.text.split("subroutine f_b(")[1]
    assert "call g_b(" in caller and "real8(v)" not in caller, caller


# --- I/O and STOP ------------------------------------------------------------------------------
IO_ARGS = [real("x"), real("y"), integer("n", 2)]


def test_read_write_stop():
    """The READ runs in the forward sweep with what it overwrites saved; its items' adjoints
    are zero before it; WRITE and STOP stay in the forward sweep."""
    case = AdjointCase((HERE / "io_stop.f90").read_text(), "fortran", "f(y)/(x)", IO_ARGS, filename="io_stop.f90")
    checked(case)
    text = case.adjoint.text
    assert re.search(r"call pushreal8\(t\)\n\s*call pushreal8\(a\(2\)\)\n\s*read\(line, \*\) t, a\(2\)", text), text
    assert re.search(r"call popreal8\(a\(2\)\)\n\s*call popreal8\(t\)\n\s*tb = 0.0d0\n\s*ab\(2\) = 0.0d0", text), text
    assert "write(*, *) 'y ='" in text and "stop 'negative n'" in text
    assert any("READ overwrites t" in m for m in case.adjoint.messages), case.adjoint.messages


@pytest.mark.skipif(not RUNTIME.is_dir(), reason="no runtime")
def test_read_write_stop_compiled(tmp_path):
    case = AdjointCase((HERE / "io_stop.f90").read_text(), "fortran", "f(y)/(x)", IO_ARGS, filename="io_stop.f90")
    check = case.compiled_check(tmp_path, flags=("-O2",), checked=True)
    assert check.error < TOL and check.interpreter_error < 1e-13, check.report()


# --- Fortran pointer assignment ------------------------------------------------------------------
POINTER_ARGS = [real("x", (3,)), real("y"), integer("n", 3)]


def test_pointer_assignment():
    """pb => xb with p => x in the forward sweep; x is also a dependent: the adjoint that
    comes in for it is not reset through pb (pb is not zeroed, xb is its memory)."""
    case = AdjointCase((HERE / "pointer_assign.f90").read_text(), "fortran", "f(x y)/(x)", POINTER_ARGS,
                       filename="pointer_assign.f90")
    checked(case)
    text = case.adjoint.text
    assert re.search(r"pb => xb\n\s*p => x\n", text) and re.search(r"qb => rowsb\(2, :\)\n\s*q => rows\(2, :\)", text)
    assert not re.search(r"^\s*pb = 0", text, re.M), text


@pytest.mark.skipif(not RUNTIME.is_dir(), reason="no runtime")
def test_pointer_assignment_compiled(tmp_path):
    case = AdjointCase((HERE / "pointer_assign.f90").read_text(), "fortran", "f(x y)/(x)", POINTER_ARGS,
                       filename="pointer_assign.f90")
    check = case.compiled_check(tmp_path, flags=("-O2",), checked=True)
    assert check.error < TOL and check.interpreter_error < 1e-13, check.report()


POINTER_AGAIN = """
subroutine g(x, z, y)
  real(8), target :: x(4), z(3)
  real(8) :: y
  real(8), pointer :: p(:)
  p => x(2:4:2)
  y = p(1) * p(2)
  p = p * y
  p => null()
  p => z
  y = y * sin(p(1)) + p(3)
  p(2) = p(2) * y
  p => x(1:3)
  y = y * p(3) + z(2)
end subroutine
"""


def test_pointer_associated_again(tmp_path):
    """A-pointer-again: the backward sweep takes p and pb back to each earlier association
    where the forward sweep moved them (p => z undone to null(), null() to x(2:4:2)): the
    partials read p(1), p(3) of the target they were computed on, and p = p * y increments
    xb(2:4:2). Leaving pb on x(1:3) would put those increments on other elements."""
    case = AdjointCase(POINTER_AGAIN, "fortran", "g(y x z)/(x z)", [real("x", (4,)), real("z", (3,)), real("y")],
                       filename="g.f90")
    checked(case)
    text = case.adjoint.text
    backward = text[text.index("p => x(1:3)"):]
    assert re.search(r"p => z\n\s*pb => zb\n", backward) and re.search(r"p => x\(2:4:2\)\n\s*pb => xb\(2:4:2\)", backward), \
        text
    if RUNTIME.is_dir():
        check = case.compiled_check(tmp_path, flags=("-O2",), checked=True)
        assert check.error < TOL and check.interpreter_error < 1e-13, check.report()


@pytest.mark.parametrize("body, line", [
    ("  if (y > 1) p => z\n  p => x\n  y = y * p(1)\n", 7),
    ("  do i = 1, 2\n    p => x(i:)\n    y = y * p(1) * z(i)\n  end do\n", 7),
])
def test_pointer_moved_refused(body, line):
    source = ("subroutine g(x, z, y)\n  real(8), target :: x(2), z(2)\n  real(8) :: y\n  real(8), pointer :: p(:)\n"
              "  integer :: i\n" + body + "end subroutine\n")
    with pytest.raises(UnsupportedError, match=rf"g.f90:{line}: adjoint mode does not support an active pointer "
                                               r"associated more than once"):
        adspec.differentiate(source, head="g(y)/(x z y)", mode="adjoint", lang="fortran", filename="g.f90")


# --- RESHAPE with pad= and order= -------------------------------------------------------------
RESHAPE_ARGS = [real("x", (5,)), real("p", (2,)), real("y")]


@pytest.mark.skipif(not RUNTIME.is_dir(), reason="no runtime")
def test_reshape_pad_order(tmp_path):
    """Transposed RESHAPE: the adjoint read in the order o, the source's part, pad's part
    summed over its repetitions; in the interpreter and compiled."""
    case = AdjointCase((HERE / "reshape_pad.f90").read_text(), "fortran", "f(y)/(x p)", RESHAPE_ARGS,
                       filename="reshape_pad.f90")
    checked(case)
    assert "order=(/ 2, 3, 1 /)" in case.adjoint.text   # the inverse of [3, 1, 2]
    check = case.compiled_check(tmp_path, flags=("-O2",), checked=True)
    assert check.error < TOL and check.interpreter_error < 1e-13, check.report()


# --- FORALL ------------------------------------------------------------------------------------------
FORALL_ARGS = [real("x", (4,)), real("y", (4,)), integer("n", 4)]


@pytest.mark.skipif(not RUNTIME.is_dir(), reason="no runtime")
def test_forall(tmp_path):
    """Independent FORALLs become DO nests with fresh indices (i keeps its value 2 for the
    loop after them); masks, strides, sections, two assignments in sequence."""
    case = AdjointCase((HERE / "forall.f90").read_text(), "fortran", "f(x y)/(x y)", FORALL_ARGS, filename="forall.f90")
    checked(case)
    assert "do i_forall = " in case.adjoint.text and "forall" not in case.adjoint.text.replace("_forall", "")
    check = case.compiled_check(tmp_path, flags=("-O2",), checked=True)
    assert check.error < TOL and check.interpreter_error < 1e-13, check.report()


@pytest.mark.parametrize("body, what", [
    ("  forall (i = 2:3) x(i) = x(i - 1) * y\n", "a FORALL whose iterations may read the x that others write"),
    ("  forall (i = 1:3, x(i) > 0)\n    x(i) = x(i) * y\n  end forall\n", "a FORALL whose assignments change its mask"),
    ("  forall (i = 1:3) x(i) = sum(x) * y\n", "a FORALL whose iterations may read the x that others write"),
])
def test_forall_refused(body, what):
    source = "subroutine g(x, y)\n  real(8) :: x(3), y\n  integer :: i\n" + body + "  y = sum(x)\nend subroutine\n"
    with pytest.raises(UnsupportedError, match=rf"g.f90:4: adjoint mode does not support {what}"):
        adspec.differentiate(source, head="g(y)/(x y)", mode="adjoint", lang="fortran", filename="g.f90")


# --- CKPdataFlow: the analyses inside a procedure only checkpointed calls reach -----------------
CKP_DATAFLOW = """subroutine g(x, y, z)
  real(8) :: x, y, z
  y = y * sin(x)
  z = x * 3
end subroutine
subroutine f(x, y)
  real(8) :: x, y, z
  call g(x, y, z)
  y = y * z
end subroutine
"""


def test_checkpointed_procedure_reanalysed():
    """g_b's backward sweep follows its forward sweep at once: nothing after g's exit reads
    y or z there (CKPdataFlow, 5.4), so g_b neither recomputes them nor saves y; the plain
    call in f's forward sweep still computes them for f."""
    case = AdjointCase(CKP_DATAFLOW, "fortran", "f(y)/(x y)", [real("x"), real("y")])
    checked(case)
    g_b = case.adjoint.text.split("subroutine g_b(")[1].split("end subroutine")[0]
    assert "z = x*3" not in g_b and "pushreal8" not in g_b and "y = y*sin(x)" not in g_b, g_b
    assert "call g(x, y, z)" in case.adjoint.text
    split = AdjointCase(CKP_DATAFLOW, "fortran", "f(y)/(x y)", [real("x"), real("y")],
                        nooptim=frozenset({"checkpoint"}))
    checked(split)   # g_fwd keeps what f reads after it
    assert "z = x*3" in split.adjoint.text.split("subroutine g_fwd(")[1]
