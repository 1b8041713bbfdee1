"""The shortcuts taken for speed (docs/performance.md) give what the long way gives.

- DerivativeUses reads the zones of a partial derivative from the operands it holds
  (`_partial_operands`), found once per table entry from stand-in leaves, instead of building
  the partial: on every tangent program of the corpus, each answer equals the zones read by
  the partials built from the real operands.
- `engine.datastack.roomy`: a recursion that goes up and down across CPython's 16 KiB frame
  chunks maps and unmaps a chunk at every crossing (page faults); from a roomy frame it does not.
- The adjoint's shortcuts (issue 16, `adspec -b` on the 10,000-line files): `il.has_op` and
  `il.called_names` answer what a walk answers; `scalar_operation` of a Fortran operation
  takes array_operation's search for its own; isCalledSplit/Joint found once per procedure
  from its own call sites equal the search over every call site; `Namer.is_derivative_name`
  is membership in `derivative_names()`. Each on the adjoint of the corpus programs.
- The rule runner's (engineperf): derivations sorted from their trace when read, patterns
  matched with one copy of the state, the children of a pattern grounded by one look-up each, nodes known ground when built, `walk`
  past the children of names and numbers; on the tangent and the adjoint of the corpus.
- engineperf2: `Node(...)` built as a `_NodeBeingBuilt` turned into a Node is the node the
  slots' own setters build, still immutable.
"""
from __future__ import annotations

import resource
import sys

import pytest

import adspec
import adspec.analyses.derivative_uses as DU
from adspec.engine.datastack import roomy
from adspec.rules.derivatives import LinearOnly
from test_tangent_programs import PROGRAMS, program_path


def _built_partials_reads(walker, entry, args) -> int:
    """What _through_partials gave before: the zones read by the partials built on args."""
    active = entry.active_positions(len(args))
    parts = {i: walker.walk(args[i]) for i in active}
    used = 0
    for _, u in parts.values():
        used |= u
    active_now = [i for i, (a, _) in parts.items() if a]
    if active_now and entry.build is not LinearOnly:
        partials = entry.partials(args, walker.lang)
        for i in active_now:
            if partials[i] is not None:
                used |= walker.reads(partials[i])
    return used


def test_partial_reads_without_building_equal_the_built_partials(monkeypatch):
    fast = DU._PartialsWalker._through_partials
    seen = {"operations": 0, "shortcut": 0}

    def checked(walker, entry, args):
        result = fast(walker, entry, args)
        assert result[1] == _built_partials_reads(walker, entry, args), (entry.name, args)
        seen["operations"] += 1
        seen["shortcut"] += DU._partial_operands(entry, args, walker.lang) is not None
        return result

    monkeypatch.setattr(DU._PartialsWalker, "_through_partials", checked)
    for param in PROGRAMS:
        name, head, _ = param.values
        adspec.differentiate(str(program_path(name)), head=head, mode="tangent")
    # the shortcut is taken for nearly every operation (size() in a reduction's partial is not)
    assert seen["operations"] > 500 and seen["shortcut"] > 0.9 * seen["operations"]


def test_partial_operands_of_a_product_and_a_power():
    from adspec.engine.il import Node
    from adspec.rules.derivatives import derivative
    a, b = Node("ident", ("a",)), Node("ident", ("b",))
    # d(a*b)/da = b, d(a*b)/db = a
    assert DU._partial_operands(derivative("mul", "fortran"), (a, b), "fortran") == ({1}, {0})
    # a**2: d/da = 2*a, the literal exponent has no partial; a**b: d/db = a**b*log(a)
    two = Node("intCst", (2, None))
    assert DU._partial_operands(derivative("power", "fortran"), (a, two), "fortran") == ({0}, frozenset())
    assert DU._partial_operands(derivative("power", "fortran"), (a, b), "fortran") == ({0, 1}, {0, 1})



def test_partial_operands_do_not_depend_on_a_real_literal_value(monkeypatch):
    """_partial_operands keys a real literal by its kind alone: no entry of the table looks at
    a real literal's value, whatever the entry, the language and the literal's place."""
    from adspec.engine.il import Node
    from adspec.rules.derivatives import DERIVATIVES
    checked = 0
    for entry in DERIVATIVES:
        nargs = max(len(entry.args), 1)
        for lang in ("fortran", "c"):
            for k in range(nargs):
                answers = set()
                for text in ("0.0", "1.0", "2.0", "-1.0", "0.5", "3.7"):
                    monkeypatch.setattr(DU, "_OPERANDS_OF_PARTIALS", {})   # built, not remembered
                    args = tuple(Node("realCst", (text, 8)) if j == k else Node("ident", (f"v{j}",))
                                 for j in range(nargs))
                    answers.add(DU._partial_operands(entry, args, lang))
                assert len(answers) == 1, (entry.name, lang, k, answers)
                checked += 1
    assert checked > 100

