"""The rule runner (engine/rules.py) and IL trees as miniKanren terms (engine/kanren_il.py).

The rule sets here are toys written in the style the tangent rules use; the engine knows none.
"""
import io
import sys
import time
from contextlib import redirect_stdout

import pytest
from kanren import eq, lall, var
from unification import reify, unify

from adspec.engine.il import Node, mk
from adspec.engine.kanren_il import cons, is_ground, pattern
from adspec.engine.rules import RULE_SETS, Context, RuleError, RuleSet
import adspec.rules.tangent  # noqa: F401,E402  (registered now, not into a list a test patches)


def ident(name, **ann):
    return mk("ident", name, **ann)


def real(text):
    return mk("realCst", text, 8)


# --- Node unification ---------------------------------------------------------------

def test_a_pattern_with_variables_in_its_kids_unifies_with_a_real_tree_x_plus_2y():
    tree = mk("add", ident("x"), mk("mul", real("2.0"), ident("y")))
    a, b = var(), var()
    s = unify(pattern("add", a, pattern("mul", real("2.0"), b)), tree, {})
    assert s[a] == ident("x") and s[b] == ident("y")


def test_different_operators_or_plain_kids_do_not_unify():
    a = var()
    assert unify(pattern("sub", a, a), mk("add", ident("x"), ident("x")), {}) is False
    assert unify(pattern("ident", "y"), ident("x"), {}) is False
    assert unify(pattern("intCst", a, None), mk("intCst", 3, 8), {}) is False


def test_a_variable_used_twice_requires_equal_subtrees_x_times_x():
    a = var()
    assert unify(pattern("mul", a, a), mk("mul", ident("x"), ident("x")), {}) is not False
    assert unify(pattern("mul", a, a), mk("mul", ident("x"), ident("y")), {}) is False


def test_annotations_are_ignored_when_matching_and_the_pattern_ann_is_kept_on_reify():
    tree = mk("assign", ident("y", line=7), ident("x", line=7), line=7)
    lhs, rhs = var(), var()
    s = unify(pattern("assign", lhs, rhs), tree, {})
    assert s[lhs].line == 7
    rebuilt = reify(pattern("assign", rhs, lhs, line=99), s)
    assert rebuilt == mk("assign", ident("x"), ident("y")) and rebuilt.line == 99
    assert unify(pattern("assign", ident("y", line=1), rhs), tree, {}) is not False


def test_a_variable_matches_a_whole_tuple_kid_and_cons_splits_it_call_f_of_x_y():
    call = mk("call", "f", (ident("x"), ident("y")))
    args, first, rest = var(), var(), var()
    assert unify(pattern("call", "f", args), call, {})[args] == (ident("x"), ident("y"))
    s = unify(pattern("call", "f", cons(first, rest)), call, {})
    assert s[first] == ident("x") and s[rest] == (ident("y"),)
    assert reify(pattern("call", "g", cons(first, rest)), s) == mk("call", "g", (ident("x"), ident("y")))


def test_rest_stands_for_the_remaining_kids_of_a_variadic_block():
    block = mk("block", mk("nop"), mk("exit"), mk("cycle"))
    first, rest = var(), var()
    s = unify(pattern("block", first, rest=rest), block, {})
    assert s[first] == mk("nop") and s[rest] == (mk("exit"), mk("cycle"))
    assert reify(pattern("block", rest=rest), s) == mk("block", mk("exit"), mk("cycle"))
    assert unify(pattern("block", first, rest=rest), mk("block"), {}) is False


def test_a_plain_Node_built_with_variables_is_a_pattern_too():
    from adspec.engine.il import Node
    lhs = var()
    s = unify(Node("assign", (lhs, ident("x"))), mk("assign", ident("y"), ident("x")), {})
    assert s[lhs] == ident("y")
    assert not is_ground(Node("assign", (lhs, ident("x")))) and is_ground(ident("x"))


# --- the goals the rules are written with (engine.kanren_il: kanren's, deterministic-aware) ---

