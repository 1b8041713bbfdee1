"""The catalogue cannot drift from the code (issue 16): for every rule of both rule sets, the
premises it prints (`adspec rules`, docs/rules.md) are, by name, exactly the facts, checks and
recursive derivations its relation builds (rules/catalogue.py); and the rules match their
subject by an IL pattern, at least 90% of them."""
import pytest

from adspec.analyses.facts import Facts
from adspec.engine.kanren_il import eq, lall, pattern, var
from adspec.engine.rules import RULE_SETS, Context, RuleSet
from adspec.rules import catalogue
from adspec.rules.adjoint import ADJOINT
from adspec.rules.adjoint.context import AdjointContext
from adspec.rules.catalogue import CHECKS, FACTS, built_premises, drift, matches_by_pattern, premise_name
from adspec.rules.tangent import TANGENT
from adspec.rules.tangent.context import TangentContext

CONTEXTS = {id(TANGENT): TangentContext, id(ADJOINT): AdjointContext}
RULES = [(ruleset, rule) for ruleset in RULE_SETS for rule in ruleset.rules]


def test_every_rule_set_has_its_context():
    assert all(id(ruleset) in CONTEXTS for ruleset in RULE_SETS), \
        "a new rule set: add it and its Context class to CONTEXTS in this test"


@pytest.mark.parametrize("ruleset, rule", RULES, ids=[rule.name for _, rule in RULES])
def test_the_premises_a_rule_prints_are_those_its_relation_builds(ruleset, rule):
    problems = drift(rule, CONTEXTS[id(ruleset)], ruleset.judgments(), Facts)
    assert not problems, "\n".join(problems)


def test_at_least_90_percent_of_all_rules_match_their_subject_by_a_pattern():
    without = [rule.name for _, rule in RULES if not matches_by_pattern(rule)]
    share = 1 - len(without) / len(RULES)
    assert share >= 0.9, f"{share:.0%} of the rules match their subject by a pattern; without one: {without}"


def test_the_vocabulary_names_only_real_facts_and_used_checks():
    assert [name for name in FACTS if not hasattr(Facts, name)] == []
    used = {name for ruleset, rule in RULES for kind, name, _ in built_premises(rule, CONTEXTS[id(ruleset)])
            if kind == "check"}
    assert sorted(set(CHECKS) - used) == [], "CHECKS entries no rule uses: remove them from rules/catalogue.py"


def test_premises_are_read_as_derivations_computations_or_predicates():
    judgments = ["tangent", "expr", "ref"]
    assert premise_name("INSTR →  INSTRd", judgments) == ("derive", "→tangent")
    assert premise_name("Ai →expr Aid  (active Ai)", judgments) == ("derive", "→expr")
    assert premise_name("P →procName Pd", judgments) == ("compute", "→procName")
    assert premise_name("A →exp Ad", judgments)[0] == "unknown"
    assert premise_name("¬isDiff(LHS)", judgments) == ("predicate", "¬isDiff")
    assert premise_name("¬(hasDerivativeInstruction(LHS = RHS) ∧ isActiveExpr(RHS))", judgments) == \
        ("predicate", "¬(hasDerivativeInstruction ∧ isActiveExpr)")
    assert premise_name("linear(f)  (the derivative table)", judgments) == ("predicate", "linear")


# --- a throwaway rule set: the check catches drift, and passes a rule that does not drift ----------------------
TOY = RuleSet("toy rules for the catalogue test")


def scalar_reference(ref):
    return True


@TOY.rule("good", judgment="tangent", ops=("assign",), section="5.3", source="verbatim",
          premises=("isDiff(LHS)", "scalar(LHS)", "LHS →ref LHSd", "P →procName Pd", "RHS →expr RHSd"),
          conclusion="LHS = RHS  →  LHSd = RHSd")
