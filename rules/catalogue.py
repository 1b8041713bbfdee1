"""The premise vocabulary of the rule catalogue, and the check that a rule's printed premises
are, by name, the premises its relation builds (issue 16: the catalogue cannot drift).

A rule prints its premises (`Rule.premises`, shown by `adspec rules` and docs/rules.md) as
text. Each premise is one of:
- a **derivation**, `SUB →j OUT`, j a judgment of the rule's set (a bare `→` is the set's
  statement judgment, `tangent` or `adjoint`): built by `ctx.derive("j", ...)`, or by one
  `ctx.derive_all` / `ctx.derive_each`, which stands for one or more printed premises (`Ai
  →expr Aid`, or `A →expr Ad` and `B →expr Bd`);
- a **computation**, `X →c Y` with c one of COMPUTATIONS: a `ctx.compute` (names, fresh
  variables, sets), not compared with the code;
- a **predicate**, a fact or a check: its name is the text with the arguments of every
  `name(...)` dropped and any comment after two spaces (`isDiff(LHS)` is `isDiff`,
  `¬(hasDerivativeInstruction(I) ∧ isActiveExpr(RHS))` is `¬(hasDerivativeInstruction ∧
  isActiveExpr)`). `ctx.fact(f)` prints as FACTS[f], `ctx.no_fact(f)` as `¬` FACTS[f], and
  `ctx.check(p)` as CHECKS[p.__name__].
The vocabulary below is the one place that ties the names the rules print to the facts and
checks the code builds. `drift(rule, context_class)` builds the rule's relation with a
recording context (no IL node needed: a relation is built once, over logic variables) and
says what differs; tests/test_rule_catalogue.py runs it on every rule.
"""
from __future__ import annotations

import ast
import inspect
import re
import textwrap
from collections import Counter

from ..engine.kanren_il import Goal, var
from ..engine.rules import Context, Rule

# analysis facts (analyses/facts.py): the name a rule prints; `¬name` for ctx.no_fact.
# A pair gives the printed names for the fact held and not held.
FACTS = {
    "is_live_for_diff": "isLiveForDiff",
    "has_derivative": "isDiff",
    "is_active_expr": "isActiveExpr",
    "has_derivative_instruction": "hasDerivativeInstruction",
    "derivative_read_later": "derivativeReadLater",
    "is_active_call": "isActiveCall",
    "is_diff_proc": "isDiffProc",
    "is_restored": ("RVARS ≠ ∅", "RVARS = ∅"),
    "is_live_call": "isLiveForDiff",
    "is_source_call": "isSourceCall",
    "is_joint": "isJoint",
    "is_called_split": "isCalledSplit",
}

