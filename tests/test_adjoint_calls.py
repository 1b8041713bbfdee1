"""Calls in adjoint mode (issue 16, paper 5.4, 4.5, 4.10, fig. 8 and 13): joint (checkpointed)
calls with their snapshot pushed whole, function calls inside expressions, recursion, a call
inside a loop inside a call, passive calls, C by-value arguments (seed 001), in Fortran and C,
each proven by the dot-product test against the tangent in the interpreter (stack empty at
the end), the key ones compiled too (-O2, then sanitizers / -fcheck=all). The programs are in
tests/adjoint_programs/."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import adspec
from adspec.engine.errors import UnsupportedError
from adspec.engine.il import Node
from adjoint_check import RUNTIME, AdjointCase

HERE = Path(__file__).resolve().parent / "adjoint_programs"
TOL = 1e-12


def real(name, shape=()):
    return (name, "real", shape, None)


def integer(name, value):
    return (name, "int", (), value)


PROGRAMS = {
    "fortran calls": ("calls.f90", "f(y)/(a b)", [real("a", (4,)), integer("n", 4), real("b"), real("y")]),
    "C helpers in expressions": ("calls.c", "f(f)/(a b v)", [real("a"), real("b"), real("v", (2,))]),
    "whole array output, Fortran": ("project.f90", "chain(f)/(c x)", [real("c", (2,)), real("x", (3,)), real("f"),
                                                                      integer("n", 3)]),
    "whole array output, C": ("project.c", "reproj(err)/(cam pts)", [real("cam", (4,)), real("pts", (8,)),
                                                                     real("err", (8,)), integer("n", 3)]),
    "recursion, Fortran": ("recursion.f90", "pw(y)/(x y)", [real("x"), integer("n", 3), real("y")]),
    "recursion, C": ("recursion.c", "rsum(rsum)/(x)", [real("x"), integer("n", 3)]),
    "call in a loop in a call": ("nested.f90", "top(a s)/(a s)", [real("a", (3,)), integer("n", 3), real("s")]),
    "called both ways, Fortran": ("split.f90", "integ(x)/(x h)", [real("x", (3,)), real("h"), integer("n", 3)]),
    "called both ways, C": ("split.c", "integ(x)/(x h)", [real("x", (3,)), real("h"), integer("n", 3)]),
}
SPLIT = {"nocheckpoint": frozenset({"checkpoint"})}  # -nocheckpoint


def case_of(name, **options) -> AdjointCase:
    filename, head, args = PROGRAMS[name]
    lang = "c" if filename.endswith(".c") else "fortran"
    return AdjointCase((HERE / filename).read_text(), lang, head, args, filename=filename, **options)


def checked(case: AdjointCase):
    check = case.check()
    assert check.stack_state == 0, check.report()
    assert check.error < TOL, check.report()
    return check


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_dot_product(name):
    checked(case_of(name))


@pytest.mark.parametrize("name, split", [
    ("C helpers in expressions", False), ("whole array output, C", False), ("whole array output, Fortran", False),
    ("recursion, Fortran", False), ("recursion, C", False), ("fortran calls", False),
    ("call in a loop in a call", False), ("called both ways, Fortran", False), ("called both ways, C", False),
    ("whole array output, Fortran", True), ("recursion, Fortran", True), ("called both ways, C", True)])
def test_compiled(name, split, tmp_path):
    if not RUNTIME.is_dir():
        pytest.skip("no runtime")
    check = case_of(name, **({"nooptim": SPLIT["nocheckpoint"]} if split else {})).compiled_check(
        tmp_path, flags=("-O2",), checked=True)
    assert check.error < TOL, check.report()
    assert check.interpreter_error < 1e-13, check.report()


# --- the snapshot is the whole array --------------------------------------------------------------
def _rewritten(node, edit, proc=None):
    """The tree with edit(node, name of its procedure) applied to every node, top down: a
    mutant of the generated adjoint, to show that a test catches what the mutation breaks."""
    if isinstance(node, tuple):
        return tuple(_rewritten(k, edit, proc) for k in node)
    if not isinstance(node, Node):
        return node
    proc = node.kids[0] if node.op == "procedure" else proc
    node = edit(node, proc)
    return Node(node.op, tuple(_rewritten(k, edit, proc) for k in node.kids), node.ann)


def _first_element_only(node: Node, lang: str) -> Node:
    """An array push/pop replaced by a push/pop of the first element only (Tapenade's
    `pushReal8(*proj)`)."""
    if node.op == "call" and node.kids[0].lower() in ("pushreal8array", "popreal8array"):
        first = Node("arrayAccess", (node.kids[1][0], (Node("intCst", (0 if lang == "c" else 1, None)),)))
        verb = node.kids[0][:-len("Real8Array")]
        target = Node("address", (first,)) if lang == "c" and verb.lower() == "pop" else first
        return Node("call", (verb + ("Real8" if lang == "c" else "real8"), (target,)), node.ann)
    return node


@pytest.mark.parametrize("name, array", [("whole array output, Fortran", "w"), ("whole array output, C", "proj")])
def test_overwritten_array_pushed_whole(name, array):
    """The helper overwrites the whole array that the caller reads afterwards: the snapshot
    pushes it whole (pushReal8Array(proj, 2) / PUSHREAL8ARRAY(w, 3)); pushing only its first
    element, as Tapenade does, gives a wrong gradient, which the dot-product test catches."""
    case = case_of(name)
    text = case.adjoint.text
    size = {"w": 3, "proj": 2}[array]
    assert re.search(rf"push(real8array|Real8Array)\({array}, {size}\)", text), text
    checked(case)
    lang = case.lang
    case.adjoint_file = _rewritten(case.adjoint_file, lambda node, _: _first_element_only(node, lang))
    assert case.check().error > 1e-6   # element 0 only: wrong


# --- what the caller relies on -----------------------------------------------------------------
def test_joint_call_shape_and_statuses():
    """Fig. 13: push the snapshot, plain call; pop it, then the callee's adjoint with each
    adjoint argument after its argument. A called procedure's adjoints go in and out as the
    caller's: nothing in it is zeroed (no `out`), what it only reads is incremented."""
    case = case_of("fortran calls")
    text = case.adjoint.text
    assert "RW status of diff variables: x:in-out y:in-out" in text           # sq overwrites x, reads y
    assert "RW status of diff variables: x:incr c:incr poly:in-zero" in text   # poly reads x and c
    assert "subroutine poly_b(x, xb, c, cb, polyb)" in text
    assert "call sq_b(t, tb, y, yb)" in text
    # the expression argument 2*b + a(2): a temporary adjoint, propagated into the expression after
    assert re.search(r"argb = 0\.0d0\n\s*call sq_b\(2\*b \+ a\(2\), argb, y, yb\)\n\s*bb = bb \+ 2\*argb\n\s*"
                     r"ab\(2\) = ab\(2\) \+ argb", text), text
    # the passive constant 2.5d0 where poly_b expects an adjoint: a dummy zero (fig. 8)
    assert re.search(r"dummyb = 0\.0d0\n\s*call poly_b\(b, bb, 2\.5d0, dummyb, poly_result\w*b\)", text), text
    checked(case)


