"""The rule runner: natural-semantics inference rules as miniKanren relations over IL trees.

A rule is a Python function `relation(node, out, ctx, *inputs) -> (guard, body)`:
- the **guard** is the IL pattern plus the cheap boolean premises (analysis facts); it alone
  decides whether the rule applies;
- the **body** holds the recursive premises (`ctx.derive`) and the conclusion (`eq(out, ...)`).

`RuleSet.apply(judgment, node, ctx)` picks the candidate rules by the node's operator before
any unification, evaluates every candidate's guard, and checks the paper's claim that exactly
one rule applies to every tree: none or several is a `RuleError` naming the judgment, the
node's operator and line, and the rules. The chosen rule's body then runs from the state
its guard left, as one small query; each `ctx.derive` premise is a query of its own.

A relation is called once per context, with logic variables for `node`, `out` and the
inputs (miniKanren's usual reading of a relation: a function of terms, which may be
variables); each application runs its goals from a state that binds those variables to the
node and inputs at hand. So a rule reaches the node only through its goals (a pattern, a
premise, `ctx.compute`), never by looking at it in Python while it builds them.

Order of evaluation: goals run left to right; `ctx.derive`, `ctx.fact` and `ctx.compute`
read their inputs when they run (they are delayed goals, like `Zzz`), so they must come after
the goals that bind those inputs (the pattern first). An input still unbound when the goal
runs is a `RuleError` naming the rule.

What a derivation records: the facts read on the proof path of the chosen rule (its guard
and body, in order of evaluation), with the value the premise needed (`no_fact` premises
are recorded with value False), and one child derivation per `derive`. The facts the other
candidates' guards read are not recorded; they only appear in the message of a `RuleError`
when no rule applies. The trace travels in the miniKanren state, so a premise on a branch
that later fails leaves no trace.

Depth: a `derive` runs inside its parent's query, so the Python stack grows with the depth of
the tree. Past `Context.max_depth` nested applications, the runner abandons the attempt,
derives the deep sub-tree first from the top of the stack, and retries; the results of
finished applications are kept for the rest of the top-level call. So the stack stays
bounded for any depth (a sum of thousands of terms) and each application runs at most twice.
This relies on what natural semantics guarantees anyway: the result of applying a judgment
is a function of the node (with its annotations), the inputs and the facts.
"""
from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass, field
from typing import Callable, Iterator

from .il import Node, OPS
from .kanren_il import Goal, UnboundVariable, binder, ground_value, grounder, reify_term, var

__all__ = ["Rule", "RuleSet", "Context", "Derivation", "Fact", "RuleError", "RULE_SETS"]

RULE_SETS: list["RuleSet"] = []
"""Every rule set that `adspec rules` prints and `docs/rules.md` lists: rule modules append theirs."""


class RuleError(Exception):
    """A rule set that breaks the paper's claim (no rule or two rules for a tree), or a
    rule whose body fails or leaves its result unbound."""


class _UnboundInput(Exception):
    """A delayed goal ran before the goals that bind its inputs (reported as a RuleError)."""


class _TooDeep(Exception):
    """Too many nested applications: the top-level loop derives `goal` first, then retries."""

    def __init__(self, goal):
        super().__init__()
        self.goal = goal


Fact = namedtuple("Fact", "name args value")
_new_tuple = tuple.__new__   # Fact(...) without the Python frame of namedtuple's __new__


# ---------------------------------------------------------------------------
# Rules and their display
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Rule:
    name: str
    judgment: str
    ops: tuple
    section: str
    source: str
    premises: tuple
    conclusion: str
    relation: Callable = field(compare=False, repr=False)

    def render(self, width: int = 100) -> str:
        """The rule as a fraction: premises, a bar, the conclusion, then name and origin."""
        above = _wrap(self.premises, width)
        bar_width = max(len(line) for line in above + [self.conclusion])
        lines = [line.center(bar_width).rstrip() for line in above]
        lines.append("─" * bar_width)
        lines.append(self.conclusion.center(bar_width).rstrip())
        lines.append(f"[{self.name}]  {self.section}, {self.source}")
        return "\n".join(lines)


