"""Flow graphs built from structured IL (engine/flowgraph_builder.py): basic blocks, edges
and their labels, natural loops, split function calls, jumps and labels."""
import time

import pytest

from adspec.dot import flow_graph_dot
from adspec.engine.errors import SourceError
from adspec.engine.flowgraph import FlowGraph, Instr, control_dependence
from adspec.engine.flowgraph_builder import find_loops
from adspec.engine.program import build_program
from adspec.engine.il import mk
from adspec.frontends import parse_source


def build(src, filename="t.f90"):
    return build_program(parse_source(src, filename))


def temps(proc):
    """(name, type) of the temporaries of split calls, in creation order."""
    return [(z.name, z.type) for z in proc.zones.zones if z.kind == "temp"]


def flow_of(src, filename="t.f90", name=None):
    program = build(src, filename)
    proc = program.procedure(name) if name else next(iter(program.procedures.values()))
    return proc, proc.flow


def block_of(flow, op, nth=0, kind=None):
    """The block holding the nth instruction (in source order) whose node has operator `op`."""
    found = sorted((i for b in flow.blocks.values() for i in b.instrs
                    if i.node.op == op and (kind is None or i.kind == kind)),
                   key=lambda i: (i.line or 0, i.block, i.index))
    return found[nth].block


def label(flow, a, b):
    return flow.graph.edges[a, b]["label"]


def out_edges(flow, b):
    return {label(flow, b, s): s for s in flow.succs(b)}


def check_invariants(flow):
    """Instructions know their place; entry/exit are empty; every edge has a known label."""
    for b, block in flow.blocks.items():
        for i, instr in enumerate(block.instrs):
            assert (instr.block, instr.index) == (b, i)
    assert not flow.blocks[flow.entry].instrs and not flow.blocks[flow.exit].instrs
    assert list(flow.succs(flow.exit)) == [] and list(flow.preds(flow.entry)) == []
    for _, _, data in flow.graph.edges(data=True):
        assert data["label"] in ("next", "true", "false", "loop", "exit", "back", "goto", "return")
    for loop in flow.loops:
        assert loop.header in loop.body
        if loop.parent is not None:
            assert loop.body < flow.loops[loop.parent].body
            assert loop.depth == flow.loops[loop.parent].depth + 1



# --- the graph algorithms (networkx's) on flow graphs built by hand ---------------------------
def hand_flow(blocks, *edges):
    """Entry 0, exit 1, then blocks 2 .. blocks+1, each holding one instruction."""
    flow = FlowGraph(mk("nop"), "hand")
    for b in range(2, blocks + 2):
        flow.new_block().instrs.append(Instr(mk("nop"), "plain", line=b))
    for u, v in edges:
        flow.add_edge(u, v)
    return flow


def test_orders_follow_edge_order_and_put_unreachable_blocks_last():
    # 2 <-> 3 is a cycle entered at 2 and at 3 (through 4): no natural loop; 5 is unreachable
    flow = hand_flow(4, (0, 2), (2, 3), (3, 1), (0, 4), (4, 3), (3, 2), (5, 1))
    assert flow.rpo() == [0, 4, 2, 3, 1, 5]
    assert flow.po() == [5, 1, 3, 2, 4, 0]
    assert find_loops(flow) == []


def test_natural_loops_from_dominators():
    # 2 heads the outer loop (back edge 5 -> 2), 3 the inner one (back edge 4 -> 3)
    flow = hand_flow(4, (0, 2), (2, 3), (3, 4), (4, 3), (3, 5), (5, 2), (2, 1))
    outer, inner = find_loops(flow)
    assert (outer.header, outer.body, outer.depth, outer.parent) == (2, {2, 3, 4, 5}, 1, None)
    assert (inner.header, inner.body, inner.depth, inner.parent) == (3, {3, 4}, 2, 0)


def test_control_dependence_from_post_dominators():
    # 2 branches to 3 or 4, which join at 5; 5 tests a loop whose body is 6
    flow = hand_flow(5, (0, 2), (2, 3), (2, 4), (3, 5), (4, 5), (5, 6), (6, 5), (5, 1))
    instr = {b: flow.blocks[b].instrs[0] for b in range(2, 7)}
    assert control_dependence(flow) == {id(instr[2]): [instr[3], instr[4]],
                                        id(instr[5]): [instr[6], instr[5]]}