def test_index_restored_for_the_callee():
    """call sq(a(k), y) and later call pick(k, n), which overwrites k: the backward sweep
    calls sq_b on ab(k) for the k the call saw (k pushed with the snapshot)."""
    case = case_of("fortran calls")
    forward = case.adjoint.text.split("subroutine f_b")[1]
    assert forward.index("call pushinteger4(k)") < forward.index("call sq(a(k), y)")
    checked(case)


def test_passive_call_resets_the_adjoint():
    """call zero(t) overwrites t, whose adjoint the later `t = t + a(3)` keeps: tb = 0 at the
    call in the backward sweep, else it would flow into the earlier t = a(1)*b."""
    case = case_of("fortran calls")
    backward = case.adjoint.text.split("subroutine f_b")[1]
    assert re.search(r"ab\(3\) = ab\(3\) \+ tb\n\s*tb = 0\.0d0\n", backward), backward
    checked(case)

    def without_reset(node, _):
        if node.op != "block":
            return node
        kids = node.kids
        return node.with_kids(*(k for i, k in enumerate(kids) if not (
            i > 0 and k.op == "assign" and k.kids[0] == Node("ident", ("tb",)) and kids[i - 1].op == "assign"
            and kids[i - 1].kids[0].op == "arrayAccess" and kids[i - 1].kids[0].kids[0] == Node("ident", ("ab",)))))
    case.adjoint_file = _rewritten(case.adjoint_file, without_reset)
    assert case.check().error > 1e-6


def test_c_by_value_arguments():
    """Seed 001: a by-value formal only read has the caller's adjoint *xb, incremented; one
    the helper assigns has a local xb, added to the caller's *xb0 at the end."""
    text = case_of("C helpers in expressions").adjoint.text
    assert "static void sqr_b(double x, double *xb, double sqrb)" in text
    assert "RW status of diff variables: x:incr sqr:in" in text
    assert "static void cube_b(double x, double *xb0, double cubeb)" in text
    assert re.search(r"double xb = 0\.0;.*\*xb0 = \*xb0 \+ xb;\n}", text, re.S), text
    # the function called as a statement, its value dropped: a zero result adjoint
    assert "scale_b(v, vb, u, &ub, 0.0);" in text