def _wrap(premises: tuple, width: int) -> list[str]:
    lines: list[str] = []
    for premise in premises:
        if lines and len(lines[-1]) + 4 + len(premise) <= width:
            lines[-1] += "    " + premise
        else:
            lines.append(premise)
    return lines


class RuleSet:
    """Rules indexed by judgment, then by the IL operator they match."""

    def __init__(self, title: str):
        self.title = title
        self.rules: list[Rule] = []
        self._index: dict[str, dict[str, list[Rule]]] = {}

    def rule(self, name: str, *, judgment: str, ops, section: str, source: str,
             premises=(), conclusion: str):
        """Decorator: register `relation(node, out, ctx, *inputs) -> (guard, body)` as a rule."""
        ops = (ops,) if isinstance(ops, str) else tuple(ops)
        unknown = [op for op in ops if op not in OPS]
        if unknown or not ops:
            raise ValueError(f"rule {name}: unknown IL operators {unknown}" if unknown
                             else f"rule {name}: no operators")
        if source != "verbatim" and not source.startswith("reconstructed: "):
            raise ValueError(f"rule {name}: source is 'verbatim' or 'reconstructed: docs/...#anchor'")
        if any(r.name == name for r in self.rules):
            raise ValueError(f"rule {name} is defined twice in {self.title}")

        def register(relation):
            r = Rule(name, judgment, ops, section, source, tuple(premises), conclusion, relation)
            self.rules.append(r)
            by_op = self._index.setdefault(judgment, {})
            for op in ops:
                by_op.setdefault(op, []).append(r)
            return relation
        return register

    def judgments(self) -> list[str]:
        return list(self._index)

    def render(self) -> str:
        parts = [f"{self.title}\n{'=' * len(self.title)}"]
        for judgment in self.judgments():
            parts.append(f"judgment {judgment}:")
            parts.extend(r.render() for r in self.rules if r.judgment == judgment)
        return "\n\n".join(parts)

    # --- application ------------------------------------------------------------------

    def apply(self, judgment: str, node: Node, ctx: "Context", *inputs) -> tuple[object, "Derivation"]:
        """The result of the one rule that applies to `node`, and its derivation."""
        if ctx._depth:
            return ctx._applied(self, judgment, node, inputs)
        pending = [(self, judgment, node, inputs)]
        try:
            while pending:
                try:
                    ctx._applied(*pending[-1])
                    pending.pop()
                except _TooDeep as deep:
                    pending.append(deep.goal)
            return ctx._applied(self, judgment, node, inputs)
        finally:
            ctx._done.clear()

    def _candidates(self, judgment: str, node: Node) -> list[Rule]:
        if not isinstance(node, Node):
            raise RuleError(f"{judgment}: {_short(node)} is not an IL node")
        by_op = self._index.get(judgment)
        if by_op is None:
            raise RuleError(f"{self.title}: no rules for judgment {judgment!r}")
        candidates = by_op.get(node.op)
        if not candidates:
            raise RuleError(f"{judgment}: no rule for operator {node.op}{_at(node)}: {_short(node)}")
        return candidates

    def _apply_once(self, judgment: str, node: Node, ctx: "Context", inputs: tuple):
        # one query per candidate guard, all from the state that binds the rules' arguments
        arity = len(inputs)
        candidates = ctx._goals.get((id(self), judgment, node.op, arity)) if type(node) is Node else None
        if candidates is None:
            candidates = ctx._candidate_goals(self, judgment, node, arity)
        arguments = ctx._inputs   # _candidate_goals made a variable per input; none, one or
        # two inputs, most often: a display, not dict(zip())
        start = {ctx._node: node} if not arity else \
            {arguments[0]: inputs[0], ctx._node: node} if arity == 1 else \
            {arguments[0]: inputs[0], arguments[1]: inputs[1], ctx._node: node} if arity == 2 else \
            {**dict(zip(arguments, inputs)), ctx._node: node}
        held = None
        rule = None
        try:   # each guard's first state, or None
            for rule, guard, body in candidates:
                state = guard(start)
                if state is not None:
                    if held is not None:    # several rules apply: the error says which
                        break
                    held = (rule, body, state)
            else:
                rule = None
        except _UnboundInput as e:
            raise _unbound_error(e, rule, node) from None
        if held is None or rule is not None:
            raise self._not_one_rule(judgment, node, ctx, candidates, start)
        rule, body, state = held
        try:
            state = body(state)
        except _UnboundInput as e:
            raise _unbound_error(e, rule, node) from None
        if state is None:
            raise RuleError(f"{judgment}: the body of {rule.name} failed after its guard held, "
                            f"on {node.op}{_at(node)}: {_short(node)}")
        out = ctx._out
        try:
            result = ground_value(out, state)
        except UnboundVariable:
            raise RuleError(f"{judgment}: {rule.name} left its result unbound on {node.op}{_at(node)}: "
                            f"{_short(reify_term(out, state))}") from None
        return result, _traced(rule, judgment, node, inputs, state.get(_TRACE), result)

    def _not_one_rule(self, judgment: str, node: Node, ctx: "Context", candidates: list, start: dict) -> RuleError:
        """The error of an application where no guard or several held: every guard again
        (they are queries of facts), each failure with the premise that failed."""
        held, failures = [], []
        for rule, guard, _ in candidates:
            ctx._failed = None
            try:
                state = guard(start)
            except _UnboundInput as e:
                return _unbound_error(e, rule, node)
            if state is None:
                failures.append((rule.name, ctx._failed))
            else:
                held.append(rule)
        where = f"{judgment}: {{}} {node.op}{_at(node)}: {_short(node)}; "
        if not held:
            return RuleError(where.format("no rule applies to") + "candidates: " + ", ".join(
                name + (f" (failed: {failed[0]}({', '.join(map(_short, failed[1]))}))" if failed else "")
                for name, failed in failures))
        return RuleError(where.format("several rules apply to") + "rules: " + ", ".join(r.name for r in held))