# --- straight line and conditionals ------------------------------------------------------------
def test_straight_line_is_one_block_between_entry_and_exit():
    proc, flow = flow_of("""
subroutine s(x, y)
  real :: x, y
  ! a comment is not an instruction
  x = 1.0
  y = x + 2.0
end subroutine
""")
    check_invariants(flow)
    (first,) = flow.succs(flow.entry)
    assert [i.node.op for i in flow.blocks[first].instrs] == ["assign", "assign"]
    assert all(i.kind == "plain" for i in flow.blocks[first].instrs)
    assert label(flow, first, flow.exit) == "next"
    assert flow.loops == []


def test_if_elseif_else_chain():
    proc, flow = flow_of("""
subroutine s(a, x)
  real :: a, x
  x = 0.0
  if (a > 1.0) then
    x = 1.0
  else if (a > 0.0) then
    x = 2.0
  else
    x = 3.0
  end if
  x = x + 1.0
end subroutine
""")
    check_invariants(flow)
    first = block_of(flow, "if", 0)
    second = block_of(flow, "if", 1)
    test1 = flow.blocks[first].instrs[-1]
    assert test1.kind == "test" and test1.expr is test1.node.kids[0]
    assert [i.node.op for i in flow.blocks[first].instrs] == ["assign", "if"]  # the test ends its block
    edges1 = out_edges(flow, first)
    assert set(edges1) == {"true", "false"} and edges1["false"] == second
    edges2 = out_edges(flow, second)
    then1, then2, else2 = edges1["true"], edges2["true"], edges2["false"]
    # the three branches meet in the block of the last assignment
    last = block_of(flow, "assign", 4)
    assert all(list(flow.succs(b)) == [last] for b in (then1, then2, else2))
    assert list(flow.succs(last)) == [flow.exit]


def test_if_without_else_false_edge_goes_to_join():
    proc, flow = flow_of("int f(int a) { int x = 0; if (a > 0) x = a; return x; }", "t.c")
    check_invariants(flow)
    test = block_of(flow, "if")
    edges = out_edges(flow, test)
    assert edges["false"] in flow.succs(edges["true"])
    # the initialised declaration is a plain instruction
    assert flow.blocks[test].instrs[0].node.op == "varDecl" and flow.blocks[test].instrs[0].kind == "plain"


def test_declarations_without_initialiser_or_static_are_not_instructions():
    proc, flow = flow_of("int f(int a) { int x; static int calls = 0; double y = 2.0 * a; calls++; return x; }",
                         "t.c")
    ops = [(i.node.op, i.node.line) for i in flow.instructions()]
    assert [op for op, _ in ops] == ["varDecl", "assign", "return"]


# --- loops ---------------------------------------------------------------------------------------
def test_fortran_do_header_loop_and_exit_edges():
    proc, flow = flow_of("""
subroutine s(a, n)
  integer :: n, i
  real :: a(n)
  do i = 1, n, 2
    a(i) = 0.0
  end do
  a(1) = 1.0
end subroutine
""")
    check_invariants(flow)
    header = block_of(flow, "do", kind="loop")
    assert [i.kind for i in flow.blocks[header].instrs] == ["loop"]
    edges = out_edges(flow, header)
    body, after = edges["loop"], edges["exit"]
    assert label(flow, body, header) == "back"
    assert flow.blocks[after].instrs[0].node.op == "assign"
    (loop,) = flow.loops
    assert loop.header == header and loop.body == {header, body} and loop.depth == 1 and loop.parent is None


def test_loops_nested_four_deep_have_depths_and_parents():
    proc, flow = flow_of("""
subroutine s(a, n)
  integer :: n, i, j, k, l
  real :: a(n, n, n, n)
  do i = 1, n
    do j = 1, n
      k = 1
      do while (k < n)
        do l = 1, n
          a(i, j, k, l) = 0.0
        end do
        k = k + 1
      end do
    end do
  end do
end subroutine
""")
    check_invariants(flow)
    assert [loop.depth for loop in flow.loops] == [1, 2, 3, 4]
    assert [loop.parent for loop in flow.loops] == [None, 0, 1, 2]
    innermost = block_of(flow, "assign", 1)
    assert all(innermost in loop.body for loop in flow.loops)
    k_init = block_of(flow, "assign", 0)
    assert k_init in flow.loops[1].body and k_init not in flow.loops[2].body
    assert flow.loops[2].header == block_of(flow, "while")