def test_recursion_calls_its_own_adjoint():
    text = case_of("recursion, Fortran").adjoint.text
    assert "call pw_b(t, tb, n - 1, y, yb)" in text
    assert "RW status of diff variables: x:incr y:in-out" in text
    text = case_of("recursion, C").adjoint.text
    assert re.search(r"rsum_b\(sin\(x\), &argb, n - 1, rsum_resultb\);\n\s*\*xb = \*xb \+ cos\(x\) \* argb", text), text


def test_function_temporary_saved_in_a_loop():
    """A function called in a loop: its value is a temporary that the next iteration
    overwrites, pushed when an earlier iteration's adjoint still reads it."""
    source = """
real(8) function g(x)
  real(8) x
  g = x*x
end function

subroutine h(a, n, y)
  integer n, i
  real(8) a(n), y, g
  y = 0
  do i = 1, n
    y = y*g(a(i)) + a(i)
  end do
end subroutine
"""
    case = AdjointCase(source, "fortran", "h(y)/(a)", [real("a", (4,)), integer("n", 4), real("y")])
    assert re.search(r"call pushreal8\(g_result\w*\)", case.adjoint.text), case.adjoint.text
    checked(case)


# --- refusals ------------------------------------------------------------------------------------
@pytest.mark.parametrize("source, what", [
    ("subroutine f(x, y)\n  real(8) x, y\n  call ext(x, y)\nend subroutine\n", "an active call of ext, which has no source"),
    ("subroutine f(x, y)\n  real(8) x, y, e\n  y = e(x)*y\nend subroutine\n", "the adjoint of the function e, which has no source"),
])
def test_refused_with_file_and_line(source, what):
    with pytest.raises(UnsupportedError, match=rf"t\.f90:\d+: adjoint mode does not support {re.escape(what)}"):
        adspec.differentiate(source, head="f(y)/(x)", mode="adjoint", lang="fortran", filename="t.f90",
                             nooptim=SPLIT["nocheckpoint"])


def test_array_of_unknown_size_saved_as_the_section_written():
    """A C pointer the callee overwrites and the caller needs: its size is not known here, so
    the snapshot is what the callee writes through it, x[0..1] (tests/test_adjoint_call_sections.py);
    a callee whose writes are not bounded (a pointer that walks) is refused, never element 0 only."""
    source = """
static void dbl(double *v) { v[0] = v[0] * v[0]; v[1] = v[1] * v[0]; }
void f(double *x, double *y) {
    dbl(x);
    y[0] = x[0] * x[1];
    dbl(x);
    y[1] = x[0] * y[0];
}
"""
    case = AdjointCase(source, "c", "f(y)/(x)", [real("x", (2,)), real("y", (2,))], filename="t.c")
    assert case.adjoint.text.count("pushReal8Array(x, 2);\n    dbl(x);") == 2, case.adjoint.text
    checked(case)
    walking = source.replace("v[0] = v[0] * v[0]; v[1] = v[1] * v[0];", "*v = *v * *v; v++; *v = *v * v[-1];")
    with pytest.raises(UnsupportedError, match=r"t\.c:\d+: adjoint mode does not support saving the array x"):
        adspec.differentiate(walking, head="f(y)/(x)", mode="adjoint", lang="c", filename="t.c")


# --- split mode ----------------------------------------------------------------------------------
SPLIT_PROGRAMS = ["whole array output, Fortran", "recursion, Fortran", "call in a loop in a call",
                  "called both ways, Fortran", "called both ways, C"]


@pytest.mark.parametrize("name", SPLIT_PROGRAMS)
def test_joint_and_split_agree(name):
    """-nocheckpoint: every call split (P_fwd in the forward sweep, P_bwd in the backward
    sweep, no snapshot): the same adjoints as the checkpointed calls, and the dot-product test."""
    joint = case_of(name)
    split = case_of(name, nooptim=SPLIT["nocheckpoint"])
    assert "_fwd(" in split.adjoint.text and "_bwd(" in split.adjoint.text
    assert "_fwd(" not in joint.adjoint.text or "both ways" in name
    checked(split)
    xbar_joint, _ = joint.run_adjoint()
    xbar_split, _ = split.run_adjoint()
    for n in xbar_joint:
        assert np.allclose(xbar_joint[n], xbar_split[n], rtol=1e-13, atol=0), (n, xbar_joint[n], xbar_split[n])