def _deep_oscillation():
    def down(n):
        return down(n - 1) if n else 0
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for i in range(3000):
        down(200 + i % 400)
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before


@pytest.mark.skipif(sys.version_info < (3, 11), reason="frames live in data stack chunks from CPython 3.11")
def test_roomy_stack_stops_the_chunk_churn():
    plain = min(_deep_oscillation() for _ in range(3))
    roomy_faults = min(roomy(_deep_oscillation)() for _ in range(3))
    assert plain > 1000          # each crossing maps a fresh chunk (4 pages)
    assert roomy_faults < 100


def test_differentiate_runs_on_a_roomy_stack():
    assert adspec.pipeline.differentiate.__wrapped__.__name__ == "differentiate"
    assert adspec.pipeline.differentiate.__name__ == "differentiate"
    assert adspec.pipeline.differentiate.__code__ is roomy(lambda: None).__code__


# --- the adjoint's shortcuts ---------------------------------------------------------------------
def _adjoint_corpus():
    """(path, head) of the Fortran corpus programs that adjoint mode differentiates."""
    from adspec.engine.errors import UnsupportedError
    for param in PROGRAMS:
        name, head, _ = param.values
        try:
            adspec.differentiate(str(program_path(name)), head=head, mode="adjoint")
        except UnsupportedError:
            continue
        yield str(program_path(name)), head


def test_has_op_and_called_names_answer_what_a_walk_answers():
    from adspec.engine.il import called_names, has_op, walk
    asked = [frozenset({"call"}), frozenset({"arrayTriplet"}), frozenset({"ident"}), frozenset({"mul", "div"}),
             frozenset({"forall"}), frozenset({"ifExpr", "fieldAccess"})]
    trees = 0
    for param in PROGRAMS:
        name, head, _ = param.values
        tree = adspec.differentiate(str(program_path(name)), head=head, mode="tangent").tree
        for unit in walk(tree):
            trees += 1
            for ops in asked:
                assert has_op(unit, ops) == any(n.op in ops for n in walk(unit))
            assert called_names(unit) == {n.kids[0] for n in walk(unit) if n.op == "call"}
    assert trees > 10000


def test_adjoint_shortcuts_answer_what_the_long_way_answers(monkeypatch):
    from adspec.analyses.facts import Facts
    from adspec.engine.il import Node
    from adspec.rules.adjoint.context import AdjointContext, _outside_calls
    from adspec.rules.naming import Namer
    seen = {"operations": 0, "procedures": 0, "names": 0}
    scalar = AdjointContext._scalar_operation

    def searched(ctx, expr):   # the search the shortcut leaves out for Fortran operations
        if ctx.array_operation(expr):
            return False
        if expr.op == "intrinsic" and ctx.linear_intrinsic(expr) and any(
                isinstance(a, Node) and a.op == "namedArg" for a in expr.kids[1]):
            return False
        nodes = list(_outside_calls(expr))
        if any(n.op in ("arrayConstructor", "impliedDo", "arrayTriplet") for n in nodes):
            return False
        indexed = {id(n.kids[0]) for n in nodes if n.op == "arrayAccess"}
        return not any(n.op == "ident" and id(n) not in indexed and (s := ctx.symbol_of(n)) is not None and s.dims
                       for n in nodes)

    def checked_scalar(ctx, expr):
        answer = scalar(ctx, expr)
        assert answer == searched(ctx, expr), expr
        seen["operations"] += 1
        return answer

    called = Facts._called

    def checked_called(facts, name, checkpointed):
        answer = called(facts, name, checkpointed)
        proc = facts.program.procedure(name)
        assert answer == any(site.callee is proc and facts._active_site(site)
                             and (id(site.instr) in facts.results.snapshots) == checkpointed
                             for site in facts.program.call_sites.values())
        seen["procedures"] += 1
        return answer

    is_derivative_name = Namer.is_derivative_name

    def checked_name(namer, name):
        answer = is_derivative_name(namer, name)
        assert answer == (name in namer.derivative_names())
        seen["names"] += 1
        return answer

    monkeypatch.setattr(AdjointContext, "_scalar_operation", checked_scalar)
    monkeypatch.setattr(Facts, "_called", checked_called)
    monkeypatch.setattr(Namer, "is_derivative_name", checked_name)
    programs = list(_adjoint_corpus())
    assert len(programs) > 30
    assert seen["operations"] > 300 and seen["procedures"] > 30 and seen["names"] > 30


