"""Statement ids stamped on the IL, and the Facts interface the rules read (analyses/facts.py),
on small programs; use(I') of calls is one definition for Diff-live, TBR and Adj-out."""
from pathlib import Path

import pytest

import adspec
from adspec.analyses import run_analyses
from adspec.analyses.facts import Facts
from adspec.engine.bitsets import zones_of
from adspec.engine.il import STATEMENT_OPS, walk
from adspec.engine.program import build_program
from adspec.heads import parse_heads, resolve_heads

EXAMPLES = Path(__file__).parent.parent / "docs" / "examples"   # the paper's figures, shown in the tutorial


def facts_of(text, head):
    program = build_program(adspec.parse(text, lang="fortran", filename="t.f90"))
    results = run_analyses(program, resolve_heads(program, parse_heads(head)))
    return program, results, Facts(program, results)


def statements(program, proc_name):
    """line -> the statement of that line (the first one) in the procedure."""
    proc = program.procedure(proc_name)
    found = {}
    for node in walk(proc.node.kids[7]):
        if node.ann.get("sid") is not None and node.op != "block":
            found.setdefault(node.line, node)
    return found


def names(proc, s):
    return {proc.zones.zones[z].name for z in zones_of(s)}


# --- statement ids -------------------------------------------------------------------------------
SIDS = """\
subroutine s(a, n)
  real :: a(n)
  integer :: n, i
  do i = 1, n
    if (a(i) > 0.0) then
      a(i) = f(a(i)) * 2.0
    else if (a(i) < -1.0) then
      a(i) = 0.0
    end if
  end do
  select case (n)
  case (1)
    call t(a(1))
  case default
    a(1) = 1.0
  end select
contains
  real function f(x)
    real :: x
    f = x*x
  end function
end subroutine
subroutine t(x)
  real :: x
  x = x + 1.0
end subroutine
"""


def test_sids_unique_deterministic_and_on_every_statement():
    p1 = build_program(adspec.parse(SIDS, lang="fortran", filename="t.f90"))
    p2 = build_program(adspec.parse(SIDS, lang="fortran", filename="t.f90"))
    sids1 = [(n.op, n.ann.get("sid")) for n in walk(p1.files[0]) if n.ann.get("sid") is not None]
    sids2 = [(n.op, n.ann.get("sid")) for n in walk(p2.files[0]) if n.ann.get("sid") is not None]
    assert sids1 == sids2                                                   # stable across builds
    numbers = [sid for _, sid in sids1]
    assert numbers == list(range(len(numbers)))                             # unique, pre-order
    ops = {op for op, _ in sids1}
    assert {"do", "if", "assign", "switch", "case", "call", "block"} <= ops
    for proc in p1.procedures.values():                                     # every statement
        for node in walk(proc.node.kids[7]):
            if node.op in STATEMENT_OPS and node.op not in ("call", "intrinsic"):
                assert node.ann.get("sid") is not None, node
        for instr in proc.flow.instructions():                              # the flow graph's nodes
            if not (instr.kind == "call" and instr.result is not None):     # are the stamped ones
                assert instr.node.ann.get("sid") is not None, instr
    # the call expression f(a(i)) is not a statement
    calls = [n for n in walk(p1.files[0]) if n.op == "call" and n.kids[0] == "f"]
    assert calls and all(c.ann.get("sid") is None for c in calls)
    assert p1.files[0] == adspec.parse(SIDS, lang="fortran", filename="t.f90")  # equality ignores sid


def test_program_statement_finds_procedure_and_node():
    program = build_program(adspec.parse(SIDS, lang="fortran", filename="t.f90"))
    for proc in program.procedures.values():
        for instr in proc.flow.instructions():
            sid = instr.node.ann.get("sid")
            if sid is not None:
                owner, node = program.statement(sid)
                assert owner is proc and node is instr.node
    assert program.statement(0)[1].op == "block"
    with pytest.raises(KeyError):
        program.statement(10 ** 6)


# --- fig. 9 --------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def fig9():
    program, results, facts = facts_of((EXAMPLES / "fig9.f90").read_text(), "fig9(d, e)/(a, b, c)")
    return program, facts, statements(program, "fig9")