def _unbound_error(e: _UnboundInput, rule: Rule, node: Node) -> RuleError:
    return RuleError(f"{rule.judgment}: in {rule.name} on {node.op}{_at(node)}: {e} is still "
                     f"unbound when it runs (put it after the goals that bind its inputs)")


# ---------------------------------------------------------------------------
# The trace of a proof, kept in the miniKanren state
# ---------------------------------------------------------------------------

class _TraceKey:
    __slots__ = ()

    def __repr__(self):
        return "<trace>"


_TRACE = _TraceKey()


def _bound_and_recorded(bind, result, state: dict, entry, whole: bool = False):
    """bind(result, state) (a kanren_il.binder: the premise's result unified with its
    output) with `entry` recorded (the whole new trace if `whole`), or None: one copy of
    the state (the binder's own, when it binds)."""
    bound = bind(result, state)
    if bound is False:
        return None
    if bound is state:
        bound = state.copy()
    bound[_TRACE] = entry if whole else (entry, state.get(_TRACE))
    return bound


def _unwind(trace) -> tuple[list, list]:
    """(facts, child derivations) of a trace, each in the order of the proof."""
    facts, children = [], []
    while trace is not None:
        entry, trace = trace
        (children if type(entry) is Derivation else facts).append(entry)
    facts.reverse()
    children.reverse()
    return facts, children