@pytest.mark.parametrize("name", ["called both ways, Fortran", "called both ways, C"])
def test_called_both_ways(name):
    """step is called split ($AD NOCHECKPOINT) and joint: step_b, step_fwd and step_bwd are
    all emitted (isCalledJoint and isCalledSplit), each where its call needs it."""
    case = case_of(name)
    text = case.adjoint.text
    for proc in ("step_b", "step_fwd", "step_bwd"):
        assert re.search(rf"(subroutine|void) {proc}\(", text), proc
    assert re.search(r"step_fwd\(x, h\)", text) and re.search(r"step_bwd\(x, xb, h, \*?hb\)", text)
    assert re.search(r"step_b\(x, xb, 0\.5d?0?\s?\*\s?h, &?argb\)", text), text
    assert "reverse (adjoint) mode, forward sweep:" in text
    checked(case)


def test_split_pushes_what_the_backward_sweep_reads():
    """P_fwd ends by pushing the values its backward sweep reads (TBR at the exit), P_bwd
    starts by popping them: P_bwd is another activation, its locals hold nothing. Without
    them the gradient is wrong."""
    case = case_of("recursion, Fortran", nooptim=SPLIT["nocheckpoint"])
    text = case.adjoint.text
    fwd = text.split("subroutine pw_fwd(")[1].split("end subroutine")[0]
    bwd = text.split("subroutine pw_bwd(")[1].split("end subroutine")[0]
    assert fwd.rstrip().endswith("call pushreal8(t)"), fwd
    assert bwd.index("call popreal8(t)") < bwd.index("call popcontrol1b")
    checked(case)

    def without_exit_values(node, proc):
        if node.op != "block" or proc not in ("pw_fwd", "pw_bwd"):
            return node
        return node.with_kids(*(k for k in node.kids if not (k.op == "call" and k.kids[0] in ("pushreal8", "popreal8")
                                                            and k.kids[1][0] == Node("ident", ("t",)))))
    case.adjoint_file = _rewritten(case.adjoint_file, without_exit_values)
    assert case.check().error > 1e-6


def test_nocheckpoint_command_line(tmp_path):
    import subprocess
    import sys
    (tmp_path / "split.f90").write_text((HERE / "split.f90").read_text())
    run = subprocess.run([sys.executable, "-m", "adspec", "-b", "-nocheckpoint", "-head", "integ(x)/(x h)", "split.f90"],
                         cwd=tmp_path, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    text = (tmp_path / "split_b.f90").read_text()
    assert "call step_fwd(x, h)" in text and "call step_fwd(x, 0.5d0*h)" in text and "subroutine step_b(" not in text


@pytest.mark.parametrize("optim", ["tbr", "diffliveness", "activity"])
def test_nooptim_variants(optim):
    """Every -nooptim variant differentiates the call programs right too (-nooptim tbr: the
    snapshots hold all that the call overwrites)."""
    for name in sorted(PROGRAMS):
        checked(case_of(name, nooptim=frozenset({optim})))


def test_corpus_under_nocheckpoint():
    """The tangent corpus under -nocheckpoint: each program differentiated passes the
    dot-product test, or is refused with file:line (functions called split among others)."""
    import test_adjoint_corpus as corpus
    import test_tangent_programs as programs
    from c_tangent_cases import source
    done = []
    for name, head, args in corpus.FORTRAN + corpus.C:
        lang = "c" if name.endswith(".c") else "fortran"
        text = source(name) if lang == "c" else (programs.HERE / name).read_text()
        try:
            case = AdjointCase(text, lang, head, args, filename=name, nooptim=SPLIT["nocheckpoint"])
        except UnsupportedError as e:
            assert re.match(rf"{re.escape(name)}:\d+: adjoint mode does not support .* yet", str(e)), str(e)
            continue
        check = case.check()
        assert check.stack_state == 0 and check.error < corpus.tolerance(name), check.report()
        done.append(name)
    assert len(done) >= 32, done


INTENT_IN = """
subroutine sq(x, y)
  real(8) x, y
  y = y + x*x
end subroutine

subroutine f(a, k, y)
  integer, intent(in) :: k
  real(8), intent(in) :: a(3)
  real(8), intent(inout) :: y
  call sq(a(k), y)
  call sq(2*a(k), y)
end subroutine
"""


def test_intent_in_index_not_restored(tmp_path):
    """The index k of an actual a(k) is restored around the call only when it can change:
    an INTENT(IN) k is not pushed (and popping into it would not compile)."""
    case = AdjointCase(INTENT_IN, "fortran", "f(y)/(a y)", [real("a", (3,)), integer("k", 2), real("y")])
    assert "pushinteger4(k)" not in case.adjoint.text
    checked(case)
    if RUNTIME.is_dir():
        check = case.compiled_check(tmp_path, flags=("-O2",), checked=True)
        assert check.error < TOL, check.report()