# side conditions, by the predicate's __name__: the premise a rule prints for ctx.check(p)
CHECKS = {
    "not_differentiated": "¬(hasDerivativeInstruction ∧ isActiveExpr)",
    "passive_initial_values": "¬(hasDerivativeInstruction ∧ isActiveExpr)",
    "active_initial_value": "hasDerivativeInstruction ∧ isActiveExpr",
    "derivative_unread": "¬(isDiff ∧ derivativeReadLater)",
    "derivative_pointer_assignment": "isDiffPointer",
    "not_derivative_pointer_assignment": "¬isDiffPointer",
    "read_cuts_or_resets": "cutsOrResets",
    "cuts_no_derivative": "¬cutsOrResets",
    "not_null": "TARGET ≠ null",
    "not_read": "¬isRead",
    "points_once": "pointsOnce",
    "points_again": "¬pointsOnce",
    "returns_value": "returnsValue",
    "_present": "present",
    "linear_intrinsic": "linear",
    "not_linear_intrinsic": "¬linear",
    "scalar_reference": "scalar",
    "array_reference": "¬scalar",
    "no_alias": "¬mayAlias",
    "possible_alias": "mayAlias ∧ ¬selfReference",
    "self_reference": "selfReference",
    "index_restored": "I ∈ TBR⁻(LOOP)",
    "index_not_restored": "I ∉ TBR⁻(LOOP)",
    "top_level": "atTopOfBody",
    "nested_declaration": "nestedDeclaration",
    "replayable_choice": "replayable",
    "returns_structure": "returnsStructure",
    "deferred_free": "deferredFree",
    "freed_elsewhere": "freedElsewhere",
    "returns_no_structure": "¬returnsStructure",
    "by_value_formal": "byValue",
    "not_by_value_formal": "¬byValue",
    "scalar_operation": "scalarOperands",
    "refused_expression": "¬scalarOperands",
    "refused": "refused",
    "is_live_for_diff": "isLiveForDiff",
    "differentiable_type": "differentiableType",
    "differentiable_reference": "differentiable",
    "no_adjoint": "¬(isDiff ∧ differentiable)",
    "c_structure": "structure",
    "not_c_structure": "¬structure",
    "whole_structure": "wholeStructure",
    "not_whole_structure": "¬wholeStructure",
    "component_with_adjoint": "componentWithAdjoint",
    "elementwise_self": "elementwiseSelf",
    "overlapping_lhs": "overlappingLhs",
    "in_sequence": "inSequence",
    "out_of_sequence": "¬inSequence",
    "replayable_for": "replayableFor",
    "counted_for": "¬replayableFor",
    "structure_initial_value": "structureInitialValue",
    "no_structure_initial_value": "¬structureInitialValue",
    "masks_kept": "masksKept",
    "masks_saved": "¬masksKept",
    "array_operation": "arrayOperation",
    "elementwise_operation": "elementwiseOperation",
    "not_elementwise_operation": "¬elementwiseOperation",
    "moved": "moved",
    "deferred_allocation": "deferredAllocation",
    "c_memory": "cMemory",
    "pointer_restored": "pointerRestored",
    "pointer_not_restored": "¬pointerRestored",
    "call_matters": "callMatters",
    "call_unneeded": "¬callMatters",
    "has_hoisted_calls": "activeFunctionCalls",
    "no_hoisted_calls": "¬activeFunctionCalls",
    "is_hoisted": "hoisted",
    "not_hoisted": "¬hoisted",
    "joint_wanted": "jointWanted",
    "joint_unwanted": "¬jointWanted",
    "structured": "structured",
    "unstructured": "unstructured",
    "decided": "decided",
    "undecided": "undecided",
    "sections_saved": "sectionsSaved ≠ ∅",
    "no_sections_saved": "sectionsSaved = ∅",
    "independent_trips": "independentTrips",
    "dependent_trips": "¬independentTrips",
    "fixed_bounds": "fixedBounds",
    "saved_bounds": "¬fixedBounds",
}

# `X →name Y` premises that are computations (ctx.compute), not derivations
COMPUTATIONS = {
    "procName": "the name of the differentiated procedure (rules/naming.py)",
    "varName": "the name of a derivative or adjoint variable (rules/naming.py)",
    "args": "the arguments of a differentiated procedure or call, each followed by its derivative",
    "decls": "declarations followed by those of the derivatives",
    "newFreeVar": "a fresh variable of the type on the left",
    "newFreeVars": "fresh variables of the type on the left",
    "partials": "the partial derivatives of the derivative table (rules/derivatives.py)",
    "resets": "the variables whose derivative is reset after a statement (read later, 4.6)",
    "pointerValue": "the derivative of a pointer's new value: the same address among the derivatives",
    "procNameFwd": "the name of a procedure's forward sweep in split mode (rules/naming.py)",
    "procNameBwd": "the name of a procedure's backward sweep in split mode (rules/naming.py)",
    "snapshot": "the values a checkpointed call pushes and pops (analyses/snapshots.py, 4.10)",
    "restore": "the values pushed before a statement and popped after it (out ∩ TBR⁻)",
    "recordArgs": "the scalars the actual arguments of a call read, pushed and popped",
    "actualArgs": "the actual arguments of an adjoint call, with their inits and posts (5.4)",
    "forwardArgs": "the arguments of P_fwd: P's, with the adjoints of the memory P allocates or frees",
    "structureSource": "the reference a structure assignment copies from (else refused)",
    "hoistDecl": "a nested C declaration declared for the whole procedure, its initial values as assignments",
    "flowGraph": "the basic blocks of an unstructured statement and their arrows (5.5)",
    "lastIndex": "the last index value of a loop whose bounds are fixed in the procedure",
    "tripValues": "a trip's backward body reading the values its forward body left in variables",
    "previousTarget": "the target of a pointer's association before this one, and its adjoint",
    "forParts": "the init and the step of a C for loop, as statements",
    "splitDecl": "a declaration without its initial values, and the assignments of them",
    "maskParts": "the statements of a WHERE, each with its control mask and the mask temporaries assigned before it",
    "maskRecord": "the pushes and pops of a WHERE's mask temporaries (none where it runs once per sweep)",
    "overwritten": "the array sections a DO loop overwrites whole, before and after it (analyses/tbr_sections.py)",
}

