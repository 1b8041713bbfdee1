"""The interpreter on WHERE, FORALL, implied DO, DATA, INTERFACE blocks, USE renames/ONLY,
keyword and OPTIONAL arguments and the passive I/O statements (hand-built IL)."""
import numpy as np
import pytest

from adspec.engine.il import mk
from adspec.engine.interp import Interpreter, InterpError

from construct_il import (A, C, I, I4, R, R8, asg, blk, call, data, dim, ffile, forall, func, iface_body,
                          implied, interface, io, module, named, op, present, rep, rng, sub, use, var, where)


def run(units, head, *args):
    it = Interpreter(ffile(*units))
    result = it.call(head, list(args))
    return it, result


def vec(n, name="a", typ=R8):
    return var(typ, (name, (dim(C(n)),)), attrs=("intent(inout)",))


# --- WHERE ------------------------------------------------------------------------------------
def test_where_assigns_masked_elements_and_elsewhere_the_complement():
    a = np.array([1.0, -2.0, 3.0, -4.0])
    b = np.zeros(4)
    body = where(op("gt", I("a"), C(0)),
                 blk(asg(I("b"), op("mul", I("a"), C(10))), asg(I("a"), C(0))),
                 blk(asg(I("b"), mk("neg", I("a")))))
    run([sub("t", ["a", "b"], [vec(4), vec(4, "b")], body)], "t", a, b)
    assert list(b) == [10.0, 2.0, 30.0, 4.0]
    assert list(a) == [0.0, -2.0, 0.0, -4.0]


def test_where_mask_is_evaluated_once_at_entry():
    # a = -a on a > 0, then b = 1 on the same (entry) mask even though a changed
    a = np.array([1.0, -1.0])
    b = np.zeros(2)
    body = where(op("gt", I("a"), C(0)), blk(asg(I("a"), mk("neg", I("a"))), asg(I("b"), C(1))))
    run([sub("t", ["a", "b"], [vec(2), vec(2, "b")], body)], "t", a, b)
    assert list(a) == [-1.0, -1.0] and list(b) == [1.0, 0.0]


def test_nested_masks_and_elsewhere_with_a_mask():
    a = np.array([-5.0, -0.5, 0.5, 5.0])
    b = np.zeros(4)
    chain = where(op("lt", I("a"), C(-1)), blk(asg(I("b"), C(1))),
                  blk(where(op("lt", I("a"), C(0)), blk(asg(I("b"), C(2))), blk(asg(I("b"), C(3))))))
    nested = where(op("gt", I("a"), C(0)), blk(where(op("gt", I("a"), C(1)), blk(asg(I("a"), C(9))))))
    run([sub("t", ["a", "b"], [vec(4), vec(4, "b")], chain, nested)], "t", a, b)
    assert list(b) == [1.0, 2.0, 3.0, 3.0]
    assert list(a) == [-5.0, -0.5, 0.5, 9.0]


def test_a_function_called_under_a_mask_runs_unmasked():
    a = np.array([1.0, -1.0])
    f = func("f", ["x"], R8, [var(R8, "x"), var(R8, ("w", (dim(C(2)),)))],
             asg(I("w"), C(7)), asg(I("f"), op("add", I("x"), A("w", C(2)))))
    body = where(op("gt", I("a"), C(0)), blk(asg(I("a"), mk("call", "f", (A("a", C(1)),)))))
    run([sub("t", ["a"], [vec(2)], body), f], "t", a)
    assert list(a) == [8.0, -1.0]


# --- FORALL ------------------------------------------------------------------------------------
def test_forall_evaluates_every_right_hand_side_before_assigning():
    a = np.array([1.0, 2.0, 3.0, 4.0])
    body = forall([rng("i", C(2), C(4))], blk(asg(A("a", I("i")), A("a", op("sub", I("i"), C(1))))))
    run([sub("t", ["a"], [vec(4)], body)], "t", a)
    assert list(a) == [1.0, 1.0, 2.0, 3.0]  # a DO loop would give 1, 1, 1, 1


