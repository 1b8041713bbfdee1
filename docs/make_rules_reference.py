"""Regenerate docs/rules.md from the registered rule sets: python docs/make_rules_reference.py"""
import inspect
import re
from pathlib import Path

from adspec.rules import adjoint, catalogue, naming, tangent  # noqa: F401  (importing the rule modules registers their rule sets)
from adspec.rules.adjoint import empty_loops, forall, loop_order, merge, pieces, saved_locals, trip_pairs
from adspec.rules.tangent import vector
from adspec.engine.rules import RULE_SETS

INTRO = """\
# The inference rules

adspec differentiates by the natural-semantics rules of the paper (sections 5.3 and 5.4).
This page lists every rule that `adspec rules` prints; it is generated from the registered
rule sets by `docs/make_rules_reference.py`. How the rules run is in `docs/rule-engine.md`.

Notation. A rule reads: if every premise above the bar holds, the conclusion below it holds.

    premise    premise    premise
    ───────────────────────────────
              conclusion
    [rule name]  paper section, source

- `E →expr Ed` is a judgment: the tree `E` derives `Ed` by the rules of judgment `expr`
  (a bare `→` is the statement judgment, `tangent` or `adjoint`; then `expr`, `ref`, `proc`, ...).
  Such a premise is applied recursively, by exactly one rule.
- `P →procName Pd`, `integer →newFreeVar B`, ... are computations (names, fresh variables,
  sets); the [premise names](#premise-names) at the end list them.
- `isLiveForDiff(I)`, `isDiff(LHS)`, ... are facts the data-flow analyses answer, or side
  conditions on the trees; `¬` negates one. Text after two spaces, in parentheses, is a comment.
- A rule prints exactly the facts, checks and derivations its relation builds, by name
  (`rules/catalogue.py`, checked by `tests/test_rule_catalogue.py`).
- The rules for one IL operator exclude each other: for every tree exactly one rule applies,
  and the rule runner checks it at every application.
- Source: `verbatim` is a rule printed in the paper; `reconstructed` is a rule the paper
  describes in words or by example, and the text under it says how it was reconstructed.
"""


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def reference() -> str:
    out = [INTRO]
    if not RULE_SETS:
        out.append("No rule set is registered yet.\n")
    anchors = set()
    for ruleset in RULE_SETS:
        out += [f"## {ruleset.title}", ""]
        for judgment in ruleset.judgments():
            out += [f"### Judgment `{judgment}`", ""]
            for r in (r for r in ruleset.rules if r.judgment == judgment):
                for anchor in (slug(r.name), r.source.partition("#")[2]):
                    if anchor and anchor not in anchors:
                        anchors.add(anchor)
                        out.append(f'<a id="{anchor}"></a>')
                out += [f"#### {r.name}", "", "```", r.render(), "```", "",
                        f"Operators: {', '.join(f'`{op}`' for op in r.ops)}.", ""]
                doc = inspect.getdoc(r.relation)
                if doc:
                    out += [doc, ""]
    out += premise_names()
    out += ["## Names of differentiated symbols", "", inspect.getdoc(naming), ""]
    out += ["## Vector tangent mode (paper 4.7)", "", inspect.getdoc(vector), "",
            inspect.getdoc(vector._Vectorizer), ""]
    out += ['<a id="m-merge"></a>', "## Split and merge of adjoint statements (paper 4.8)", "", inspect.getdoc(merge), ""]
    out += ['<a id="l-interchange"></a>', "## Loop order in the backward sweep", "", inspect.getdoc(loop_order), ""]
    out += ['<a id="j-pair"></a>', "## Trips in pairs in the backward sweep", "", inspect.getdoc(trip_pairs), ""]
    out += ['<a id="l-drop-empty"></a>', "## Loops that do nothing", "", inspect.getdoc(empty_loops), ""]
    out += ['<a id="a-checkpoint-piece"></a>', "## Checkpointed pieces of code (paper 4.10, 5.4)", "",
            inspect.getdoc(pieces), ""]
    out += ['<a id="a-forall"></a>', "## FORALL in adjoint mode", "", inspect.getdoc(forall), ""]
    out += ['<a id="a-saved-locals"></a>', "## SAVE and static locals in adjoint mode", "",
            inspect.getdoc(saved_locals), ""]
    return "\n".join(out).rstrip("\n") + "\n"


def premise_names() -> list[str]:
    """The vocabulary of rules/catalogue.py: what each printed premise name is in the code."""
    out = ['<a id="premise-names"></a>', "## Premise names", "",
           "What the premises of the rules above are in the code (`rules/catalogue.py`).", "",
           "| premise | built by |", "|---|---|"]
    for fact, shown in catalogue.FACTS.items():
        held, not_held = shown if isinstance(shown, tuple) else (shown, "¬" + shown)
        out.append(f"| `{held}`, `{not_held}` | `ctx.fact` / `ctx.no_fact(\"{fact}\", ...)`: an analysis fact |")
    out += [f"| `{shown}` | `ctx.check({check}, ...)` |" for check, shown in catalogue.CHECKS.items()]
    out += [f"| `→{name}` | a computation: {what} |" for name, what in catalogue.COMPUTATIONS.items()]
    return out + [""]


if __name__ == "__main__":
    (Path(__file__).parent / "rules.md").write_text(reference())