STATEMENT_JUDGMENTS = ("tangent", "adjoint")
_ARROW = re.compile(r"(?:^|\s)→(\w*)\s")
_NAME_CALL = re.compile(r"([^\W\d]\w*)\(")


def premise_name(text: str, judgments) -> tuple:
    """(kind, name) of a printed premise: ("derive", "→j"), ("compute", "→c"), ("predicate",
    name), or ("unknown", why)."""
    arrow = _ARROW.search(text)
    if arrow:
        judgment = arrow.group(1) or next((j for j in STATEMENT_JUDGMENTS if j in judgments), "")
        if judgment in judgments:
            return "derive", "→" + judgment
        if judgment in COMPUTATIONS:
            return "compute", "→" + judgment
        return "unknown", (f"→{judgment} is no judgment of the rule set ({', '.join(sorted(judgments))}) "
                           f"and no computation of rules/catalogue.py COMPUTATIONS")
    return "predicate", _without_arguments(text.split("  ")[0].strip())


def _without_arguments(text: str) -> str:
    """`name(args)` → `name`, for every name in the text (balanced parentheses)."""
    out, i = [], 0
    for match in _NAME_CALL.finditer(text):
        if match.start() < i:
            continue
        depth, j = 1, match.end()
        while j < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[j], 0)
            j += 1
        out.append(text[i:match.end() - 1])
        i = j
    return "".join(out) + text[i:]


class _Recording:
    """A context whose premise goals record what the relation builds (and do nothing): the
    catalogue check's, never the runner's."""

    def fact(self, name, *args):
        return self._built("fact", name, True)

    def no_fact(self, name, *args):
        return self._built("fact", name, False)

    def check(self, predicate, *args):
        return self._built("check", getattr(predicate, "__name__", "check"), None)

    def derive(self, judgment, sub, out, *inputs):
        return self._built("derive", judgment, "one")

    def derive_each(self, judgment, subs, outs, each, *inputs):
        return self._built("derive", judgment, "each")

    def compute(self, function, *args):
        return Goal(_same)

    def _built(self, kind, name, how):
        self.built.append((kind, name, how))
        return Goal(_same)


def _same(state):
    return state


def built_premises(rule: Rule, context_class) -> list:
    """[(kind, name, how)] of the facts, checks and derivations the rule's relation builds."""
    from .naming import Namer
    recording = type("Recording" + context_class.__name__, (_Recording, context_class), {})
    ctx = object.__new__(recording)
    Context.__init__(ctx, None, None)
    ctx.names, ctx.lang, ctx.c, ctx.built = Namer(set()), "fortran", False, []
    inputs = len(inspect.signature(rule.relation).parameters) - 3
    rule.relation(var(), var(), ctx, *(var() for _ in range(inputs)))
    return ctx.built