def test_fortran_exit_and_cycle():
    proc, flow = flow_of("""
subroutine s(a, n)
  integer :: n, i
  real :: a(n)
  do i = 1, n
    if (a(i) < 0.0) cycle
    if (a(i) > 9.0) exit
    a(i) = 2.0 * a(i)
  end do
  a(1) = 0.0
end subroutine
""")
    check_invariants(flow)
    header = block_of(flow, "do", kind="loop")
    after = out_edges(flow, header)["exit"]
    cycle, exit_ = block_of(flow, "cycle"), block_of(flow, "exit")
    assert out_edges(flow, cycle) == {"back": header}
    assert out_edges(flow, exit_) == {"exit": after}
    assert flow.blocks[cycle].instrs[-1].kind == "exit"  # kept for display, no data effect


def test_while_header_and_back_edge():
    proc, flow = flow_of("int f(int n) { int k = 0; while (k < n) { k = k + 2; } return k; }", "t.c")
    check_invariants(flow)
    header = block_of(flow, "while")
    assert [i.kind for i in flow.blocks[header].instrs] == ["test"]
    edges = out_edges(flow, header)
    assert label(flow, edges["true"], header) == "back"
    assert flow.blocks[edges["false"]].instrs[0].node.op == "return"
    assert flow.loops[0].header == header and flow.loops[0].body == {header, edges["true"]}


def test_c_for_with_continue_and_break():
    proc, flow = flow_of("""
double f(double *a, int n) {
    double s = 0.0;
    int i;
    for (i = 0; i < n; i++) {
        if (a[i] < 0.0) continue;
        if (a[i] > 9.0) break;
        s += a[i];
    }
    return s;
}""", "t.c")
    check_invariants(flow)
    header = block_of(flow, "for")
    init = block_of(flow, "assign", 0)
    assert init != header and label(flow, init, header) == "next"
    edges = out_edges(flow, header)
    after = edges["false"]
    step = [b for b in flow.preds(header) if label(flow, b, header) == "back"][0]
    assert flow.blocks[step].instrs[0].node.op == "assign"  # i = i + 1
    assert out_edges(flow, block_of(flow, "cycle")) == {"next": step}
    assert out_edges(flow, block_of(flow, "exit")) == {"exit": after}
    assert flow.blocks[after].instrs[0].node.op == "return"
    (loop,) = flow.loops
    assert loop.header == header and step in loop.body and after not in loop.body


def test_c_for_without_condition_always_enters():
    proc, flow = flow_of("void f(int k) { for (;;) { k--; if (k < 0) break; } }", "t.c")
    check_invariants(flow)
    (loop,) = flow.loops
    header = loop.header
    assert flow.blocks[header].instrs == [] and list(out_edges(flow, header)) == ["next"]
    test = block_of(flow, "if")
    assert test in loop.body and out_edges(flow, test)["true"] not in loop.body  # break leaves


def test_do_while_tests_after_the_body():
    proc, flow = flow_of("int f(int j) { do { j = j - 1; if (j == 3) continue; j = j - 1; } while (j > 0); return j; }",
                         "t.c")
    check_invariants(flow)
    test = block_of(flow, "doWhile")
    start = block_of(flow, "assign", 0)
    edges = out_edges(flow, test)
    assert edges["true"] == start
    assert flow.blocks[edges["false"]].instrs[0].node.op == "return"
    assert out_edges(flow, block_of(flow, "cycle")) == {"next": test}  # continue re-tests
    (loop,) = flow.loops
    assert loop.header == start and test in loop.body


# --- jumps and labels ------------------------------------------------------------------------------
F77_GOTO = """\
      SUBROUTINE NEWTON(A, X, ITERS)
      DOUBLE PRECISION A, X, F, DF
      INTEGER ITERS
      ITERS = 0
  100 CONTINUE
      F = X*X - A
      IF (ABS(F) .LT. 1.0D-12) GOTO 200
      X = X - F/(2*X)
      ITERS = ITERS + 1
      IF (ITERS .GE. 50) GOTO 300
      GOTO 100
  200 CONTINUE
      X = X + 0.0D0
      RETURN
  300 X = -1.0D0
      END
"""