def test_grounder_of_few_variables_answers_what_ground_value_answers():
    """kanren_il.grounder's reads of no, one, two or more variables (the premises' inputs)
    give what ground_value gives, through chains of variables and partly bound trees, and
    raise the caller's exception on an unbound variable."""
    from adspec.engine.il import Node
    from adspec.engine.kanren_il import UnboundVariable, ground_value, grounder, pattern, var

    a, b, c, d, free = var(), var(), var(), var(), var()
    tree = Node("ident", ("x",))
    state = {a: tree, b: c, c: pattern("add", a, Node("realCst", ("1.0",))), d: ("y", None, 3)}

    class Unbound(Exception):
        pass

    for term in [(), (a,), (b,), (d,), (a, b), (b, d), (a, b, d), (d, a, b, a), a, b, d]:
        assert grounder(term, Unbound)(state) == ground_value(term, state), term
    for term in [(free,), (a, free), (free, a), (a, b, free), free]:
        with pytest.raises(Unbound):
            grounder(term, Unbound)(state)
        with pytest.raises(UnboundVariable):
            ground_value(term, state)


def test_merge_shortcuts_answer_what_a_walk_answers(monkeypatch):
    """The split-and-merge pass's shortcuts (rules/adjoint/merge.py) give what walking the
    trees gives: a statement's summary built from those of its blocks, M-split's counts of
    a window where a subtree met again is counted from the scan's trail, an expression's
    inner counts taken from that trail (counts and places by class of equal expressions), its
    kind remembered per subtree, the reads of a merged statement made of those of its parts,
    a substitution stopped at the last place counted, the places of an expression counted again
    only where a rewrite changed them, and the search for jumps and labels."""
    from adspec.engine.il import Node, walk, walk_statements
    from adspec.rules.adjoint import merge
    seen = {"summaries": 0, "statements": 0, "kinds": 0, "shared": 0}

    def walked_counts(expr):
        counts = {}
        for n in walk(expr):
            if n.op in merge.SPLIT_OPS:
                counts[n] = counts.get(n, 0) + 1
        return counts

    summary = merge._Improver.summary

    def checked_summary(self, stmt):
        answer = summary(self, stmt)
        nodes = list(walk(stmt))
        assert answer[0] == any(n.op == "call" and not merge._is_pop(n) for n in nodes)
        assert answer[1] == {n.kids[0] for n in nodes if n.op == "ident"}
        assert answer[2] == any(n.op in merge._JUMPS for n in nodes)
        assert answer[3] == any(n.op in merge._RUN_ENDS for n in nodes)   # the run test's
        seen["summaries"] += 1
        return answer

    scan = merge._Occurrences.scan

    def checked_scan(self, stmt, k):
        met = set(self.spans)
        scan(self, stmt, k)

        def by_value(counts):   # the scan's counts are by class: one per value, numbered
            assert all(self.classes[self.firsts[c]] == c for c in counts)
            return {self.firsts[c]: n for c, n in counts.items()}
        assert by_value(self.known[id(stmt)][1]) == walked_counts(stmt.kids[1])
        for n in walk(stmt.kids[1]):
            if n.op in merge.SPLIT_OPS:
                assert by_value(self.inner(n)) == walked_counts(n)
                assert self.places[self.classes[n]] is None if n.op in ("neg", "pos") \
                    else self.places[self.classes[n]].count(k) == walked_counts(stmt.kids[1])[n]
                assert self.size(n) == sum(1 for _ in walk(n))
                seen["shared"] += id(n) in met
        seen["statements"] += 1

    kind = merge._Improver._kind

    def leaves(expr):   # the operands at the bottom of an expression of operators, else None
        out, stack = [], [expr]
        while stack:
            node = stack.pop()
            if type(node) is not Node:
                out.append(None)
            elif node.op in merge.SPLIT_OPS:
                stack.extend(node.kids[1] if node.op == "intrinsic" else node.kids)
            else:
                out.append(node if node.op in merge._UNSPLIT else None)
        return out

    def checked_kind(self, expr, memo):
        answer = kind(self, expr, memo)
        kinds = [None if n is None else n.kids[1] or 4 if n.op == "realCst" else 0 if n.op == "intCst"
                 else self._reference_kind(n) for n in leaves(expr)]
        real = [k for k in kinds if k]
        assert answer == (None if None in kinds or not real else max(real)), expr
        seen["kinds"] += 1
        return answer

    index = merge._Run._index

    def checked_index(self, k, stmt, reads=None):
        assert reads is None or reads == merge._reads(stmt)
        seen["merged"] = seen.get("merged", 0) + (reads is not None)
        index(self, k, stmt, reads)

    substituted = merge._substituted

    def checked_substituted(node, rewrite):   # stopped at the last place counted: what a whole walk gives
        answer = substituted(node, rewrite)
        everywhere = [0]
        assert substituted(node, rewrite[:4] + (everywhere, rewrite[5], -1)) == answer
        assert everywhere == rewrite[4]
        seen["substituted"] = seen.get("substituted", 0) + 1
        return answer

    recounted = merge._Improver._recounted

    def checked_recounted(positions, changed, places, counts, c):   # an unchanged place keeps the scan's count
        answer = recounted(positions, changed, places, counts, c)
        assert answer == [k for k in dict.fromkeys(positions) for _ in range(counts.of(places[k], c))]
        seen["recounted"] = seen.get("recounted", 0) + 1
        return answer

    jumps = merge._jumps

    def checked_jumps(block):
        answer = jumps(block)
        assert answer == any(n.op in merge._JUMPS or n.ann.get("label") is not None for n in walk_statements(block))
        seen["jumps"] = seen.get("jumps", 0) + answer
        return answer

    monkeypatch.setattr(merge, "_jumps", checked_jumps)
    monkeypatch.setattr(merge._Improver, "_recounted", staticmethod(checked_recounted))
    monkeypatch.setattr(merge, "_substituted", checked_substituted)
    monkeypatch.setattr(merge._Run, "_index", checked_index)
    monkeypatch.setattr(merge._Improver, "summary", checked_summary)
    monkeypatch.setattr(merge._Occurrences, "scan", checked_scan)
    monkeypatch.setattr(merge._Improver, "_kind", checked_kind)
    programs = list(_adjoint_corpus())
    assert len(programs) > 30
    assert seen["summaries"] > 100 and seen["statements"] > 300 and seen["kinds"] > 100 and seen["shared"] > 50 \
        and seen["merged"] > 20 and seen["substituted"] > 50 and seen.get("recounted", 0) > 5 \
        and seen["jumps"] > 5