def drift(rule: Rule, context_class, judgments, facts_class=None) -> list[str]:
    """What differs between the premises `rule` prints and those its relation builds, each
    with where to fix it; [] when they agree."""
    where = _where(rule)
    problems, printed, built, each = [], Counter(), Counter(), Counter()
    for text in rule.premises:
        kind, name = premise_name(text, judgments)
        if kind == "unknown":
            problems.append(f"{where}: premise {text!r}: {name}")
        elif kind != "compute":
            printed[name] += 1
    try:
        built_goals = built_premises(rule, context_class)
    except Exception as e:  # noqa: BLE001  (reported with the rule's place)
        return problems + [f"{where}: building the relation with a recording {context_class.__name__} raised "
                           f"{type(e).__name__}: {e} (a relation only builds goals; it reads the node through them)"]
    for kind, name, how in built_goals:
        if kind == "fact":
            if facts_class is not None and not hasattr(facts_class, name):
                problems.append(f"{where}: ctx.{'fact' if how else 'no_fact'}({name!r}): no such analysis fact")
            if name not in FACTS:
                problems.append(f"{where}: ctx.{'fact' if how else 'no_fact'}({name!r}) has no printed name: "
                                f"add {name!r} to FACTS in rules/catalogue.py")
                continue
            shown = FACTS[name]
            built[shown[0 if how else 1] if isinstance(shown, tuple) else ("" if how else "¬") + shown] += 1
        elif kind == "check":
            if name not in CHECKS:
                problems.append(f"{where}: ctx.check({name}) has no printed name: give the predicate a name "
                                f"(no lambda) and add {name!r}: \"premiseName\" to CHECKS in rules/catalogue.py")
                continue
            built[CHECKS[name]] += 1
        else:
            (each if how == "each" else built)["→" + name] += 1
    for name in sorted(set(printed) | set(built) | set(each)):
        wanted, exact, repeated = printed[name], built[name], each[name]
        if (wanted == exact and not repeated) or (repeated and wanted >= exact + repeated):
            continue
        code = f"{exact} premise(s) {_code(name)}" + (f" and {repeated} ctx.derive_all/derive_each" if repeated else "")
        problems.append(f"{where}: {name!r} is printed {wanted} time(s), but the relation builds {code}: "
                        + _advice(wanted, exact + repeated))
    return problems


def _code(name: str) -> str:
    if name.startswith("→"):
        return f"ctx.derive({name[1:]!r}, ...)"
    facts = [f"ctx.{'no_fact' if name.startswith('¬') else 'fact'}({f!r})" for f, shown in FACTS.items()
             if name in (shown if isinstance(shown, tuple) else (shown, "¬" + shown))]
    checks = [f"ctx.check({c})" for c, shown in CHECKS.items() if shown == name]
    return " / ".join(facts + checks) or "(a name no fact or check of rules/catalogue.py prints)"


def _advice(printed: int, built: int) -> str:
    if printed > built:
        return "print only the premises the relation checks (or build the missing goal)"
    return "print the premise in the rule's premises=(...) (or drop the goal)"


def _where(rule: Rule) -> str:
    try:
        lines, first = inspect.getsourcelines(rule.relation)
        return f"{rule.name} ({inspect.getsourcefile(rule.relation)}:{first})"
    except (OSError, TypeError):
        return rule.name


def matches_by_pattern(rule: Rule) -> bool:
    """The relation unifies its subject (its first parameter) with an IL pattern:
    `eq(node, pattern(...))`, or `eq(node, name_pattern(...))` of a helper that builds one."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(rule.relation)))
    function = tree.body[0]
    subject = function.args.args[0].arg
    for node in ast.walk(function):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "eq"
                and len(node.args) == 2 and isinstance(node.args[0], ast.Name) and node.args[0].id == subject
                and isinstance(node.args[1], ast.Call) and isinstance(node.args[1].func, ast.Name)
                and (node.args[1].func.id == "pattern" or node.args[1].func.id.endswith("_pattern"))):
            return True
    return False