def test_forall_with_mask_two_indices_and_index_scope():
    b = np.zeros((3, 3), order="F")
    i = np.array(42, dtype=np.int32)
    body = forall([rng("i", C(1), C(3)), rng("j", C(1), C(3))],
                  blk(asg(A("b", I("i"), I("j")), op("add", op("mul", I("i"), C(10)), I("j")))),
                  mask=op("ge", I("i"), I("j")))
    decls = [var(R8, ("b", (dim(C(3)), dim(C(3))))), var(I4, "i", "j")]
    run([sub("t", ["b", "i"], decls, body)], "t", b, i)
    assert b.tolist() == [[11, 0, 0], [21, 22, 0], [31, 32, 33]]
    assert int(i) == 42  # the FORALL index is its own variable


def test_nested_forall():
    b = np.zeros((2, 3), order="F")
    inner = forall([rng("j", I("i"), C(3))], blk(asg(A("b", I("i"), I("j")), C(1))))
    body = forall([rng("i", C(1), C(2))], blk(inner))
    run([sub("t", ["b"], [var(R8, ("b", (dim(C(2)), dim(C(3)))))], body)], "t", b)
    assert b.tolist() == [[1, 1, 1], [0, 1, 1]]


# --- implied DO and DATA -------------------------------------------------------------------------
def test_implied_do_in_array_constructor_and_write():
    a = np.zeros(5)
    cons = asg(I("a"), mk("arrayConstructor", (C(0), implied([op("mul", I("i"), C(2))], "i", C(1), C(7), C(2)))))
    it, _ = run([sub("t", ["a"], [vec(5)], cons, io("write", "*, *", implied([A("a", I("i"))], "i", C(1), C(2))))],
                "t", a)
    assert list(a) == [0, 2, 6, 10, 14]
    assert it.output.split() == ["0.0", "2.0"]


def test_data_initial_values_repeat_counts_implied_do_and_save():
    # subroutine t(out): real a(4), x; integer n; data x, n / 1.5, 3 /, (a(i), i=1,3) / 3*2.0 /, a(4) / -1 /
    decls = [var(R8, ("a", (dim(C(4)),)), "x"), var(I4, "n"), var(R8, ("out", (dim(C(6)),))),
             data([I("x"), I("n")], [R("1.5"), C(3)]),
             data([implied([A("a", I("i"))], "i", C(1), C(3)), A("a", C(4))], [rep(3, R("2.0")), mk("neg", C(1))])]
    body = [asg(A("out", C(1)), I("x")), asg(A("out", C(2)), I("n")),
            asg(mk("arrayAccess", I("out"), (mk("arrayTriplet", C(3), C(6), None),)), I("a")),
            asg(I("x"), op("add", I("x"), C(1)))]  # saved: the next call sees 2.5
    it = Interpreter(ffile(sub("t", ["out"], decls, *body)))
    out = np.zeros(6)
    it.call("t", [out])
    assert list(out) == [1.5, 3, 2, 2, 2, -1]
    it.call("t", [out])
    assert out[0] == 2.5


def test_data_of_a_whole_array_and_a_count_mismatch():
    decls = [var(R8, ("w", (dim(C(2)), dim(C(2)))), ("out", (dim(C(4)),))), data([I("w")], [C(1), C(2), rep(2, C(3))])]
    out = np.zeros(4)
    col = mk("arrayTriplet", None, None, None)
    body = [asg(mk("arrayAccess", I("out"), (mk("arrayTriplet", C(1), C(2), None),)), A("w", col, C(1))),
            asg(mk("arrayAccess", I("out"), (mk("arrayTriplet", C(3), C(4), None),)), A("w", col, C(2)))]
    run([sub("t", ["out"], decls, *body)], "t", out)
    assert list(out) == [1, 2, 3, 3]
    bad = [var(R8, ("w", (dim(C(2)),))), data([I("w")], [C(1)])]
    with pytest.raises(InterpError, match="DATA"):
        run([sub("t", [], bad, asg(A("w", C(1)), C(0)))], "t")