def test_the_rule_runners_shortcuts_give_what_the_long_way_gives(monkeypatch):
    """engineperf's shortcuts (docs/performance.md, 2026-11-28), on the tangent and the adjoint
    of corpus programs: a derivation's facts and children, sorted from its trace when first
    read, are those sorted when it was made; a pattern's match (`_match_children`) binds what
    `unify_terms` binds, and so does a premise's `binder`; `ground_value`'s children of a pattern
    (`_ground_kids`) are `_ground_tuple`'s; a node known ground when built is ground by
    `_tree_is_ground`'s own walk; `il.walk`, which skips the plain children of names and
    numbers, visits what a recursive pre-order visits."""
    from adspec.engine import kanren_il, rules
    from adspec.engine.errors import UnsupportedError
    from adspec.engine.il import Node, walk

    made = {}
    traced = rules._traced

    def eager(rule, judgment, node, inputs, trace, result):
        d = traced(rule, judgment, node, inputs, trace, result)
        made[id(d)] = (d, rules._unwind(trace))
        return d

    seen = {"kids": 0, "nodes": 0, "matches": 0, "binds": 0}
    ground_kids = kanren_il._ground_kids

    def checked_kids(kids, s):
        fast = ground_kids(kids, s)
        slow = kanren_il._ground_tuple(kids, s)
        assert len(fast) == len(slow) and all(a is b or a == b for a, b in zip(fast, slow)), kids
        seen["kids"] += 1
        return fast

    match_children = kanren_il._match_children

    def checked_match(subject, p):
        fast = match_children(subject, p)

        def step(state):
            answer = fast(state)
            slow = kanren_il.unify_terms(subject, p, state)
            assert answer == (None if slow is False else slow), p
            seen["matches"] += 1
            return answer
        return step

    make_binder = rules.binder

    def checked_binder(term):
        fast = make_binder(term)

        def bind(value, state):
            answer = fast(value, state)
            assert answer == kanren_il.unify_terms(term, value, state), term
            seen["binds"] += 1
            return answer
        return bind

    def preorder(k, out):
        if isinstance(k, Node):
            out.append(k)
            for kid in k.kids:
                preorder(kid, out)
        elif isinstance(k, tuple):
            for kid in k:
                preorder(kid, out)
        return out

    monkeypatch.setattr(rules, "_traced", eager)
    monkeypatch.setattr(kanren_il, "_ground_kids", checked_kids)
    monkeypatch.setattr(kanren_il, "_match_children", checked_match)
    monkeypatch.setattr(rules, "binder", checked_binder)
    for param in PROGRAMS:
        name, head, _ = param.values
        for mode in ("tangent", "adjoint"):
            try:
                result = adspec.differentiate(str(program_path(name)), head=head, mode=mode)
            except UnsupportedError:
                continue
            nodes = list(walk(result.tree))
            assert [id(n) for n in nodes] == [id(n) for n in preorder(result.tree, [])]
            for node in nodes:
                if node._ground is True:   # known when built: the same as computed from scratch
                    assert kanren_il._from_kids(node.kids) is True and type(node.op) is str
                    seen["nodes"] += 1
    for d, (facts, children) in made.values():
        assert d.facts == facts and [id(c) for c in d.children] == [id(c) for c in children]
    assert len(made) > 3000 and seen["kids"] > 3000 and seen["nodes"] > 10000 and seen["matches"] > 5000 and seen["binds"] > 5000
    assert not kanren_il.is_ground(Node("neg", (kanren_il.var(),)))   # a pattern is not known ground


