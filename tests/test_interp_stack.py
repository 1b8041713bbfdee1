"""The interpreter's AD stack (engine/interp/stack.py): Tapenade's push/pop routines run
without a runtime library, typed entries, the byte counts."""
import numpy as np
import pytest

import adspec
from adspec.engine.interp import Interpreter, InterpError

FORTRAN = """
subroutine f(x, n)
  real(8) x
  integer n, k
  call pushreal8(x)
  call pushinteger4(n)
  call pushcontrol1b(1)
  x = 0
  n = 0
  call popcontrol1b(k)
  call popinteger4(n)
  call lookreal8(x)
  x = x + k
end subroutine
"""

C = """
void f(double *x, int n) {
  int k;
  pushReal8(x[1]);
  pushInteger4(n);
  pushControl1b(1);
  x[1] = 0;
  n = 7;
  popControl1b(&k);
  popInteger4(&n);
  popReal8(&x[1]);
  x[0] = x[1] + k + n;
}
"""


def test_fortran_push_pop_look_and_counts():
    it = Interpreter(adspec.parse(FORTRAN, lang="fortran", filename="s.f90"))
    x, n = np.array(2.5), np.array(3, dtype=np.int32)
    it.call("f", [x, n])
    assert float(x) == 3.5 and int(n) == 3
    assert [e[0] for e in it.ad_stack.entries] == ["real8"]   # look leaves the entry
    assert it.ad_stack.pushed_bytes == 8 + 4 + 1 and it.ad_stack.peak_bytes == 13


def test_c_push_pop_through_addresses():
    it = Interpreter(adspec.parse(C, lang="c", filename="s.c"))
    x = np.array([0.0, 2.5])
    it.call("f", [x, 4])
    assert list(x) == [2.5 + 1 + 4, 2.5] and it.ad_stack.entries == []


@pytest.mark.parametrize("body,message", [
    ("call pushreal8(x)\n  call popinteger4(n)", "holds real8, not integer4"),
    ("call popreal8(x)", "the AD stack is empty"),
])
def test_wrong_pops_are_errors(body, message):
    source = f"subroutine f(x, n)\n  real(8) x\n  integer n\n  {body}\nend subroutine\n"
    it = Interpreter(adspec.parse(source, lang="fortran", filename="s.f90"))
    with pytest.raises(InterpError, match=message):
        it.call("f", [np.array(1.0), np.array(1, dtype=np.int32)])