class Derivation:
    """One rule application: the proof tree node `adspec explain` prints.

    The runner keeps the raw trace of the proof and sorts it into `facts` and `children`
    when one of them is first read (`adspec -b` and `-d` never read most derivations)."""

    __slots__ = ("rule", "judgment", "node", "inputs", "result", "_trace", "_unwound")

    def __init__(self, rule: Rule, judgment: str, node: Node, inputs: tuple, facts: list,
                 children: list, result: object):
        self.rule, self.judgment, self.node, self.inputs, self.result = rule, judgment, node, inputs, result
        self._trace, self._unwound = None, (facts, children)

    @property
    def facts(self) -> list:
        """The facts read on the proof path, in order of evaluation."""
        return (self._unwound or self._unwind())[0]

    @property
    def children(self) -> list:
        """One derivation per `derive` premise, in order of evaluation."""
        return (self._unwound or self._unwind())[1]

    def _unwind(self) -> tuple:
        self._unwound, self._trace = _unwind(self._trace), None
        return self._unwound

    def __repr__(self):
        return f"Derivation({self.rule.name}, {self.judgment}, {_short(self.node)} => {_short(self.result)})"

    def walk(self) -> Iterator["Derivation"]:
        """Every derivation node, pre-order."""
        stack = [self]
        while stack:
            d = stack.pop()
            yield d
            stack.extend(reversed(d.children))

    def format(self, show: Callable = None, indent: str = "  ") -> str:
        """The proof tree: per level the rule, the node and its result, then the facts that
        held (✓ true, ✗ false as the premise required), then the sub-derivations."""
        show = show or _short
        lines = []
        stack = [(self, 0)]
        while stack:
            d, depth = stack.pop()
            pad = indent * depth
            lines.append(f"{pad}{d.rule.name}{_at(d.node)}: {show(d.node)}  ⇒  {show(d.result)}")
            for f in d.facts:
                mark = "✓" if f.value else "✗"
                lines.append(f"{pad}{indent}{mark} {f.name}({', '.join(show(a) for a in f.args)})")
            stack.extend((c, depth + 1) for c in reversed(d.children))
        return "\n".join(lines)


_new_derivation = object.__new__


def _traced(rule: Rule, judgment: str, node: Node, inputs: tuple, trace, result) -> Derivation:
    """The Derivation of an application from its raw trace (sorted when first read)."""
    d = _new_derivation(Derivation)
    d.rule, d.judgment, d.node, d.inputs, d.result = rule, judgment, node, inputs, result
    d._trace, d._unwound = trace, None
    return d


def _at(node) -> str:
    line = node.line if isinstance(node, Node) else None
    return f" at line {line}" if line is not None else ""


def _short(term, width: int = 70) -> str:
    """A one-line s-expression of `term`, cut at `width` characters (built left to right
    and stopped there, so a deep tree costs no more than a short one)."""
    parts, size = [], 0
    stack = [term]
    while stack and size <= width:
        t = stack.pop()
        if isinstance(t, _Close):
            text = t.text
        elif isinstance(t, Node):
            text = "(" + t.op
            stack.append(_CLOSE_NODE)
            stack.extend(_spaced(t.kids, lead=True))
        elif isinstance(t, tuple):
            text = "["
            stack.append(_CLOSE_TUPLE)
            stack.extend(_spaced(t, lead=False))
        else:
            text = repr(t)
        parts.append(text)
        size += len(text)
    text = "".join(parts)
    return text if len(text) <= width and not stack else text[:width - 1] + "…"


class _Close:
    def __init__(self, text):
        self.text = text


_CLOSE_NODE, _CLOSE_TUPLE, _SPACE = _Close(")"), _Close("]"), _Close(" ")


def _spaced(items, lead: bool) -> list:
    """`items` for the stack (reversed), a space before each (lead) or between them."""
    out = []
    for i, item in enumerate(reversed(items)):
        out.append(item)
        if lead or i < len(items) - 1:
            out.append(_SPACE)
    return out


# ---------------------------------------------------------------------------
# The context: the premises a rule can use
# ---------------------------------------------------------------------------

