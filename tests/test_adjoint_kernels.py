"""The kernels of the adjoint bench (bench/kernels: gmm.c, burgers.f90, rnn.f90 and the
bundle-adjustment reprojection error ba.c; bench/bench_adjoint.py times them) differentiated
in adjoint mode on small sizes: the dot-product test in the interpreter, and compiled at -O2
(X̄ equal to the interpreted adjoint's to 1e-13), with the stack empty at the end."""
from pathlib import Path

import pytest

from adjoint_check import RUNTIME, AdjointCase
from test_adjoint import TOL, integer, real

KERNELS = Path(__file__).resolve().parent.parent / "bench" / "kernels"
N_OBS, N_CAMS, N_PTS = 5, 2, 3
CASES = {
    "gmm": ("gmm.c", "gmm(ll)/(mu logw sigma)", [real("x", (12,)), real("mu", (6,)), real("logw", (2,)),
                                                  real("sigma", (6,)), real("ll", (1,)), integer("n", 4),
                                                  integer("d", 3), integer("k", 2)]),
    "burgers": ("burgers.f90", "burgers(u)/(u nu)", [real("u", (9,)), real("nu"), integer("n", 9),
                                                     integer("nsteps", 4), real("dt"), real("dx")]),
    "rnn": ("rnn.f90", "rnn(loss h)/(w u b)", [real("w", (3, 3)), real("u", (3, 2)), real("b", (3,)),
                                               real("x", (2, 4)), real("h", (3,)), real("loss"), integer("nh", 3),
                                               integer("nx", 2), integer("nt", 4)]),
    "ba": ("ba.c", "ba(f)/(cams pts)", [real("cams", (11 * N_CAMS,)), real("pts", (3 * N_PTS,)),
                                        real("obs", (2 * N_OBS,)), ("cam_of", "int", (N_OBS,), [0, 1, 1, 0, 1]),
                                        ("pt_of", "int", (N_OBS,), [0, 1, 2, 2, 0]), real("f", (1,)),
                                        integer("m", N_OBS)]),
}


def case(name: str, **options) -> AdjointCase:
    source, head, args = CASES[name]
    lang = "c" if source.endswith(".c") else "fortran"
    return AdjointCase((KERNELS / source).read_text(), lang, head, args, filename=source, **options)


@pytest.mark.parametrize("name", sorted(CASES))
def test_kernel_dot_product(name):
    check = case(name).check()
    assert check.stack_state == 0 and check.error < 1e-12, check.report()


@pytest.mark.skipif(not RUNTIME.is_dir(), reason="no runtime")
@pytest.mark.parametrize("name", sorted(CASES))
def test_kernel_compiled(name, tmp_path):
    check = case(name).compiled_check(tmp_path, flags=("-O2",), checked=True)
    assert check.error < 1e-12 and check.interpreter_error < 1e-13, check.report()


ACCUMULATE = """
subroutine acc(w, h, x, a, y, n, m)
  integer n, m, i, j
  real(8) w(n, m), h(m), x(m), a(n), y
  y = 0
  do i = 1, n
    a(i) = x(i)*y
    do j = 1, m
      a(i) = a(i) + w(i, j)*h(j)
    end do
    do j = 1, m
      a(i) = a(i) - w(i, j)*x(j)*h(j)
    end do
    y = y + sin(a(i))
  end do
  do i = 1, n
    do j = 1, m
      a(i) = a(i) + h(j)*a(i)
    end do
    do j = 1, m
      a(i) = a(i) + h(j)*x(j)
    end do
    y = y + a(i)*a(i)
  end do
end subroutine
"""


def test_accumulations_into_an_element_save_no_partial_sum():
    """TBR refined for array elements (analyses/tbr_elements.py): the partial sums of a(i) in
    the first nest are read by no derivative (linear, and a(i) = x(i)*y before them saves the
    value sin(a(i)) reads); in the second nest, the sum of a(i) + h(j)*a(i) reads a(i), and the
    loop after it is not preceded by a plain write of a(i): their values are saved. The
    adjoint passes the dot-product test and pushes less than under -nooptim tbr."""
    args = [real("w", (3, 4)), real("h", (4,)), real("x", (4,)), real("a", (3,)), real("y"), integer("n", 3),
            integer("m", 4)]
    pushed = {}
    for optim in ((), ("tbr",)):
        case = AdjointCase(ACCUMULATE, "fortran", "acc(y)/(w h x a)", args, nooptim=frozenset(optim))
        check = case.check()
        assert check.stack_state == 0 and check.error < TOL, check.report()
        pushed[optim] = check.pushed_bytes
        lines = [line.strip() for line in case.adjoint.text.splitlines()]
        saved = {line: lines[lines.index(line) - 1] == "call pushreal8(a(i))" for line in (
            "a(i) = a(i) + w(i, j)*h(j)", "a(i) = a(i) - w(i, j)*x(j)*h(j)", "a(i) = a(i) + h(j)*a(i)",
            "a(i) = a(i) + h(j)*x(j)")}
        assert list(saved.values()) == ([True] * 4 if optim else [False, False, True, True]), saved
    assert pushed[()] < pushed[("tbr",)]


def test_rnn_saves_the_state_once_per_step():
    """rnn: a(i) is saved at a(i) = b(i) only, once per (t, i), not at every j of its sums."""
    text = case("rnn").adjoint.text
    assert text.count("call pushreal8(a(i))") == 1