def test_binder_binds_what_unify_terms_binds():
    """kanren_il.binder's one-copy binding of a premise's output (an unbound variable, a tuple
    of unbound variables) gives unify_terms's state; anything else is unify_terms's own."""
    from adspec.engine.il import Node
    from adspec.engine.kanren_il import binder, pattern, unify_terms, var

    a, b, c, free = var(), var(), var(), var()
    x, y = Node("ident", ("x",)), Node("ident", ("y",))
    state = {a: x, b: c}
    for term, value in [(free, y), (free, (x, y)), (free, a), (a, x), (a, y), (b, y),
                        ((free, c), (x, y)), ((free, c), (x,)), ((free, c), x), ((free, a), (y, x)),
                        ((free, a), (y, y)), ((free, free), (x, y)), ((free, c), (a, y)),
                        (pattern("neg", free), Node("neg", (x,))), ((), ())]:
        assert binder(term)(value, state) == unify_terms(term, value, state), (term, value)
    assert state == {a: x, b: c}     # the state given is left as it was


def test_node_built_through_its_twin_class_is_the_node_the_slots_setters_build():
    """engineperf2: `Node(...)` (its __new__) fills the slots of a `_NodeBeingBuilt`
    (plain stores, past Node.__setattr__) and turns it into a Node: the same node as the slots'
    own setters build, of class Node, still immutable, known ground exactly as before."""
    from pyrsistent import pmap

    from adspec.engine import il
    from adspec.engine.il import EMPTY_ANN, Node
    from adspec.engine.kanren_il import var

    def long_way(op, kids=(), ann=EMPTY_ANN):
        node = object.__new__(Node)
        kids = tuple(kids)
        ground = (type(op) is str and type(ann) is type(EMPTY_ANN)
                  and all(type(k) in il._PLAIN_VALUES or (type(k) is Node and k._ground is True)
                          or (type(k) is tuple and il._known_ground(k)) for k in kids))
        for setter, value in zip((il._set_op, il._set_kids, il._set_ann, il._set_hash, il._set_ground),
                                 (op, kids, ann, None, True if ground else None)):
            setter(node, value)
        return node

    x, v = Node("ident", ("x",)), var()
    for op, kids, ann in [("ident", ("x",), EMPTY_ANN), ("add", (x, Node("intCst", (1, None))), pmap({"line": 3})),
                          ("call", ("f", (x, x)), EMPTY_ANN), ("call", ("f", (x, v)), EMPTY_ANN),
                          ("neg", (v,), EMPTY_ANN), (v, (x,), EMPTY_ANN), ("neg", [x], EMPTY_ANN),
                          ("ident", ("x",), v), ("block", (), EMPTY_ANN)]:
        fast, slow = Node(op, kids, ann), long_way(op, kids, ann)
        assert type(fast) is Node and isinstance(fast, Node) and fast == slow and hash(fast) == hash(slow)
        assert (fast.op, fast.kids, fast.ann, fast._hash, fast._ground) == \
               (slow.op, slow.kids, slow.ann, slow._hash, slow._ground), (op, kids)
        with pytest.raises(AttributeError):
            fast.op = "call"
        with pytest.raises(AttributeError):
            fast.__class__ = il._NodeBeingBuilt
    assert Node(op="ident", kids=("y",)) == Node("ident", ("y",))