def test_goto_forward_and_backward_make_a_natural_loop():
    proc, flow = flow_of(F77_GOTO, "t.f")
    check_invariants(flow)
    l100 = block_of(flow, "nop", 0)
    l200 = block_of(flow, "nop", 1)
    l300 = block_of(flow, "assign", 5)
    back = block_of(flow, "goto", 2)
    assert out_edges(flow, back) == {"goto": l100}
    assert out_edges(flow, block_of(flow, "goto", 0)) == {"goto": l200}
    assert out_edges(flow, block_of(flow, "goto", 1)) == {"goto": l300}
    assert flow.blocks[l300].instrs[0].line == 15
    (loop,) = flow.loops
    assert loop.header == l100 and back in loop.body and l200 not in loop.body
    ret = block_of(flow, "return")
    assert out_edges(flow, ret) == {"return": flow.exit}
    assert flow.blocks[ret].instrs[-1].kind == "exit"


def test_computed_goto_and_arithmetic_if_are_tests_with_an_edge_per_label():
    """GO TO (l1, l2), k: a test of k with goto edges to l1 and l2 and a false edge to the next
    statement (k out of range); IF (e) l1, l2, l3: a test of e with goto edges only; both read
    their expression, with a function call split out of it first."""
    proc, flow = flow_of("""\
subroutine s(x, k)
  real :: x
  integer :: k
  go to (10, 20), k
  x = 0.0
10 if (g(x) - 1.0) 20, 30, 20
20 x = x + 1.0
30 continue
end subroutine
""")
    check_invariants(flow)
    computed, arithmetic = block_of(flow, "computedGoto"), block_of(flow, "arithmeticIf")
    l10, l20, l30 = block_of(flow, "call"), block_of(flow, "assign", 1), block_of(flow, "nop")
    edges = lambda b: {(label(flow, b, t), t) for t in flow.succs(b)}  # noqa: E731
    assert edges(computed) == {("goto", l10), ("goto", l20), ("false", block_of(flow, "assign", 0))}
    assert edges(arithmetic) == {("goto", l20), ("goto", l30)}
    assert arithmetic == l10  # the split call of g starts the labelled block
    test = flow.blocks[arithmetic].instrs[-1]
    assert test.kind == "test" and test.expr.op == "sub" and test.expr.kids[0].op == "call"
    assert flow.blocks[computed].instrs[-1].kind == "test"
    assert flow.loops == []


def test_return_in_the_middle_leaves_unreachable_code_in_its_own_block():
    proc, flow = flow_of("""
subroutine s(x)
  real :: x
  x = 1.0
  return
  x = 2.0
end subroutine
""")
    check_invariants(flow)
    ret = block_of(flow, "return")
    dead = block_of(flow, "assign", 1)
    assert dead != ret and list(flow.preds(dead)) == []
    assert out_edges(flow, ret) == {"return": flow.exit}
    assert dead in flow.rpo()  # unreachable blocks are kept, last


def test_labelled_f77_do_loops_with_goto_to_the_terminal_continue():
    proc, flow = flow_of("""\
      SUBROUTINE S(A, N)
      INTEGER N, I, J
      REAL A(N, N)
      DO 20 I = 1, N
         DO 10 J = 1, N
            IF (A(I, J) .LT. 0.0) GOTO 10
            A(I, J) = 2.0 * A(I, J)
   10    CONTINUE
   20 CONTINUE
      END
""", "t.f")
    check_invariants(flow)
    outer, inner = block_of(flow, "do", 0, kind="loop"), block_of(flow, "do", 1, kind="loop")
    target = block_of(flow, "nop", 0)
    assert out_edges(flow, block_of(flow, "goto")) == {"goto": target}
    assert out_edges(flow, target) == {"back": inner}
    assert [(lp.header, lp.depth) for lp in flow.loops] == [(outer, 1), (inner, 2)]
    assert target in flow.loops[1].body


def test_goto_out_of_nested_loops_and_into_a_labelled_loop():
    proc, flow = flow_of("""
subroutine s(a, n)
  integer :: n, i, j
  real :: a(n, n)
  do i = 1, n
    do j = 1, n
      if (a(i, j) < 0.0) goto 99
    end do
  end do
99 a(1, 1) = 0.0
end subroutine
""")
    check_invariants(flow)
    target = block_of(flow, "assign")
    assert out_edges(flow, block_of(flow, "goto")) == {"goto": target}
    assert [lp.depth for lp in flow.loops] == [1, 2]
    assert all(target not in lp.body for lp in flow.loops)