def test_fig9_activity_predicates(fig9):
    program, facts, at = fig9
    a_is_5 = at[6]
    assert not facts.is_active_ref_after(a_is_5.lhs, a_is_5)               # a = 5.0: a not active
    d_is = at[7]                                                            # d = a*c
    assert facts.is_active_ref_after(d_is.lhs, d_is)
    assert facts.is_active_expr(d_is.rhs, d_is)
    a_ref, c_ref = d_is.rhs.kids
    assert not facts.is_active_expr(a_ref, d_is) and facts.is_active_expr(c_ref, d_is)
    x_is = at[5]                                                            # x = a*b: x never useful
    assert facts.is_active_expr(x_is.rhs, x_is) is False                   # a, b not useful there
    assert not facts.has_derivative(x_is.lhs, x_is)
    assert facts.has_derivative(d_is.lhs, d_is) and facts.has_derivative(c_ref, d_is)
    assert facts.diff_variables("fig9") == frozenset({"a", "b", "c", "d", "e"})
    assert facts.procedure_of(d_is) == "fig9" and facts.line_of(d_is) == 7


def test_fig9_head_independents_and_dependents(fig9):
    program, facts, at = fig9
    assert facts.is_diff_proc("fig9")
    assert facts.diff_formals("fig9") == ("a", "b", "c", "d", "e")
    assert facts.diff_procedures() == ["fig9"]


def test_fig12_statements_not_live_for_diff():
    program, results, facts = facts_of((EXAMPLES / "fig12.f90").read_text(), "fig12(a, b, x, z)/(a, b, x, z)")
    at = statements(program, "fig12")
    assert not facts.is_live_for_diff(at[13])                              # z(n) = z(n) + c
    assert not facts.is_live_for_diff(at[10])                              # c = a(n)*b(n)
    for line in (7, 8, 9, 12):
        assert facts.is_live_for_diff(at[line]), line
    assert "n" not in facts.tbr_before(at[7])
    assert "a" in facts.tbr_before(at[9])
    assert "n" in facts.tbr_before(at[12])


# --- calls: passive calls, generalisation, control ---------------------------------------------
CALLS = """\
subroutine g(u, w, v)
  real :: u, w, v
  v = u*w
end subroutine
subroutine never(u)
  real :: u
  u = 2.0
end subroutine
subroutine top(x, y, n)
  real :: x, y, p, q, y1, y2
  integer :: n, i
  p = 1.0
  call g(p, p, q)
  call g(x, 2.0, y1)
  call g(3.0, x, y2)
  call never(p)
  y = y1 + y2 + q
  do i = 1, n
    y = y*x
  end do
  do i = 1, n
    p = p + 1.0
  end do
end subroutine
"""


@pytest.fixture(scope="module")
def calls():
    program, results, facts = facts_of(CALLS, "top(y)/(x)")
    return program, facts, statements(program, "top")


def test_passive_and_active_calls(calls):
    program, facts, at = calls
    assert not facts.is_active_call(at[13])                                # call g(p, p, q)
    assert facts.is_active_call(at[14]) and facts.is_active_call(at[15])
    assert facts.actual_is_active(at[14], 0) and not facts.actual_is_active(at[14], 1)
    assert facts.actual_is_active(at[14], 2)                               # y1: Active⁺
    assert not facts.actual_is_active(at[15], 0) and facts.actual_is_active(at[15], 1)
    assert not facts.is_active_call(at[16]) and not facts.is_diff_proc("never")
    assert facts.is_joint(at[14])


def test_generalisation_union_of_active_contexts(calls):
    program, facts, at = calls
    assert facts.is_diff_proc("g")
    assert facts.diff_formals("g") == ("u", "w", "v")      # u active in one call, w in the other
    assert facts.is_diff_formal_arg("g", "u") and facts.is_diff_formal_arg("g", "w")
    assert facts.diff_formals("top") == ("x", "y")         # the head: not n
    assert not facts.is_diff_formal_arg("top", "n")
    assert facts.diff_procedures() == ["g", "top"]         # callees first
    assert "p" not in facts.diff_variables("top") and "q" not in facts.diff_variables("top")


def test_control_statements(calls):
    program, facts, at = calls
    assert facts.is_live_for_diff(at[18])                  # do i: its body has a derivative
    assert not facts.is_live_for_diff(at[21])              # do i: p = p + 1.0 is passive
    assert not facts.is_active_expr(at[18].kids[2], at[18])  # the bound n


# --- globals -------------------------------------------------------------------------------------
GLOBALS = """\
module m
  real :: gv
contains
  subroutine setg(x)
    real :: x
    gv = x*x
  end subroutine
  subroutine sq()
    gv = gv*gv
  end subroutine
end module
subroutine top2(x, y)
  use m
  real :: x, y
  real :: c
  common /blk/ c
  call setg(x)
  call sq()
  c = gv + 1.0
  y = c*2.0
end subroutine
"""