def _rebuilt(block):
    """flattened the long way (as before exprperf2): every block and control statement rebuilt."""
    from adspec.engine.il import Node
    out = []

    def splice(b):
        for kid in b.kids:
            op = kid.op if type(kid) is Node else None
            if op == "block":
                splice(kid)
            elif op in ("if", "do", "for", "while", "doWhile"):
                out.append(kid.with_kids(*(_rebuilt(k) if type(k) is Node and k.op == "block" else k
                                           for k in kid.kids)))
            elif op == "switch":
                cases = tuple(c.with_kids(c.kids[0], _rebuilt(c.kids[1])) for c in kid.kids[1])
                out.append(kid.with_kids(kid.kids[0], cases, kid.kids[2]))
            else:
                out.append(kid)
    splice(block)
    return Node("block", tuple(out), block.ann)


def test_flattened_keeps_what_it_need_not_rebuild_and_gives_each_place_its_own_node():
    """exprperf2: `flattened` keeps a control statement or block with nothing to splice as it is,
    equal to the rebuilt one; a node placed twice by the rules is copied at its second place
    (the merge pass and the C scopes keep tables by id)."""
    from adspec.engine.il import Node
    from adspec.rules.adjoint.context import flattened

    def assign(name):
        return Node("assign", (Node("ident", (name,)), Node("realCst", ("1.0", 8))))

    flat_body = Node("block", (assign("a"), assign("b")))
    flat_if = Node("if", (Node("ident", ("c",)), flat_body, None))
    nested_if = Node("if", (Node("ident", ("c",)), Node("block", (Node("block", (assign("d"),)), assign("e"))), None))
    inner_if = Node("if", (Node("ident", ("c",)), Node("block", (assign("h"),)), None))
    loop = Node("do", ("i", Node("intCst", (1, None)), Node("intCst", (9, None)), None, Node("block", (inner_if,))))
    case = Node("case", ((Node("intCst", (1, None)),), flat_body))   # flat_body at a second place
    switch = Node("switch", (Node("ident", ("k",)), (case,), None))
    whole = Node("block", (Node("block", (flat_if, loop)), nested_if, switch, flat_if, assign("f")))
    got = flattened(whole)
    assert got == _rebuilt(whole)
    assert got.kids[0] is flat_if and got.kids[1] is loop      # nothing to splice: kept
    assert got.kids[2] is not nested_if                        # its block spliced
    places = []

    def controls(node):
        if type(node) is Node:
            if node.op in ("block", "if", "do", "switch", "case"):
                places.append(node)
            for kid in node.kids:
                controls(kid)
        elif type(node) is tuple:
            for kid in node:
                controls(kid)
    controls(got)
    assert len({id(n) for n in places}) == len(places)        # flat_if and flat_body met twice: copied
    unchanged = Node("block", (flat_if, assign("g")))
    assert flattened(unchanged) is unchanged


def test_unit_partials_equal_the_partials_built_afresh():
    """exprperf2: the constant partials of add, sub, neg and pos are built once per language
    and kind; they equal the ones built at each call."""
    from adspec.engine.il import Node
    from adspec.rules.derivatives import derivative, neg, L

    x, y = Node("ident", ("x",)), Node("ident", ("y",))
    for lang in ("fortran", "c"):
        for kind in (4, 8, None):
            one = L(lang, kind).one
            expected = {"add": (one, one), "sub": (one, neg(one)), "neg": (neg(one),), "pos": (one,)}
            for name, partials in expected.items():
                args = (x, y) if len(partials) == 2 else (x,)
                assert derivative(name, lang).partials(args, lang, kind) == partials