def test_a_conjunction_of_deterministic_goals_gives_the_state_kanrens_lall_gives():
    from kanren import conde
    from adspec.engine import kanren_il as K
    tree = mk("assign", ident("y"), mk("mul", real("2.0"), ident("x")))
    lhs, rhs, a, b = K.var(), K.var(), K.var(), K.var()
    goals = (K.eq(tree, pattern("assign", lhs, rhs)), K.eq(rhs, pattern("mul", a, b)))
    ours = K.lall(*goals)
    assert isinstance(ours, K.Goal)
    state = ours.step({})
    assert (state[lhs], state[a], state[b]) == (ident("y"), real("2.0"), ident("x"))
    assert list(ours({})) == list(lall(*goals)({})) == [state]          # kanren's lall agrees
    assert K.lall(*goals, K.eq(a, ident("z"))).step({}) is None
    either = K.lall(goals[0], conde([eq(lhs, ident("y"))], [eq(lhs, ident("w"))]))
    assert not isinstance(either, K.Goal) and len(list(either({}))) == 1   # kanren's own lconj


def test_fresh_variables_are_distinct_and_unify_like_kanrens():
    from adspec.engine.kanren_il import FreshVar, unify_terms, var as fresh
    a, b = fresh(), fresh()
    assert isinstance(a, FreshVar) and a != b and len({a, b}) == 2
    assert unify((a, b), (ident("x"), ident("x")), {}) == unify_terms((a, b), (ident("x"), ident("x")), {})
    assert unify_terms(pattern("mul", a, a), mk("mul", ident("x"), ident("y")), {}) is False


def test_groundness_is_cached_on_nodes_and_a_deep_tree_needs_no_recursion():
    from adspec.engine.kanren_il import UnboundVariable, ground_value
    deep, chain = ident("x"), []
    for _ in range(5000):
        deep = mk("add", deep, ident("y"))
        chain.append(deep)
    assert deep._ground is True             # built of plain values and ground nodes: known at once
    for node in chain:                      # not known (the cache as a pattern's nodes start)
        Node._ground.__set__(node, None)
    assert deep._ground is None and is_ground(deep) and deep._ground is True
    assert deep.kids[0]._ground is True                        # every node below is known too
    a = var()
    with pytest.raises(UnboundVariable):
        ground_value(pattern("neg", a), {})
    assert ground_value(pattern("neg", a), {a: deep}) == mk("neg", deep)


# --- a toy tangent rule set ---------------------------------------------------------

class ToyFacts:
    """Active variables are those named in `active`; every statement is live."""

    def __init__(self, active=("x", "y")):
        self.active = set(active)

    def is_active(self, expr):
        return any(n.op == "ident" and n.name in self.active for n in _walk(expr))

    def is_live_for_diff(self, stmt):
        return True


def _walk(node):
    from adspec.engine.il import walk
    return walk(node)


def diff_name(name):
    return name + "d"


TOY = RuleSet("toy tangent rules")


@TOY.rule("T-assign-active", judgment="tangent", ops=("assign",), section="5.3",
          source="reconstructed: docs/rules.md#t-assign",
          premises=("isLiveForDiff(I)", "isActive(LHS)", "LHS →expr LHSd", "RHS →expr RHSd"),
          conclusion="LHS = RHS  →  LHSd = RHSd ; LHS = RHS")
def t_assign_active(stmt, out, ctx):
    lhs, rhs, lhs_d, rhs_d = var(), var(), var(), var()
    guard = lall(eq(stmt, pattern("assign", lhs, rhs)),
                 ctx.fact("is_live_for_diff", stmt), ctx.fact("is_active", lhs))
    body = lall(ctx.derive("expr", lhs, lhs_d), ctx.derive("expr", rhs, rhs_d),
                eq(out, pattern("block", pattern("assign", lhs_d, rhs_d), stmt)))
    return guard, body


@TOY.rule("T-assign-passive", judgment="tangent", ops=("assign",), section="5.3",
          source="reconstructed: docs/rules.md#t-assign",
          premises=("¬isActive(LHS)",), conclusion="LHS = RHS  →  LHS = RHS")
def t_assign_passive(stmt, out, ctx):
    lhs = var()
    return lall(eq(stmt, pattern("assign", lhs, var())), ctx.no_fact("is_active", lhs)), eq(out, stmt)


@TOY.rule("E-ident-active", judgment="expr", ops=("ident",), section="5.3", source="verbatim",
          premises=("isActive(v)",), conclusion="v  →expr  vd")
def e_ident_active(expr, out, ctx):
    name, name_d = var(), var()
    return (lall(eq(expr, pattern("ident", name)), ctx.fact("is_active", expr)),
            lall(ctx.compute(diff_name, name, name_d), eq(out, pattern("ident", name_d))))