def test_jump_errors_name_the_line():
    with pytest.raises(SourceError) as e:
        build("subroutine s(x)\n  real :: x\n  x = 1.0\n  goto 10\nend subroutine\n")
    assert e.value.line == 4 and "10" in e.value.message
    with pytest.raises(SourceError) as e:
        build("void f(int x) {\n  x = 1;\n  break;\n}\n", "t.c")
    assert e.value.line == 3


# --- function calls split out of expressions -------------------------------------------------------
SPLIT = """
module m
contains
  real(8) function f(x)
    real(8) :: x
    f = 2 * x
  end function
  integer function g(i)
    integer :: i
    g = i + 1
  end function
end module

subroutine s(x, y, n)
  use m
  real(8) :: x, y
  integer :: n, i
  y = f(f(x)) + f(y) * g(n)
  call sub(f(x), n)
  do i = 1, g(n)
    y = y + 1
  end do
  do while (f(y) < 10.0d0)
    y = y + 1
  end do
end subroutine

subroutine sub(x, n)
  real(8) :: x
  integer :: n
end subroutine
"""


def test_split_calls_innermost_first_left_to_right_with_temporaries():
    proc, flow = flow_of(SPLIT, name="s")
    check_invariants(flow)
    first = flow.blocks[block_of(flow, "assign", 0)]
    calls = [i for i in first.instrs if i.kind == "call" and i.result is not None][:4]
    assign = flow.blocks[block_of(flow, "assign", 0)].instrs[4]
    rhs = assign.node.kids[1]
    outer_f, inner_f = rhs.kids[0], rhs.kids[0].kids[1][0]
    f_y, g_n = rhs.kids[1].kids[0], rhs.kids[1].kids[1]
    assert [c.node for c in calls] == [inner_f, outer_f, f_y, g_n]
    assert all(c.node is n for c, n in zip(calls, [inner_f, outer_f, f_y, g_n]))
    assert [proc.call_results[id(n)] for n in (inner_f, outer_f, f_y, g_n)] == [c.result for c in calls]
    names = [name for name, _ in temps(proc)]
    assert names[:4] == ["f_result1", "f_result2", "f_result3", "g_result1"]
    types = [typ for _, typ in temps(proc)[:4]]
    assert [(t.kids[0], t.kids[1]) for t in types] == [("real", 8)] * 3 + [("integer", None)]
    assert all(c.line == assign.line for c in calls)


def test_call_statement_after_its_argument_calls():
    proc, flow = flow_of(SPLIT, name="s")
    stmt = [i for i in flow.instructions() if i.kind == "call" and i.result is None]
    assert len(stmt) == 1 and stmt[0].node.op == "call" and stmt[0].node.kids[0] == "sub"
    block = flow.blocks[stmt[0].block]
    before = block.instrs[stmt[0].index - 1]
    assert before.kind == "call" and before.node.kids[0] == "f" and before.result is not None


def test_calls_in_loop_bounds_run_before_the_loop_and_in_conditions_at_each_test():
    proc, flow = flow_of(SPLIT, name="s")
    do_header = block_of(flow, "do", kind="loop")
    g_call = [i for i in flow.instructions() if i.kind == "call" and i.node.kids[0] == "g"][-1]
    assert g_call.block != do_header and label(flow, g_call.block, do_header) == "next"
    while_header = block_of(flow, "while")
    kinds = [(i.kind, i.node.op) for i in flow.blocks[while_header].instrs]
    assert kinds == [("call", "call"), ("test", "while")]
    assert flow.loops[1].header == while_header


def test_external_and_shared_calls():
    # an unknown external function is still a call instruction; a call node shared by the
    # C front end between both sides of `+=` is run once
    proc, flow = flow_of("""
double ext(double);
double f(double *a, int i) { a[i] += ext(a[i]); return a[i]; }
""", "t.c", name="f")
    calls = [i for i in flow.instructions() if i.kind == "call"]
    assert len(calls) == 1 and calls[0].result is not None
    assert temps(proc)[0][0] == "ext_result1"
    assert temps(proc)[0][1].kids[0] == "real"