def test_active_globals():
    program, results, facts = facts_of(GLOBALS, "top2(y)/(x)")
    at = statements(program, "top2")
    assert facts.is_active_call(at[18])                    # call sq(): only the global gv
    assert facts.is_diff_proc("m.sq") and facts.diff_formals("m.sq") == ()
    assert {"gv", "c", "x", "y"} <= facts.diff_variables("top2")
    sq = statements(program, "m.sq")[9]
    assert facts.has_derivative(sq.lhs, sq)
    assert facts.is_active_ref_after(at[19].lhs, at[19])   # c (COMMON) = gv + 1.0
    order = facts.diff_procedures()                        # callees first
    assert set(order) == {"m.setg", "m.sq", "top2"} and order[-1] == "top2"


# --- use(I'): one definition for Diff-live, TBR and Adj-out -------------------------------------
EXTERNAL = """\
subroutine ext_user(x, y)
  real :: x, y, t
  t = x*x
  call extf(t, y)
  t = 0.0
end subroutine
"""


def test_use_of_external_call_is_the_same_for_all_analyses():
    """An active call of a procedure with no source becomes a call of the user's extf_d with
    the actual arguments and their derivatives: its derivative reads t and y. Diff-live,
    TBR and Adj-out used to disagree (TBR and Adj-out took ∅)."""
    program, results, facts = facts_of(EXTERNAL, "ext_user(y)/(x)")
    proc = program.procedure("ext_user")
    call = next(i for i in proc.flow.instructions() if i.kind == "call")
    assert program.call_sites.get(id(call)) is None                        # external
    use = results.uses.call_uses(proc, call, results.diff_live.summaries)
    assert names(proc, use) == {"t", "y"}
    assert results.tbr.analysis.derivative_uses(proc, call) == use        # TBR and Adj-out
    assert use & ~results.diff_live.before(proc, call) == 0                # Diff-live⁻ ⊇ use(I')
    assert "t" in names(proc, results.tbr[proc.name].after(call))          # t enters TBR
    assert "t" not in names(proc, results.adj_out[proc.name].before(call))  # restored: not Adj-out
    at = statements(program, "ext_user")
    assert "t" in facts.tbr_after(at[4]) and "t" in facts.tbr_before(at[5])


def test_use_of_passive_call_is_empty_for_all_analyses(calls):
    program, facts, at = calls
    results = facts.results
    proc = program.procedure("top")
    passive = next(i for i in proc.flow.instructions() if i.node is at[13])
    assert results.uses.call_uses(proc, passive, results.diff_live.summaries) == 0
    assert results.tbr.analysis.derivative_uses(proc, passive) == 0
    assert "p" not in names(proc, results.tbr[proc.name].after(passive))  # g's uses of u, w: not here


# --- the instruction that evaluates an expression ------------------------------------------------
NESTED_CALLS = """\
subroutine s(x, z, w, y)
  real :: x, z, w, y
  y = g(g(x) * z) + w
contains
  real function g(v)
    real :: v
    g = v*v
  end function
end subroutine
"""


def test_reader_of_an_expression_is_the_innermost_call_holding_it():
    """f(f(x)) evaluates x at the inner split call, the outer call's other operands at the
    outer one, the rest of the statement at its own instruction (one table per statement).
    Distinct names: the built program shares equal leaves (one node for every x)."""
    program, _, facts = facts_of(NESTED_CALLS, "s(y)/(x z w)")
    stmt = statements(program, "s")[3]
    outer = stmt.kids[1].kids[0]                 # g(g(x) * z)
    product = outer.kids[1][0]                   # g(x) * z
    inner, z_of_outer = product.kids             # g(x), z
    x_of_inner, w_of_statement = inner.kids[1][0], stmt.kids[1].kids[1]
    main = facts._main(stmt)[1]                  # (indexes the procedure's instructions)
    calls = facts._call_expr[program.procedure("s").name]
    assert facts._reader(x_of_inner, stmt)[1] is calls[id(inner)]
    assert facts._reader(z_of_outer, stmt)[1] is calls[id(outer)]
    assert facts._reader(product, stmt)[1] is calls[id(outer)]
    assert facts._reader(w_of_statement, stmt)[1] is main and main.node is stmt
    assert facts._reader(outer, stmt)[1] is main   # the call itself: its temporary, read by the statement