@TOY.rule("E-passive", judgment="expr", ops=("ident", "realCst", "intCst"), section="5.3",
          source="verbatim", premises=("¬isActive(E)",), conclusion="E  →expr  0")
def e_passive(expr, out, ctx):
    return ctx.no_fact("is_active", expr), eq(out, real("0.0"))


@TOY.rule("E-mul", judgment="expr", ops=("mul",), section="5.3", source="verbatim",
          premises=("A →expr Ad", "B →expr Bd"), conclusion="A*B  →expr  Ad*B + A*Bd")
def e_mul(expr, out, ctx):
    a, b, a_d, b_d = var(), var(), var(), var()
    return (eq(expr, pattern("mul", a, b)),
            lall(ctx.derive("expr", a, a_d), ctx.derive("expr", b, b_d),
                 eq(out, pattern("add", pattern("mul", a_d, b), pattern("mul", a, b_d)))))


@TOY.rule("E-add", judgment="expr", ops=("add",), section="5.3", source="verbatim",
          premises=("A →expr Ad", "B →expr Bd"), conclusion="A+B  →expr  Ad + Bd")
def e_add(expr, out, ctx):
    a, b, a_d, b_d = var(), var(), var(), var()
    return (eq(expr, pattern("add", a, b)),
            lall(ctx.derive("expr", a, a_d), ctx.derive("expr", b, b_d), eq(out, pattern("add", a_d, b_d))))


def toy_context(active=("x", "y")):
    return Context(TOY, ToyFacts(active))


def test_the_toy_tangent_of_z_eq_x_times_y_is_zd_eq_xd_y_plus_x_yd_then_z_eq_x_y():
    stmt = mk("assign", ident("z", line=4), mk("mul", ident("x"), ident("y")), line=4)
    result, derivation = TOY.apply("tangent", stmt, toy_context(active=("x", "y", "z")))
    assert result == mk("block",
                        mk("assign", ident("zd"), mk("add", mk("mul", ident("xd"), ident("y")),
                                                     mk("mul", ident("x"), ident("yd")))),
                        stmt)
    assert derivation.rule.name == "T-assign-active" and derivation.node is stmt
    assert [f.name for f in derivation.facts] == ["is_live_for_diff", "is_active"]
    assert [c.rule.name for c in derivation.children] == ["E-ident-active", "E-mul"]
    assert [d.rule.name for d in derivation.walk()] == [
        "T-assign-active", "E-ident-active", "E-mul", "E-ident-active", "E-ident-active"]


def test_a_passive_factor_derives_to_zero_and_no_fact_is_recorded_as_false_z_eq_x_times_c():
    stmt = mk("assign", ident("z"), mk("mul", ident("x"), ident("c")), line=5)
    result, derivation = TOY.apply("tangent", stmt, toy_context(active=("x", "z")))
    mul = derivation.children[1]
    assert [c.rule.name for c in mul.children] == ["E-ident-active", "E-passive"]
    assert mul.children[1].facts[0] == ("is_active", (ident("c"),), False)
    assert result.kids[0].rhs == mk("add", mk("mul", ident("xd"), ident("c")), mk("mul", ident("x"), real("0.0")))


def test_the_derivation_prints_as_an_indented_proof_tree_with_the_facts_read():
    stmt = mk("assign", ident("z"), mk("mul", ident("x"), ident("c")), line=5)
    text = TOY.apply("tangent", stmt, toy_context(active=("x", "z")))[1].format()
    lines = text.splitlines()
    assert lines[0].startswith("T-assign-active at line 5: (assign (ident 'z')")
    assert "  ✓ is_live_for_diff((assign (ident 'z') (mul (ident 'x') (ident 'c'))))" in lines
    assert "    E-passive: (ident 'c')  ⇒  (realCst '0.0' 8)" in lines
    assert "      ✗ is_active((ident 'c'))" in lines


def test_a_passive_assignment_is_copied_and_its_derivation_has_no_children():
    stmt = mk("assign", ident("i"), mk("intCst", 1, None), line=2)
    result, derivation = TOY.apply("tangent", stmt, toy_context())
    assert result == stmt and derivation.rule.name == "T-assign-passive" and derivation.children == []


# --- the engine's own checks -------------------------------------------------------