# --- display and speed --------------------------------------------------------------------------------
def test_dot_shows_blocks_instructions_and_edges():
    proc, flow = flow_of(SPLIT, name="s")
    text = flow_graph_dot(proc)
    assert text.startswith('digraph "s" {') and text.rstrip().endswith("}")
    assert "f_result1 = f(x)" in text and "f_result2 = f(f_result1)" in text
    assert "y = f_result2 + f_result3*g_result1" in text
    assert "do i = 1, g_result2" in text and 'label="back"' in text and "loop header, depth 1" in text


def big_program(n_procs=100, stmts=25):
    """n_procs copies of a procedure of stmts loops holding an if and a call: about
    n_procs * stmts * 7 lines. Parsed once and copied (parsing is not what is measured)."""
    body = "".join(f"  do i = 1, n\n    if (a(i) > {k}.0d0) then\n      a(i) = a(i) * 0.5d0 + s\n"
                   f"    else\n      call p0(a, i)\n    end if\n  end do\n" for k in range(stmts))
    src = f"subroutine p0(a, n)\n  integer :: n, i, j\n  real(8) :: a(n), s\n{body}end subroutine p0\n"
    template = parse_source(src, "big.f90")
    proc = template.kids[0]
    copies = [proc.replace(name=f"p{k}") for k in range(n_procs)]
    return template.with_kids(*copies), src.count("\n") * n_procs


def test_ten_thousand_lines_build_quickly():
    tree, lines = big_program()
    assert lines > 10000
    start = time.perf_counter()
    program = build_program(tree)
    elapsed = time.perf_counter() - start
    assert len(program.procedures) == 100 and len(program.call_sites) == 2500
    assert program.bottom_up()[0] == ["p0"] and program.callgraph.has_edge("p0", "p0")
    assert elapsed < 6.0, elapsed  # a guard against quadratic growth (~0.7 s); bench/ measures speed


def test_loop_nested_first_in_a_do_while_keeps_its_own_header():
    proc, flow = flow_of("void f(int i, int j) { do { while (j > 0) j--; i--; } while (i > 0); }", "t.c")
    check_invariants(flow)
    assert [lp.depth for lp in flow.loops] == [1, 2]
    assert flow.loops[1].header == block_of(flow, "while")
    assert flow.loops[0].header != flow.loops[1].header


def test_goto_to_a_labelled_loop_restarts_it_from_before_its_header():
    proc, flow = flow_of("""\
      SUBROUTINE S(N, K)
      INTEGER N, K, I
   10 DO 20 I = 1, N
         K = K + I
   20 CONTINUE
      IF (K .LT. 100) GOTO 10
      END
""", "t.f")
    check_invariants(flow)
    header = block_of(flow, "do", kind="loop")
    target, = [s for s in flow.succs(block_of(flow, "goto"))]
    assert target != header and label(flow, target, header) == "next"
    assert [lp.header for lp in flow.loops] == [target, header]


def test_long_else_if_chain_and_deep_expression():
    branches = "".join(f"  else if (k == {i}) then\n    x = {i}.0 + f(x)\n" for i in range(600))
    src = f"""
subroutine s(k, x)
  integer :: k
  real :: x, f
  if (k < 0) then
    x = 0.0
{branches}  end if
  x = f(x)
end subroutine
"""
    # a 5000-term sum ending in a function call, built as IL (too deep for the Fortran parser)
    tree = parse_source(src, "t.f90")
    proc_node = tree.kids[0]
    body = proc_node.kids[7]
    last = body.kids[-1]
    deep = last.kids[1]
    for _ in range(5000):
        deep = mk("add", deep, mk("ident", "x"))
    body = body.with_kids(*body.kids[:-1], last.replace(rhs=deep))
    program = build_program(tree.with_kids(proc_node.replace(body=body)))
    proc = program.procedure("s")
    flow = proc.flow
    check_invariants(flow)
    tests = [i for i in flow.instructions() if i.kind == "test"]
    assert len(tests) == 601
    join = block_of(flow, "assign", 601)
    assert len(list(flow.preds(join))) == 602  # every branch, and the last test's false edge
    assert len(temps(proc)) == 601
    assert "x = f_result601 + x + x" in flow_graph_dot(proc)