class Context:
    """What rules see: the rule set (for recursive premises), the analysis facts, and any
    extra values the caller passes (`Context(rules, facts, mode="tangent")` gives `ctx.mode`)."""

    max_depth = 40
    """Nested applications before the runner restarts from the deep sub-tree (see module doc)."""

    def __init__(self, ruleset: RuleSet, facts, **extra):
        self.ruleset = ruleset
        self.facts = facts
        clashes = [name for name in extra if hasattr(self, name)]
        if clashes:
            raise TypeError(f"Context: extra values {clashes} would hide the context's own attributes")
        self.__dict__.update(extra)
        self._depth = 0
        self._done: dict = {}     # (ruleset, judgment, id(node), *ids of the inputs) -> (result, Derivation)
        self._failed = None       # the last premise that failed in a guard, for error messages
        # each rule's goals, built once (see _relation) over these logic variables
        self._node, self._out, self._inputs = var(), var(), []
        self._relations: dict = {}   # (id(rule), number of inputs) -> (guard, body)
        self._goals: dict = {}       # see _candidate_goals

    # --- premises --------------------------------------------------------------------

    def fact(self, name: str, *args):
        """Premise `name(args)`: the analysis fact holds."""
        return self._fact(name, args, True)

    def no_fact(self, name: str, *args):
        """Premise `not name(args)`: the analysis fact does not hold."""
        return self._fact(name, args, False)

    def _fact(self, name: str, args: tuple, wanted: bool):
        query = getattr(self.facts, name)      # a misspelt fact fails when the rule is built
        values_of, premise = _grounding(args, f"an argument of {name}"), f"{'' if wanted else 'not '}{name}"

        def fact_step(state):
            values = values_of(state)
            if (not query(*values)) is wanted:    # the answer's truth (a bool) is not the one wanted
                self._failed = (premise, values)  # the values are formatted only for an error
                return None
            state = state.copy()                  # the fact recorded (its value: the one wanted): the trace's new head
            state[_TRACE] = (_new_tuple(Fact, (name, values, wanted)), state.get(_TRACE))
            return state
        return Goal(fact_step)

    def check(self, predicate: Callable, *args):
        """Premise `predicate(args)` on IL values (a side condition that is no analysis fact);
        recorded like a fact under the predicate's name."""
        name = getattr(predicate, "__name__", "check")
        values_of = _grounding(args, f"an argument of {name}")

        def check_step(state):
            values = values_of(state)
            if not predicate(*values):
                self._failed = (name, values)  # formatted only for an error
                return None
            state = state.copy()                  # the fact recorded: the trace's new head
            state[_TRACE] = (_new_tuple(Fact, (name, values, True)), state.get(_TRACE))
            return state
        return Goal(check_step)

    def compute(self, function: Callable, *args):
        """`compute(f, a, b, out)`: out = f(a, b), a deterministic Python computation
        (naming `vd` from `v`, building IL) on the reified inputs."""
        inputs, out = args[:-1], args[-1]
        values_of = _grounding(inputs, f"an input of {getattr(function, '__name__', 'compute')}")
        bind = binder(out)

        def compute_step(state):
            values = values_of(state)
            state = bind(function(*values), state)
            return None if state is False else state
        return Goal(compute_step)

    def derive(self, judgment: str, sub, out, *inputs):
        """Recursive premise `sub →judgment out`: a query of its own on the reified `sub`."""
        node_of, values_of = _grounding(sub, f"the subject of →{judgment}"), _grounding(inputs, f"an input of →{judgment}")
        bind = binder(out)

        def derive_step(state):
            node = node_of(state)
            values = values_of(state)
            if self._depth:    # inside an application, as premises run: RuleSet.apply's own step
                result, child = self._applied(self.ruleset, judgment, node, values)
            else:
                result, child = self.ruleset.apply(judgment, node, self, *values)
            return _bound_and_recorded(bind, result, state, child)
        return Goal(derive_step)

    def derive_all(self, judgment: str, subs, outs, *inputs):
        """`subs[i] →judgment outs[i]` for each element of the tuple `subs` (one query each)."""
        return self.derive_each(judgment, subs, outs, None, *inputs)

    def derive_each(self, judgment: str, subs, outs, each, *inputs):
        """`subs[i] →judgment outs[i]` with the inputs (each[i], *inputs): a premise per
        element whose first input differs by element (the adjoint propagates a different
        value to each operand); `each` None: derive_all."""
        nodes_of, values_of = _grounding(subs, f"the subjects of →{judgment}"), _grounding(inputs, f"an input of →{judgment}")
        firsts_of = _grounding(each, f"an input of →{judgment}") if each is not None else None
        bind = binder(outs)

        def derive_all_step(state):
            nodes = nodes_of(state)
            values = values_of(state)
            firsts = firsts_of(state) if firsts_of is not None else None
            ruleset = self.ruleset
            applied = self._applied if self._depth else \
                lambda ruleset, judgment, node, inputs: ruleset.apply(judgment, node, self, *inputs)
            results, trace = [], state.get(_TRACE)
            for i, node in enumerate(nodes):
                result, child = applied(ruleset, judgment, node, values if firsts is None else (firsts[i],) + values)
                results.append(result)
                trace = (child, trace)
            return _bound_and_recorded(bind, tuple(results), state, trace, whole=True)
        return Goal(derive_all_step)

    # --- the runner's bookkeeping ------------------------------------------------------

    def _relation(self, rule: Rule, arity: int):
        """The rule's (guard, body), built once: the relation called with logic variables for
        the node, the result and the inputs. Each application is a query of its own, from a
        state that binds them (`RuleSet._apply_once`), so applications never share a binding, not
        even nested ones of the same rule."""
        key = (id(rule), arity)    # rules live as long as their rule set; hashing one hashes all its fields
        goals = self._relations.get(key)
        if goals is None:
            goals = self._relations[key] = rule.relation(self._node, self._out, self, *self._inputs[:arity])
        return goals

    def _candidate_goals(self, ruleset: RuleSet, judgment: str, node: Node, arity: int) -> list:
        """(rule, guard, body) of the candidate rules for the node's operator, looked up once
        per rule set, judgment, operator and number of inputs; the guard and the body as
        steps (`state -> state or None`, _first_state)."""
        key = (id(ruleset), judgment, node.op, arity) if type(node) is Node else None
        goals = self._goals.get(key)
        if goals is None:   # a node that is no Node raises in _candidates
            while len(self._inputs) < arity:
                self._inputs.append(var())
            goals = self._goals[key] = [(rule, *map(_first_state, self._relation(rule, arity)))
                                        for rule in ruleset._candidates(judgment, node)]
        return goals

    def _applied(self, ruleset: RuleSet, judgment: str, node: Node, inputs: tuple):
        # by identity (the node and the inputs): the same tree at two places has different
        # annotations (sid, line), hence different facts; identity spares hashing deep trees
        arity = len(inputs)   # none, one or two inputs, most often: their ids without map
        key = (ruleset, judgment, id(node)) if not arity else \
            (ruleset, judgment, id(node), id(inputs[0])) if arity == 1 else \
            (ruleset, judgment, id(node), id(inputs[0]), id(inputs[1])) if arity == 2 else \
            (ruleset, judgment, id(node), *map(id, inputs))
        done = self._done.get(key)
        if done is not None:
            return done
        if self._depth >= self.max_depth:
            raise _TooDeep((ruleset, judgment, node, inputs))
        self._depth += 1
        try:
            done = ruleset._apply_once(judgment, node, self, inputs)
        finally:
            self._depth -= 1
        self._done[key] = done    # its Derivation keeps the node and the inputs of the key's ids
        return done


def _first_state(goal):
    """A goal's first state, or None, for a state: a Goal's own step; the first of the stream
    of any other kanren goal."""
    if type(goal) is Goal:
        return goal.step
    return lambda state: next(iter(goal(state)), None)


def _grounding(term, what: str):
    """`state -> the value of term`, for a premise that reads term each time it runs (kanren_il.grounder);
    a variable still unbound is an _UnboundInput naming `what`."""
    return grounder(term, lambda: _UnboundInput(what))