def test_two_rules_whose_guards_both_hold_are_reported_with_operator_line_and_names():
    rules = RuleSet("ambiguous")
    for name in ("A-one", "A-two"):
        rules.rule(name, judgment="expr", ops=("ident",), section="5.3", source="verbatim",
                   conclusion="v → v")(lambda e, out, ctx: (eq(e, pattern("ident", var())), eq(out, e)))
    with pytest.raises(RuleError) as err:
        rules.apply("expr", ident("x", line=12), Context(rules, ToyFacts()))
    message = str(err.value)
    assert "several rules apply to ident at line 12: (ident 'x')" in message
    assert "A-one" in message and "A-two" in message


def test_a_tree_that_no_guard_accepts_is_reported_with_every_candidate_and_the_failed_fact():
    rules = RuleSet("incomplete")
    rules.rule("Only-active", judgment="expr", ops=("ident",), section="5.3", source="verbatim",
               conclusion="v → vd")(lambda e, out, ctx: (ctx.fact("is_active", e), eq(out, e)))
    rules.rule("Only-y", judgment="expr", ops=("ident",), section="5.3", source="verbatim",
               conclusion="y → y")(lambda e, out, ctx: (eq(e, pattern("ident", "y")), eq(out, e)))
    with pytest.raises(RuleError) as err:
        rules.apply("expr", ident("c", line=3), Context(rules, ToyFacts()))
    message = str(err.value)
    assert message.startswith("expr: no rule applies to ident at line 3: (ident 'c')")
    assert "Only-active (failed: is_active((ident 'c')))" in message and "Only-y" in message


def test_an_operator_without_rules_is_reported():
    with pytest.raises(RuleError, match=r"expr: no rule for operator sub at line 8: \(sub "):
        TOY.apply("expr", mk("sub", ident("x"), ident("y"), line=8), toy_context())


def test_a_body_that_fails_after_its_guard_held_names_the_rule():
    rules = RuleSet("broken")
    rules.rule("B-fails", judgment="expr", ops=("ident",), section="5.3", source="verbatim",
               conclusion="v → ?")(lambda e, out, ctx: (eq(e, pattern("ident", var())),
                                                         lall(eq(out, 1), eq(out, 2))))
    with pytest.raises(RuleError, match=r"the body of B-fails failed after its guard held, on ident at line 6"):
        rules.apply("expr", ident("x", line=6), Context(rules, ToyFacts()))


def test_a_premise_run_before_its_input_is_bound_names_the_rule():
    rules = RuleSet("misordered")
    rules.rule("M-order", judgment="expr", ops=("ident",), section="5.3", source="verbatim",
               conclusion="v → v")(lambda e, out, ctx: (ctx.fact("is_active", var()), eq(out, e)))
    with pytest.raises(RuleError, match=r"in M-order on ident: an argument of is_active is still unbound"):
        rules.apply("expr", ident("x"), Context(rules, ToyFacts()))


def test_a_result_left_unbound_names_the_rule():
    rules = RuleSet("unbound")
    rules.rule("U-hole", judgment="expr", ops=("ident",), section="5.3", source="verbatim",
               conclusion="v → ?")(lambda e, out, ctx: (eq(e, e), eq(out, pattern("neg", var()))))
    with pytest.raises(RuleError, match="U-hole left its result unbound"):
        rules.apply("expr", ident("x"), Context(rules, ToyFacts()))


def test_rule_declarations_are_checked_unknown_operator_bad_source_duplicate_name():
    rules = RuleSet("declared")
    with pytest.raises(ValueError, match="unknown IL operators"):
        rules.rule("X", judgment="expr", ops=("times",), section="5.3", source="verbatim", conclusion="")
    with pytest.raises(ValueError, match="source"):
        rules.rule("X", judgment="expr", ops=("mul",), section="5.3", source="made up", conclusion="")
    rules.rule("X", judgment="expr", ops=("mul",), section="5.3", source="verbatim", conclusion="")(None)
    with pytest.raises(ValueError, match="defined twice"):
        rules.rule("X", judgment="expr", ops=("add",), section="5.3", source="verbatim", conclusion="")


# --- depth and speed --------------------------------------------------------------

def sum_of(n, name="x"):
    tree = ident(name)
    for i in range(n - 1):
        tree = mk("add", tree, mk("mul", ident(name), ident("y")))
    return tree


def test_a_sum_of_200_terms_derives_without_recursion_error_and_matches_the_shallow_result():
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)
    try:
        result, derivation = TOY.apply("expr", sum_of(200), toy_context())
    finally:
        sys.setrecursionlimit(limit)
    assert sum(1 for _ in derivation.walk()) == 1 + 199 * 4
    expected = ident("xd")
    for _ in range(199):
        expected = mk("add", expected, mk("add", mk("mul", ident("xd"), ident("y")),
                                          mk("mul", ident("x"), ident("yd"))))
    assert result == expected