# --- switch ------------------------------------------------------------------------------------------
def node_block(flow, pred):
    """The block of the first instruction whose node satisfies pred."""
    return next(i.block for b in flow.blocks.values() for i in b.instrs if pred(i.node))


def assigns_to(name, value):
    return lambda n: n.op == "assign" and n.kids[0] == mk("ident", name) and n.kids[1] == mk("intCst", value, None)


def test_c_switch_edges_fall_through_and_break():
    proc, flow = flow_of("""
int f(int i, int n) {
    int s = 0, k;
    for (k = 0; k < n; k++) {
        switch (i) {
        case 1:
        case 2:
            s = 1;
            break;
        case 3:
            s = 3;
            if (k > 2) continue;
        default:
            s = 5;
        }
        s = 7;
    }
    return s;
}
""", "t.c")
    check_invariants(flow)
    test = block_of(flow, "switch")
    assert flow.blocks[test].instrs[-1].kind == "test"
    assert flow.blocks[test].instrs[-1].expr == mk("ident", "i")
    one, three, five = (node_block(flow, assigns_to("s", v)) for v in (1, 3, 5))
    after = node_block(flow, assigns_to("s", 7))
    assert {s: label(flow, test, s) for s in flow.succs(test)} == {one: "true", three: "true", five: "false"}
    brk = block_of(flow, "exit")
    assert out_edges(flow, brk) == {"exit": after}                  # break leaves the switch only
    fall = [b for b in flow.preds(five) if b != test]
    assert len(fall) == 1 and label(flow, fall[0], five) == "next"  # case 3 falls into default
    cont = block_of(flow, "cycle")
    step = out_edges(flow, cont)["next"]                             # continue goes to the for step
    assert flow.blocks[step].instrs[0].node.op == "assign" and flow.blocks[step].instrs[0].node.kids[0] == mk("ident", "k")
    assert out_edges(flow, five) == {"next": after}


def test_c_switch_without_default_has_a_false_edge_past_it():
    proc, flow = flow_of("void f(int i, int *j) { switch (i) { case 1: *j = 2; } *j = 3; }", "t.c")
    check_invariants(flow)
    test = block_of(flow, "switch")
    edges = out_edges(flow, test)
    assert set(edges) == {"true", "false"}
    assert flow.blocks[edges["false"]].instrs[0].node.kids[1] == mk("intCst", 3, None)
    assert edges["false"] in flow.succs(edges["true"])


def test_break_in_switch_outside_a_loop_is_fine_but_continue_is_not():
    with pytest.raises(SourceError) as e:
        flow_of("void f(int i, int *j) {\n switch (i) {\n case 1: continue;\n } }", "t.c")
    assert e.value.line == 3


def test_fortran_select_case_has_no_fall_through_and_exit_belongs_to_the_do():
    # do k = 1, n: select case (i): case (1): x = 1; exit; case (2:): x = 2; end select; x = 7
    I, C = (lambda n: mk("ident", n)), (lambda v: mk("intCst", v, None))
    T = mk("type", "integer", 4, None)
    sel = mk("switch", I("i"), (
        mk("case", (C(1),), mk("block", mk("assign", I("x"), C(1)), mk("exit"))),
        mk("case", (mk("caseRange", C(2), None),), mk("block", mk("assign", I("x"), C(2))))), False)
    body = mk("block", mk("do", I("k"), C(1), I("n"), None, mk("block", sel, mk("assign", I("x"), C(7)))),
              mk("assign", I("x"), C(9)))
    decls = (mk("varDecl", T, (), tuple(mk("declarator", v, None, None, 0) for v in ("i", "n", "k", "x"))),)
    proc = mk("procedure", "s", "subroutine", ("i", "n", "x"), None, None, (), decls, body, ())
    program = build_program(mk("file", proc, lang="fortran", form="free", filename="t.f90"))
    flow = program.procedure("s").flow
    check_invariants(flow)
    test = block_of(flow, "switch")
    one, two, seven, nine = (node_block(flow, assigns_to("x", v)) for v in (1, 2, 7, 9))
    assert {s: label(flow, test, s) for s in flow.succs(test)} == {one: "true", two: "true", seven: "false"}
    assert list(flow.succs(two)) == [seven]                       # no fall-through
    header = block_of(flow, "do", kind="loop")
    assert out_edges(flow, one) == {"exit": out_edges(flow, header)["exit"]} == {"exit": nine}