def good(stmt, out, ctx):
    lhs, rhs, lhs_d, rhs_d = var(), var(), var(), var()
    guard = lall(eq(stmt, pattern("assign", lhs, rhs)), ctx.fact("has_derivative", lhs, stmt),
                 ctx.check(scalar_reference, lhs))
    return guard, lall(ctx.derive("ref", lhs, lhs_d), ctx.derive("expr", rhs, rhs_d, stmt),
                       eq(out, pattern("assign", lhs_d, rhs_d)))


@TOY.rule("printed-not-checked", judgment="tangent", ops=("assign",), section="5.3", source="verbatim",
          premises=("isDiff(LHS)", "isLiveForDiff(I)"), conclusion="LHS = RHS  →  LHS = RHS")
def printed_not_checked(stmt, out, ctx):
    lhs = var()
    return lall(eq(stmt, pattern("assign", lhs, var())), ctx.fact("has_derivative", lhs, stmt)), eq(out, stmt)


@TOY.rule("checked-not-printed", judgment="tangent", ops=("assign",), section="5.3", source="verbatim",
          premises=("LHS →ref LHSd",), conclusion="LHS = RHS  →  LHSd = 0")
def checked_not_printed(stmt, out, ctx):
    lhs = var()
    guard = lall(ctx.compute(lambda s: s.kids[0], stmt, lhs), ctx.no_fact("is_live_for_diff", stmt))
    return guard, lall(ctx.derive("ref", lhs, var()), ctx.derive("ref", lhs, var()))


@TOY.rule("unnamed-check", judgment="tangent", ops=("assign",), section="5.3", source="verbatim",
          premises=("A →exp Ad",), conclusion="LHS = RHS  →  LHS = RHS")
def unnamed_check(stmt, out, ctx):
    return ctx.check(lambda s: True, stmt), lall(ctx.fact("is_livefordiff", stmt), eq(out, stmt))


@TOY.rule("looks-at-the-node", judgment="tangent", ops=("assign",), section="5.3", source="verbatim",
          premises=(), conclusion="LHS = RHS  →  LHS = RHS")
def looks_at_the_node(stmt, out, ctx):
    return eq(stmt, pattern(stmt.kids[0], var())), eq(out, stmt)


def toy_drift(name):
    rule = next(r for r in TOY.rules if r.name == name)
    return "\n".join(drift(rule, Context, ["tangent", "expr", "ref"], Facts))


def test_a_rule_that_prints_what_it_builds_passes():
    assert toy_drift("good") == ""
    assert matches_by_pattern(next(r for r in TOY.rules if r.name == "good"))


def test_a_premise_printed_but_never_checked_fails():
    message = toy_drift("printed-not-checked")
    assert "'isLiveForDiff' is printed 1 time(s), but the relation builds 0 premise(s) ctx.fact('is_live_for_diff')" \
        in message, message
    assert "print only the premises the relation checks" in message
    assert "isDiff'" not in message


def test_a_premise_checked_but_never_printed_fails():
    message = toy_drift("checked-not-printed")
    assert "'¬isLiveForDiff' is printed 0 time(s), but the relation builds 1 premise(s) ctx.no_fact('is_live_for_diff')" \
        in message, message
    assert "'→ref' is printed 1 time(s), but the relation builds 2 premise(s) ctx.derive('ref', ...)" in message
    assert "test_rule_catalogue.py:" in message      # where to fix it
    assert not matches_by_pattern(next(r for r in TOY.rules if r.name == "checked-not-printed"))


def test_a_lambda_check_an_unknown_fact_and_an_unknown_judgment_fail():
    message = toy_drift("unnamed-check")
    assert "ctx.check(<lambda>) has no printed name: give the predicate a name" in message, message
    assert "ctx.fact('is_livefordiff'): no such analysis fact" in message
    assert "→exp is no judgment of the rule set" in message


def test_recording_leaves_the_runners_context_alone():
    """The recording context is a subclass the check builds: Context's premises are untouched."""
    assert Context.fact is not catalogue._Recording.fact
    assert not issubclass(TangentContext, catalogue._Recording)


def test_a_relation_that_cannot_be_built_is_reported_with_its_place():
    message = toy_drift("looks-at-the-node")
    assert "looks-at-the-node (" in message and "raised AttributeError" in message, message