def test_data_in_a_module():
    m = module("m", [var(R8, "g"), data([I("g")], [R("4.25")])])
    out = np.zeros(())
    run([m, sub("t", ["o"], [use("m"), var(R8, "o")], asg(I("o"), I("g")))], "t", out)
    assert out == 4.25


# --- INTERFACE -----------------------------------------------------------------------------------
def test_interface_bodies_are_not_definitions():
    ifc = interface(procs=(iface_body("scale", ("y",), (var(R8, "y"),)),))
    x = np.array(3.0)
    real = sub("scale", ["y"], [var(R8, "y")], asg(I("y"), op("mul", I("y"), C(2))))
    run([sub("t", ["x"], [ifc, var(R8, "x")], call("scale", I("x"))), real], "t", x)
    assert x == 6.0
    with pytest.raises(InterpError, match="interface but no definition"):
        run([sub("t", ["x"], [ifc, var(R8, "x")], call("scale", I("x")))], "t", x)


def test_generic_interface_in_a_module_does_not_break_the_module():
    access = [mk("attrDecl", "private", ()),
              mk("attrDecl", "public", (mk("declarator", "twice", None, None, 0),
                                        mk("declarator", "twice_r", None, None, 0)))]
    m = module("m", access + [interface("twice", names=("twice_r",)), var(R8, "g")],
               func("twice_r", ["x"], R8, [var(R8, "x")], asg(I("twice_r"), op("mul", C(2), I("x")))))
    out = np.zeros(())
    run([m, sub("t", ["o"], [use("m"), var(R8, "o")], asg(I("o"), mk("call", "twice_r", (R("1.25"),))))], "t", out)
    assert out == 2.5


# --- USE renames and ONLY ------------------------------------------------------------------------
def test_use_rename_and_only():
    m = module("m", [var(R8, ("v", None, R("2.0")), ("w", None, R("3.0")))])
    out = np.zeros(2)
    body = [asg(A("o", C(1)), I("loc")), asg(A("o", C(2)), I("w")), asg(I("loc"), C(7))]
    renamed = sub("t", ["o"], [use("m", only=("loc", "w"), loc="v"), var(R8, ("o", (dim(C(2)),)))], *body)
    probe = sub("probe", ["o"], [use("m"), var(R8, "o")], asg(I("o"), I("v")))
    it = Interpreter(ffile(m, renamed, probe))
    it.call("t", [out])
    assert list(out) == [2.0, 3.0]
    got = np.zeros(())
    it.call("probe", [got])
    assert got == 7.0  # `loc` is the module's v


def test_renamed_remote_name_and_names_outside_only_are_not_visible():
    m = module("m", [var(R8, ("v", None, R("2.0")), ("w", None, R("3.0")))])
    implicit_none = mk("implicit", "none")
    hidden = sub("t", [], [use("m", loc="v"), implicit_none], asg(I("x"), I("v")))
    with pytest.raises(InterpError, match="'v'"):
        run([m, hidden], "t")
    outside = sub("t", [], [use("m", only=("w",)), implicit_none], asg(I("x"), I("v")))
    with pytest.raises(InterpError, match="'v'"):
        run([m, outside], "t")


# --- keyword and OPTIONAL arguments ---------------------------------------------------------------
def axpy():
    """subroutine axpy(y, x, alpha, beta): y = alpha*x + y [scaled by beta when present]"""
    decls = [var(R8, "y", "x", "alpha"), var(R8, "beta", attrs=("optional",))]
    body = [asg(I("y"), op("add", op("mul", I("alpha"), I("x")), I("y"))),
            mk("if", present("beta"), blk(asg(I("y"), op("mul", I("beta"), I("y")))), None)]
    return sub("axpy", ["y", "x", "alpha", "beta"], decls, *body)


def test_keyword_arguments_bind_by_name_and_optional_is_absent():
    y = np.array(1.0)
    caller = sub("t", ["y"], [var(R8, "y")],
                 call("axpy", I("y"), named("alpha", R("3.0")), named("x", R("2.0"))),
                 call("axpy", named("beta", R("10.0")), named("y", I("y")), named("x", R("0.0")),
                      named("alpha", R("0.0"))))
    run([caller, axpy()], "t", y)
    assert y == 70.0  # (3*2 + 1) * 10


