"""The C tangent test programs of tests/tangent_programs/c*.c, in one list that the
interpreter checks (tests/test_tangent_c_programs.py) and compile harnesses import.

Each case is (file name, head, args): args lists the head's formal arguments in order as
tests/tangent_check.py reads them, (name, kind, shape, value or None): kind "real" is a
`double *` (shape (k,)) or a by-value `double` (shape ()), "int" an `int` (shape ()) or an
`int *` (shape (1,)), with a fixed value, "struct" a pointer to a structure of reals (struct()).
"""
from __future__ import annotations

from pathlib import Path

C_PROGRAMS = Path(__file__).parent / "tangent_programs"


def real(name, *shape):
    return (name, "real", tuple(shape), None)


def integer(name, value, *shape):
    return (name, "int", tuple(shape), value)


def struct(name, *fields):
    """A pointer to a structure of reals, its fields (name, size) in memory order."""
    return (name, "struct", (sum(size for _, size in fields),), fields)


C_CASES = [
    ("c01_pointer_loop.c", "f(y)/(x)", [real("x", 4), real("y", 1), integer("n", 4)]),
    ("c02_static_helper.c", "g(r)/(x u)", [real("x"), real("u", 4), real("r", 1), integer("n", 4)]),
    ("c03_offset_args.c", "matvec(y)/(a x)", [real("a", 9), real("x", 3), real("y", 3), integer("n", 3)]),
    ("c04_struct_value_pointer.c", "f(r)/(u)", [real("u", 4), real("r", 1), integer("n", 4)]),
    ("c05_struct_array_field.c", "g(q e)/(q e)", [real("q", 3), real("e", 1), integer("n", 3)]),
    ("c06_calls_in_expressions.c", "k(y)/(x y)", [real("x", 3), real("y", 3), integer("n", 3)]),
    ("c07_loops_break_continue.c", "iterate(y)/(x a)", [real("x", 5), real("a"), real("y", 1), integer("n", 5)]),
    ("c08_malloc_work.c", "smooth(u r)/(u)", [real("u", 5), real("r", 1), integer("n", 5)]),
    ("c09_local_init.c", "energy(e)/(x)", [real("x", 4), real("e", 1), integer("n", 4)]),
    ("c10_compound_ternary.c", "ops(y)/(x a)", [real("x", 3), real("a"), real("y", 2), integer("n", 3)]),
    ("c11_math_functions.c", "mathf(y)/(x)", [real("x", 3), real("y", 7), integer("n", 7)]),
    ("c12_float.c", "mixed(y)/(x)", [real("x", 3), real("y", 1), integer("n", 3)]),
    ("c13_rows_stencil.c", "heat(u total)/(u k)", [real("u", 16), real("k"), real("total", 1), integer("n", 4)]),
    ("c14_int_pointer_switch.c", "mode_eval(y)/(x)", [real("x", 3), integer("mode", 2, 1), real("y", 3),
                                                      integer("n", 3)]),
    ("c15_struct_return.c", "cpoly(y)/(x)", [real("x", 3), real("y", 2), integer("n", 3)]),
    ("c16_passive_and_dropped_calls.c", "branches(y)/(x)", [real("x", 3), real("y", 2), integer("n", 3)]),
    ("c17_pointer_walk.c", "walk(y)/(a x)", [real("a", 9), real("x", 3), real("y", 3), integer("n", 3)]),
    ("c18_pointer_offsets.c", "offsets(y)/(x)", [real("x", 3), real("y", 3), integer("n", 3)]),
    ("c19_static_local.c", "twice(y)/(x)", [real("x", 2), real("y", 1)]),
    ("c20_struct_function_nested.c", "csum(s)/(x)", [real("x", 3), real("s", 1), integer("n", 3)]),
    ("c25_struct_diff_types.c", "sdiff(r)/(a)", [real("a", 4), real("r", 1), integer("n", 4)]),
    ("c26_chained_assignment.c", "chain(r)/(a)", [real("a", 4), real("r", 2), integer("n", 4)]),
    ("c27_typed_pointer_targets.c", "typed(y)/(x)", [real("x", 4), real("y", 1), integer("n", 4)]),
    ("c28_struct_pointer_field.c", "fieldptr(y)/(x)", [real("x", 4), real("y", 1), integer("n", 4)]),
    ("c29_skinning.c", "skin(err)/(theta target)", [real("theta", 4), real("target", 8), real("err", 1)]),
    ("c30_skinning_helpers.c", "skin(err)/(theta rest target)",
     [real("theta", 4), real("rest", 8), real("target", 8), real("err", 1)]),
    ("cj01_goto_targets.c", "jumps(y)/(x)", [real("x", 4), real("y", 1), integer("n", 4)]),
    # active arrays and pointers that are no independent nor dependent: their derivatives are
    # arguments (Plus diff mem management of), the harness passes them zeroed
    ("c21_state_time_loop.c", "evolve(y)/(x)", [real("x", 2), real("state", 4), real("hist", 4), integer("n", 4),
                                                real("y", 1)]),
    ("c22_struct_state.c", "run(y)/(x)", [real("x", 2), struct("p", ("s", 4), ("c", 1)), real("y", 1)]),
    ("c23_helper_work_pointer.c", "diffuse(y)/(u k)", [real("u", 6), real("k", 2), real("y", 1), integer("n", 6)]),
]

# Single precision: divided differences of float code lose about half the digits, so the
# float program is checked with a larger step and a float-sized tolerance. name -> (step, tolerance)
SINGLE_PRECISION = {"c12_float.c": (1e-2, 1e-5)}


def source(name: str) -> str:
    return (C_PROGRAMS / name).read_text()