def test_each_relation_is_built_once_per_context_and_nested_applications_keep_their_own_bindings():
    built = []
    rules = RuleSet("built once")

    @rules.rule("C-add", judgment="expr", ops=("add",), section="5.3", source="verbatim",
                premises=("A →expr Ad", "B →expr Bd"), conclusion="A+B  →expr  Ad + Bd")
    def c_add(expr, out, ctx):
        built.append("C-add")
        a, b, a_d, b_d = var(), var(), var(), var()
        return (eq(expr, pattern("add", a, b)),
                lall(ctx.derive("expr", a, a_d), ctx.derive("expr", b, b_d), eq(out, pattern("add", a_d, b_d))))

    @rules.rule("C-ident", judgment="expr", ops=("ident",), section="5.3", source="verbatim",
                conclusion="v  →expr  vd")
    def c_ident(expr, out, ctx):
        built.append("C-ident")
        name, name_d = var(), var()
        return eq(expr, pattern("ident", name)), lall(ctx.compute(diff_name, name, name_d),
                                                      eq(out, pattern("ident", name_d)))

    ctx = Context(rules, ToyFacts())
    tree = mk("add", mk("add", ident("x"), ident("y")), mk("add", ident("z"), mk("add", ident("x"), ident("w"))))
    result, derivation = rules.apply("expr", tree, ctx)
    assert result == mk("add", mk("add", ident("xd"), ident("yd")),
                        mk("add", ident("zd"), mk("add", ident("xd"), ident("wd"))))
    assert sum(1 for _ in derivation.walk()) == 9 and sorted(built) == ["C-add", "C-ident"]
    rules.apply("expr", mk("add", ident("a"), ident("b")), ctx)
    assert len(built) == 2                                  # the same context: built already
    rules.apply("expr", ident("a"), Context(rules, ToyFacts()))
    assert built.count("C-ident") == 2                      # a new context builds its own


def test_one_rule_application_on_an_11_node_expression_costs_well_below_a_millisecond():
    expr = sum_of(3)         # (x + x*y) + x*y: 9 nodes ...
    expr = mk("add", expr, real("1.0"))   # ... 11 with the constant and its add
    assert sum(1 for _ in _walk(expr)) == 11
    ctx = toy_context()
    TOY.apply("expr", expr, ctx)
    runs = 200
    start = time.perf_counter()
    for _ in range(runs):
        _, derivation = TOY.apply("expr", expr, ctx)
    per_tree = (time.perf_counter() - start) / runs
    applications = sum(1 for _ in derivation.walk())
    per_application = per_tree / applications
    print(f"\n{applications} rule applications on an 11-node expression: {per_tree * 1e3:.3f} ms, "
          f"{per_application * 1e3:.3f} ms per application")
    assert per_application < 1e-3


# --- display -----------------------------------------------------------------------

def test_a_rule_renders_as_premises_a_bar_as_wide_as_the_widest_line_and_the_conclusion():
    rule = next(r for r in TOY.rules if r.name == "T-assign-active")
    lines = rule.render().splitlines()
    assert lines[0].split() == ["isLiveForDiff(I)", "isActive(LHS)", "LHS", "→expr", "LHSd", "RHS", "→expr", "RHSd"]
    assert set(lines[1]) == {"─"} and len(lines[1]) == max(len(lines[0]), len(lines[2]))
    assert lines[2].strip() == "LHS = RHS  →  LHSd = RHSd ; LHS = RHS"
    assert lines[3] == "[T-assign-active]  5.3, reconstructed: docs/rules.md#t-assign"


def test_long_premises_wrap_onto_several_lines_within_the_width():
    rules = RuleSet("wide")
    rules.rule("W", judgment="expr", ops=("mul",), section="5.3", source="verbatim",
               premises=tuple(f"premise{i} →expr something{i}" for i in range(8)), conclusion="c")(None)
    lines = rules.rules[0].render(width=60).splitlines()
    bar = next(i for i, line in enumerate(lines) if set(line) == {"─"})
    assert bar == 4 and all(len(line) <= 60 for line in lines[:bar])


def test_a_rule_set_renders_grouped_by_judgment():
    text = TOY.render()
    assert text.index("judgment tangent:") < text.index("[T-assign-passive]") < text.index("judgment expr:") \
        < text.index("[E-mul]")