def test_using_an_absent_optional_is_an_error_and_absence_is_passed_on():
    bad = sub("bad", ["y", "o"], [var(R8, "y"), var(R8, "o", attrs=("optional",))], asg(I("y"), I("o")))
    with pytest.raises(InterpError, match="absent"):
        run([sub("t", ["y"], [var(R8, "y")], call("bad", I("y"))), bad], "t", np.array(0.0))
    # relay(y, b) passes its own absent b on to axpy's beta: still absent there
    relay = sub("relay", ["y", "b"], [var(R8, "y"), var(R8, "b", attrs=("optional",))],
                call("axpy", I("y"), R("1.0"), R("1.0"), named("beta", I("b"))))
    y = np.array(1.0)
    run([sub("t", ["y"], [var(R8, "y")], call("relay", I("y"))), relay, axpy()], "t", y)
    assert y == 2.0
    with pytest.raises(InterpError, match="given twice"):
        run([sub("t", ["y"], [var(R8, "y")], call("axpy", I("y"), named("y", I("y")))), axpy()], "t", y)


# --- I/O statements ------------------------------------------------------------------------------
def test_io_statements_are_passive_and_write_with_a_format_label_prints():
    body = [io("open", "unit=10, file='out.txt'"), io("write", "10, 100", R("1.5")),
            io("format", "1x, f8.3", label="100"), io("rewind", "10"), io("inquire", "unit=10, opened=l"),
            io("backspace", "10"), io("endfile", "10"), io("close", "10"), io("print", "100", C(2))]
    it, _ = run([sub("t", [], [], *body)], "t")
    assert it.output.split() == ["1.5", "2"]


def test_a_renamed_module_procedure_is_called_by_its_local_name():
    m = module("m", [], func("energy", ["v"], R8, [var(R8, "v")], asg(I("energy"), op("mul", I("v"), I("v")))))
    out = np.zeros(())
    head = sub("t", ["o"], [use("m", only=("e2",), e2="energy"), var(R8, "o")],
               asg(I("o"), mk("call", "e2", (R("3.0"),))))
    run([m, head], "t", out)
    assert out == 9.0


def test_array_moving_intrinsics_match_gfortran():
    """cshift with a shift per line, eoshift with a boundary per line and dim=, reshape with pad
    and order, pack with vector, spread: the values gfortran prints for the same calls."""
    import numpy as np
    from adspec.engine.interp import intrinsics as ii
    m = np.reshape(np.arange(1.0, 13), (3, 4), order="F")

    def flat(a):
        return list(np.ravel(a, order="F"))
    assert flat(ii.f_cshift(m, np.array([1, -2, 5]), 2)) == [4, 8, 6, 7, 11, 9, 10, 2, 12, 1, 5, 3]
    assert flat(ii.f_eoshift(m, 2, np.array([0.5, 0.25, 0.125]), 2)) == \
        [7, 8, 9, 10, 11, 12, 0.5, 0.25, 0.125, 0.5, 0.25, 0.125]
    assert flat(ii.f_eoshift(m, -1, dim=1)) == [0, 1, 2, 0, 4, 5, 0, 7, 8, 0, 10, 11]
    assert flat(ii.f_reshape(m[0, :], np.array([4, 2]), pad=np.array([9.0, 8.0]), order=np.array([2, 1]))) == \
        [1, 7, 9, 9, 4, 10, 8, 8]
    assert flat(ii.f_pack(m, m > 5, -np.arange(1.0, 13))) == [6, 7, 8, 9, 10, 11, 12, -8, -9, -10, -11, -12]
    assert flat(ii.f_spread(m[:, 0], 1, 2)) == [1, 1, 2, 2, 3, 3]
    assert ii.f_norm2(np.array([3.0, 4.0])) == 5.0 and ii.f_hypot(3.0, 4.0) == 5.0