def test_adspec_rules_prints_every_registered_rule_set(monkeypatch):
    from adspec.cli import main
    from adspec.rules import adjoint, tangent  # noqa: F401  (registered now, not into the patched list)
    monkeypatch.setattr("adspec.engine.rules.RULE_SETS", [TOY])
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["rules"]) == 0
    assert "toy tangent rules" in out.getvalue() and "[E-add]  5.3, verbatim" in out.getvalue()


def test_adspec_rules_says_so_when_no_rule_set_is_registered(monkeypatch):
    from adspec.cli import main
    from adspec.rules import adjoint, tangent  # noqa: F401  (registered now, not into the patched list)
    monkeypatch.setattr("adspec.engine.rules.RULE_SETS", [])
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["rules"]) == 0
    assert "no rule set is registered" in out.getvalue()


def test_the_rules_reference_lists_each_rule_under_its_anchor_with_its_docstring():
    import importlib.util
    from pathlib import Path
    path = Path(__file__).parent.parent / "docs" / "make_rules_reference.py"
    spec = importlib.util.spec_from_file_location("make_rules_reference", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.RULE_SETS = [TOY]
    text = module.reference()
    assert text.count('<a id="t-assign"></a>') == 1 and '<a id="e-mul"></a>' in text
    assert "#### T-assign-active\n\n```\n" + next(r for r in TOY.rules if r.name == "T-assign-active").render() in text
    module.RULE_SETS = []
    assert "No rule set is registered yet." in module.reference()


def test_a_block_derives_each_statement_by_its_own_query_and_inputs_reach_the_sub_rules():
    class AtFacts:
        def active_at(self, expr, stmt):
            return stmt.line == 1

    rules = RuleSet("with inputs")

    @rules.rule("S-block", judgment="stmt", ops=("block",), section="5.3", source="verbatim",
                premises=("I1 →stmt I1'  …  In →stmt In'",), conclusion="I1 … In  →stmt  I1' … In'")
    def s_block(block, out, ctx):
        stmts, stmts_d = var(), var()
        return (eq(block, pattern("block", rest=stmts)),
                lall(ctx.derive_all("stmt", stmts, stmts_d), eq(out, pattern("block", rest=stmts_d))))

    @rules.rule("S-assign", judgment="stmt", ops=("assign",), section="5.3", source="verbatim",
                premises=("RHS →expr RHS' at I",), conclusion="LHS = RHS  →stmt  LHS = RHS'")
    def s_assign(stmt, out, ctx):
        lhs, rhs, rhs_d = var(), var(), var()
        return (eq(stmt, pattern("assign", lhs, rhs)),
                lall(ctx.derive("expr", rhs, rhs_d, stmt), eq(out, pattern("assign", lhs, rhs_d))))

    def is_named(expr):
        return expr.op == "ident"

    @rules.rule("E-at-active", judgment="expr", ops=("ident",), section="5.3", source="verbatim",
                premises=("activeAt(v, I)",), conclusion="v  →expr  vd")
    def e_at_active(expr, out, ctx, stmt):
        name, name_d = var(), var()
        return (lall(eq(expr, pattern("ident", name)), ctx.check(is_named, expr), ctx.fact("active_at", expr, stmt)),
                lall(ctx.compute(lambda n: n + ctx.suffix, name, name_d), eq(out, pattern("ident", name_d))))

    @rules.rule("E-at-passive", judgment="expr", ops=("ident",), section="5.3", source="verbatim",
                premises=("¬activeAt(v, I)",), conclusion="v  →expr  v")
    def e_at_passive(expr, out, ctx, stmt):
        return ctx.no_fact("active_at", expr, stmt), eq(out, expr)

    block = mk("block", mk("assign", ident("a"), ident("x"), line=1), mk("assign", ident("b"), ident("x"), line=2))
    result, derivation = rules.apply("stmt", block, Context(rules, AtFacts(), suffix="_d"))
    assert result == mk("block", mk("assign", ident("a"), ident("x_d")), mk("assign", ident("b"), ident("x")))
    first_expr = derivation.children[0].children[0]
    assert first_expr.inputs == (block.kids[0],)
    assert [f.name for f in first_expr.facts] == ["is_named", "active_at"]
    with pytest.raises(TypeError, match="hide"):
        Context(rules, AtFacts(), derive=None)
