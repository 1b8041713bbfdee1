"""The flow-graph method of paper 5.5 for the adjoint of unstructured control.

A statement whose parts jump out of themselves (GOTO, computed GOTO, arithmetic IF, EXIT /
CYCLE / break / continue, an early RETURN, the fall-through of a C switch) has no adjoint by
the structured rules: the backward sweep cannot mirror its nesting. The smallest statement
that holds every such jump (a *region*: a loop holding its EXITs, the procedure body holding
its GOTOs) is lowered to a flow graph of basic blocks. Each block's statements are
differentiated by the other rules (a statement that jumps nowhere out of itself stays whole,
structured), and the two sweeps are joined by the arrows of the graph:

- forward sweep: the blocks in source order, each ending with its original control, and on
  every arrow into a block with several predecessors the number of that predecessor pushed
  (PUSHCONTROLnB): the branch taken where the flow merges (4.4);
- backward sweep: the blocks in reverse order, each running its statements' adjoints and then
  going back to its predecessor: the only one, or the one whose number it pops.

Loops lowered this way (a DO or a C for with an EXIT inside, say) keep their index exact:
its value is pushed before each increment and popped after the adjoint of the next trip.
A test that is not live for diff (its region computes nothing the derivatives need, and may
read values the forward sweep dropped) jumps to its immediate post-dominator instead.
"""
from __future__ import annotations

from collections import Counter

import networkx as nx

from ...engine.il import Node, jump_targets, walk, walk_statements
from ...engine.kanren_il import eq, lall, member, pattern, var
from .context import INTEGER, _bits, flattened
from .ruleset import ADJOINT

JUMPS = frozenset(("goto", "computedGoto", "arithmeticIf", "exit", "cycle", "return"))
LOOPS = frozenset(("do", "while", "doWhile", "for"))
COMPOUNDS = ("block", "if", "do", "for", "while", "doWhile", "switch")  # statements whose parts may jump out of themselves
_NONE = (Counter(), frozenset(), frozenset())


def _parts(s: Node) -> tuple:
    """The statements (a block) or blocks (a compound statement) directly inside s."""
    if s.op == "block":
        return s.kids
    if s.op == "if":
        return tuple(k for k in s.kids[1:] if k is not None)
    if s.op in LOOPS:
        return (s.kids[{"do": 4, "while": 1, "doWhile": 0, "for": 3}[s.op]],)
    if s.op == "switch":
        return tuple(c.kids[1] for c in s.kids[1])
    return ()


class Shapes:
    """Which statements of one procedure jump out of themselves (escape) and which are
    regions (closed, with a part that escapes): one bottom-up pass, only for a procedure that
    has jumps at all."""

    def __init__(self, ctx):
        self.ctx, self.procedure = ctx, ctx.procedure
        body = ctx.procedure.node.kids[7]
        self.any = body is not None and any(
            n.op in JUMPS or (n.op == "switch" and n.kids[2]) for n in walk_statements(body.kids))  # jumps are statements
        self.memo: dict[int, tuple] = {}
        self.total = self._summary(body)[0] if self.any else Counter()

    def _summary(self, s: Node) -> tuple:
        """(jumps to each label, labels defined inside, EXIT/CYCLE/RETURN leaving s)."""
        if not isinstance(s, Node):
            return _NONE
        known = self.memo.get(id(s))
        if known is not None:
            return known
        if s.op in JUMPS:
            flags = frozenset((s.op,)) if s.op in ("exit", "cycle", "return") and not self._final(s) else frozenset()
            out = (Counter(jump_targets(s)), frozenset(), flags)
        else:
            refs, labels, flags = Counter(), set(), set()
            for part in _parts(s):
                r, lab, fl = self._summary(part)
                refs.update(r)
                labels |= lab
                flags |= fl
                if part.ann.get("label") is not None:
                    labels.add(part.ann["label"])
            if s.op in LOOPS:
                flags -= {"exit", "cycle"}
            elif s.op == "switch" and s.kids[2]:
                flags -= {"exit"}
            out = (refs, frozenset(labels), frozenset(flags))
        self.memo[id(s)] = out
        return out

    def _final(self, s: Node) -> bool:
        return s.op == "return" and self.ctx.last_statement(s)

    def escapes(self, s: Node) -> bool:
        """Control leaves s other than by its end, or enters it other than by its start."""
        if not self.any:
            return False
        if s.op in JUMPS:
            return not self._final(s)
        refs, labels, flags = self._summary(s)
        return bool(flags) or any(label not in labels for label in refs) \
            or any(self.total[label] > refs[label] for label in labels)

    def unstructured(self, s: Node) -> bool:
        """s (closed: it is differentiated as a whole) is a region of the flow-graph method."""
        if not self.any:
            return False
        return bool(s.op == "switch" and s.kids[2]) or any(self.escapes(p) for p in _parts(s))

    def structured(self, s: Node) -> bool:
        return not self.unstructured(s)


def decided(ctx, control: Node) -> bool:
    """The test of a control statement is live for diff (analyses/diffliveness.py): the
    forward sweep computes what it reads. A control can be live for another reason, a
    derivative reset under it (Facts.is_live_for_diff), with its test dead and the values
    the test reads sliced away: the test must not be evaluated then."""
    facts = ctx.facts
    proc, instrs = facts._all(control)
    return any(facts.live.is_live_for_diff(proc, i) for i in instrs if i.kind in ("test", "loop", "loopEntry"))


def shapes(ctx) -> Shapes:
    known = getattr(ctx, "_jump_shapes", None)
    if known is None or known.procedure is not ctx.procedure:
        known = ctx._jump_shapes = Shapes(ctx)
    return known


class _Block:
    __slots__ = ("id", "items", "term", "seq")

    def __init__(self, id_):
        self.id, self.items, self.term, self.seq = id_, [], None, None


def _int(value: int) -> Node:
    return Node("intCst", (value, None))


def _assign(lhs: Node, rhs: Node) -> Node:
    return Node("assign", (lhs, rhs))


class Graph:
    """The flow graph of one region: blocks of items, ("stmt", S) differentiated by the
    rules or ("raw", forward, backward) written here, each block ending with a terminator:
    ("goto", B), ("branch", CONTROL, ((COND, B), ..., (None, B))) an IF chain, or
    ("switch", SWITCH, ((VALUES, B), ...), B) with the default last."""

    def __init__(self, ctx, root: Node):
        self.ctx, self.shapes = ctx, shapes(ctx)
        self.blocks: list[_Block] = []
        self.labels: dict[str, _Block] = {}
        self.loops: list[tuple] = []   # (continue target, exit target) of the enclosing loops
        self._cur, self._seq = None, 0
        self.entry = self.cur = self._new()
        self.exit = self._new()
        self.lower(root, root=True)
        self._fall(self.exit)
        self._finish()

    # --- lowering ---------------------------------------------------------------------------------
    @property
    def cur(self) -> _Block | None:
        return self._cur

    @cur.setter
    def cur(self, block: _Block | None) -> None:
        """The block statements go to; the blocks are laid out in the order they become it
        (the source order)."""
        if block is not None and block.seq is None:
            block.seq, self._seq = self._seq, self._seq + 1
        self._cur = block

    def _new(self) -> _Block:
        self.blocks.append(_Block(len(self.blocks)))
        return self.blocks[-1]

    def _current(self) -> _Block:
        if self.cur is None:  # code after a jump, reached by a label only
            self.cur = self._new()
        return self.cur

    def _fall(self, target: _Block) -> None:
        if self.cur is not None:
            self.cur.term = ("goto", target)
        self.cur = None

    def _end(self, term) -> None:
        self._current().term = term
        self.cur = None

    def _label(self, label: str) -> _Block:
        if label not in self.labels:
            self.labels[label] = self._new()
        return self.labels[label]

    def _add(self, item) -> None:
        self._current().items.append(item)

    def _statements(self, block: Node | None) -> None:
        for s in block.kids if block is not None else ():
            self.lower(s)

    def lower(self, s: Node, root: bool = False) -> None:
        label = s.ann.get("label")
        if not root and label is not None and self.shapes.total[label]:
            target = self._label(label)
            self._fall(target)
            self.cur = target
        if not root and not self.shapes.escapes(s):
            self._add(("stmt", s))
            return
        getattr(self, "_" + s.op)(s)

    def _block(self, s):
        self._statements(s)

    def _if(self, s):
        cond, then, other = s.kids
        test, join = self._current(), self._new()
        yes, no = self._new(), (self._new() if other is not None else join)
        test.term = ("branch", s, ((cond, yes), (None, no)))
        for start, part in ((yes, then), (no, other)):
            if part is not None:
                self.cur = start
                self._statements(part)
                self._fall(join)
        self.cur = join

    def _loop(self, cont: _Block, body: Node, back: _Block) -> _Block:
        """The body of a loop, entered at the current block: CYCLE goes to cont, EXIT past
        the loop, its end to back."""
        after = self._new()
        self.loops.append((cont, after))
        self._statements(body)
        self.loops.pop()
        self._fall(back)
        return after

    def _do(self, s):
        ctx = self.ctx
        index, first, last, step, body = s.kids
        stride = step if step is not None else _int(1)
        count = ctx.fresh("ad_count", INTEGER)
        if decided(ctx, s):  # (else its test skips it all)
            saved = ctx.index_restored(s)
            trips = Node("div", (Node("add", (Node("sub", (last, first)), stride)), stride))
            self._add(("raw", ((ctx.push(index),) if saved else ()) + (_assign(count, trips), _assign(index, first)),
                       (ctx.pop(index),) if saved else ()))
        head, start, cont = self._new(), self._new(), self._new()
        self._fall(head)
        self.cur = head
        self.cur = start
        after = self._loop(cont, body, cont)
        head.term = ("branch", s, ((Node("gt", (count, _int(0))), start), (None, after)))
        self.cur = cont
        self._add(("raw", (ctx.push(index), _assign(index, Node("add", (index, stride))),
                           _assign(count, Node("sub", (count, _int(1))))), (ctx.pop(index),)))
        self._fall(head)
        self.cur = after

    def _while(self, s):
        cond, body = s.kids
        head, start = self._new(), self._new()
        self._fall(head)
        self.cur = head
        self.cur = start
        after = self._loop(head, body, head)
        head.term = ("branch", s, ((cond, start), (None, after)))
        self.cur = after

    def _doWhile(self, s):
        body, cond = s.kids
        start, test = self._new(), self._new()
        self._fall(start)
        self.cur = start
        after = self._loop(test, body, test)
        test.term = ("branch", s, ((cond, start), (None, after)))
        self.cur = after

    def _for(self, s):
        init, cond, step, body = s.kids
        if init is not None and init.op == "varDecl":
            hoisted = self.ctx._hoisted_index(s, init)
            if hoisted is None or hoisted.kids[0].kids[0] in self.ctx.facts.diff_variables(self.ctx.procedure.name):
                self.ctx.refuse(s, "this declaration in a for loop with jumps")
            self._add(("raw", (hoisted,), ()))
        elif init is not None:
            self.lower(init)
        head, start, cont = self._new(), self._new(), self._new()
        self._fall(head)
        self.cur = head
        self.cur = start
        after = self._loop(cont, body, cont)
        head.term = ("branch", s, ((cond, start), (None, after))) if cond is not None else ("goto", start)
        self.cur = cont
        if step is not None:
            self.lower(step)
        self._fall(head)
        self.cur = after

    def _switch(self, s):
        selector, cases, fall_through = s.kids
        test, after = self._current(), self._new()
        bodies = [self._new() for _ in cases]
        default = next((b for c, b in zip(cases, bodies) if not c.kids[0]), after)
        test.term = ("switch", s, tuple((c.kids[0], b) for c, b in zip(cases, bodies) if c.kids[0]), default)
        if fall_through:  # break leaves the switch, continue is the loop's
            self.loops.append((self.loops[-1][0] if self.loops else None, after))
        for k, (case, start) in enumerate(zip(cases, bodies)):
            self.cur = start
            self._statements(case.kids[1])
            self._fall(bodies[k + 1] if fall_through and k + 1 < len(bodies) else after)
        if fall_through:
            self.loops.pop()
        self.cur = after

    def _goto(self, s):
        self._end(("goto", self._label(s.kids[0])))

    def _computedGoto(self, s):
        labels, index = s.kids
        self._no_calls(s, index)
        following = self._new()
        ways = tuple((Node("eq", (index, _int(k))), self._label(label)) for k, label in enumerate(labels, 1))
        self._current().term = ("branch", s, ways + ((None, following),))
        self.cur = following

    def _arithmeticIf(self, s):
        value, negative, zero, positive = s.kids
        self._no_calls(s, value)
        self._end(("branch", s, ((Node("lt", (value, _int(0))), self._label(negative)),
                                 (Node("eq", (value, _int(0))), self._label(zero)), (None, self._label(positive)))))

    def _exit(self, s):
        self._end(("goto", self.loops[-1][1]))

    def _cycle(self, s):
        self._end(("goto", self.loops[-1][0]))

    def _return(self, s):
        self._add(("stmt", s))  # its adjoint: that of the value returned (A-return-value)
        self._end(("goto", self.exit))

    def _no_calls(self, s, expr):
        if any(n.op == "call" for n in walk(expr)):  # the lowering evaluates it once per way
            self.ctx.refuse(s, "a function call in the expression of a computed GOTO or arithmetic IF")

    # --- the graph --------------------------------------------------------------------------------
    @staticmethod
    def successors(block: _Block) -> list:
        term = block.term
        if term is None:
            return []
        if term[0] == "goto":
            return [term[1]]
        if term[0] == "branch":
            return [b for _, b in term[2]]
        return [b for _, b in term[2]] + [term[3]]

    def _finish(self) -> None:
        """Dead tests jump to their immediate post-dominator; then the blocks reached from the
        entry, and each one's predecessors (distinct, in block order)."""
        graph = nx.DiGraph()
        graph.add_nodes_from(b.id for b in self.blocks)
        graph.add_edges_from((b.id, s.id) for b in self.blocks for s in self.successors(b))
        post = None
        for b in self.blocks:
            if b.term is not None and b.term[0] != "goto" and not decided(self.ctx, b.term[1]):
                if post is None:
                    post = nx.immediate_dominators(graph.reverse(copy=False), self.exit.id)
                if b.id not in post:
                    self.ctx.refuse(b.term[1], "a jump into code that never ends")
                b.term = ("goto", self.blocks[post[b.id]])
        reached, stack = {self.entry.id}, [self.entry]
        while stack:
            for s in self.successors(stack.pop()):
                if s.id not in reached:
                    reached.add(s.id)
                    stack.append(s)
        self.order = sorted((b for b in self.blocks if b.id in reached and b is not self.exit),
                            key=lambda b: (b.seq is None, b.seq, b.id)) + [self.exit]
        self.preds: dict[int, list] = {b.id: [] for b in self.order}
        for b in self.order:
            for s in self.successors(b):
                if b not in self.preds[s.id]:
                    self.preds[s.id].append(b)
        for b in self.order[1:]:   # a nested one is hoisted to the procedure (A-decl-nested): no declaration left
            for item in b.items:
                if item[0] == "stmt" and item[1].op == "varDecl" and self.ctx.c and self.ctx.top_level(item[1]):
                    self.ctx.refuse(item[1], "a declaration after a jump target")

    def statements(self) -> tuple:
        """The statements the rules differentiate, in block order."""
        return tuple(item[1] for b in self.order for item in b.items if item[0] == "stmt")

    # --- the two sweeps ---------------------------------------------------------------------------
    def sweeps(self, pairs: tuple) -> Node:
        """[forward sweep ; backward sweep] from the pairs of the statements()."""
        pairs = iter(pairs)
        forward_items, backward_items = {}, {}
        for b in self.order:
            fwd, bwd = [], []
            for item in b.items:
                if item[0] == "raw":
                    fwd.extend(item[1])
                    bwd.append(Node("block", item[2]))
                else:
                    pair = next(pairs)
                    fwd.extend(_unlabelled(pair.kids[0], item[1].ann.get("label")))
                    bwd.append(pair.kids[1])
            forward_items[b.id], backward_items[b.id] = fwd, bwd[::-1]
        labels = _Labels(self.ctx)
        forward = self._layout(self.order, forward_items, self._transfer, labels.forward)
        backward = self._layout(self.order[::-1] + [_END], backward_items, self._return_to, labels.backward)
        return Node("block", (Node("block", tuple(forward)), Node("block", tuple(backward))))

    def _layout(self, order, items, transfer, label_of) -> list:
        """The blocks in order, each with its items and then its transfer of control; a
        block gets its label when a transfer goes to it."""
        code, targets = [], set()

        def goto(block):
            targets.add(block.id)
            return Node("goto", (label_of(block),))
        for k, b in enumerate(order):
            following = order[k + 1] if k + 1 < len(order) else None
            code.append((b, list(items.get(b.id, ())) + (transfer(b, following, goto) if b.id != -1 else [])))
        out = []
        for b, nodes in code:
            if b.id in targets:
                out.append(Node("nop", ()).with_ann(label=label_of(b)))
            out.extend(nodes)
        return out

    def _edge(self, src: _Block, dst: _Block, goto, following=None) -> list:
        ways = len(self.preds[dst.id])
        push = [self.ctx.push_choice(self.preds[dst.id].index(src), ways)] if ways > 1 else []
        return push + ([] if dst is following else [goto(dst)])

    def _transfer(self, b: _Block, following, goto) -> list:
        term = b.term
        if term is None:
            return []
        if term[0] == "goto":
            return self._edge(b, term[1], goto, following)
        if term[0] == "branch":
            *ways, (_, last) = term[2]
            chain = Node("block", tuple(self._edge(b, last, goto)))
            for cond, target in reversed(ways):
                chain = Node("block", (Node("if", (cond, Node("block", tuple(self._edge(b, target, goto))), chain)),))
            return list(chain.kids)
        switch, cases, default = term[1], term[2], term[3]
        new_cases = tuple(Node("case", (values, Node("block", tuple(self._edge(b, target, goto)))))
                          for values, target in cases)
        new_cases += (Node("case", ((), Node("block", tuple(self._edge(b, default, goto))))),)
        return [Node("switch", (switch.kids[0], new_cases, switch.kids[2]))]

    def _return_to(self, b: _Block, following, goto) -> list:
        """The end of a block's adjoint: back to the adjoint of its predecessor (the one whose
        number is popped), or out of the region from the entry."""
        preds = self.preds[b.id] if b is not self.entry else []
        if not preds:
            return [] if following is _END else [goto(_END)]
        if len(preds) == 1:
            return [] if preds[0] is following else [goto(preds[0])]
        ctx = self.ctx
        branch = ctx.branch_variable()
        pop = Node("call", (ctx._stack_name("pop", f"Control{_bits(len(preds))}b"),
                            (Node("address", (branch,)) if ctx.c else branch,)))
        chain = Node("block", (goto(preds[-1]),))
        for k in range(len(preds) - 2, -1, -1):
            chain = Node("block", (Node("if", (Node("eq", (branch, _int(k))), Node("block", (goto(preds[k]),)), chain)),))
        return [pop] + list(chain.kids)


_END = _Block(-1)


def _unlabelled(forward: Node, label) -> list:
    """The forward sweep of a statement without the statement's own label (the graph's
    labels replace it)."""
    nodes = flattened(Node("block", (forward,))).kids
    if label is None:
        return list(nodes)
    return [Node(n.op, n.kids, n.ann.discard("label")) if n.ann.get("label") == label else n for n in nodes]


class _Labels:
    """The labels of the blocks of both sweeps: numbers above the procedure's own in
    Fortran, names no label of the function has in C."""

    def __init__(self, ctx):
        self.ctx = ctx
        state = getattr(ctx, "_jump_labels", None)
        if state is None or state[0] is not ctx.procedure:
            body = ctx.procedure.node.kids[7]
            used = {str(n.ann["label"]) for n in walk(body.kids if body is not None else ()) if "label" in n.ann}
            state = ctx._jump_labels = (ctx.procedure, used, [max((int(u) for u in used if u.isdigit()), default=0)])
        self.used, self.counter = state[1], state[2]
        self.names: dict = {}

    def _fresh(self) -> str:
        while True:
            self.counter[0] += 1
            name = str(self.counter[0]) if not self.ctx.c else f"ad_l{self.counter[0]}"
            if name not in self.used:
                break
        if not self.ctx.c and self.counter[0] > 99999:
            self.ctx.refuse(self.ctx.procedure.node, "more labels than Fortran's five digits")
        self.used.add(name)
        return name

    def forward(self, block: _Block) -> str:
        return self._named(("f", block.id))

    def backward(self, block: _Block) -> str:
        return self._named(("b", block.id))

    def _named(self, key) -> str:
        if key not in self.names:
            self.names[key] = self._fresh()
        return self.names[key]


@ADJOINT.rule("A-flow-graph", judgment="adjoint", ops=COMPOUNDS,
              section="5.5", source="reconstructed: docs/rules.md#a-flow-graph",
              premises=("isLiveForDiff(S)", "unstructured(S)", "S →flowGraph BLOCKS", "INSTRk →  [INSTRk→ ; INSTRk←]  (each k)",
                        "INSTRk →hoist  [CALLSk→ ; CALLSk←]  (each k)", "integer →newFreeVar B"),
              conclusion="S  →  [{Lk: INSTRSk→; (push(j) where the arrow k→m merges into m); jump k} ... ;\n"
                         "      {Lk': INSTRSk←; (pop(B); goto Lj' if B = j) | goto Lp'} ... in reverse]")
def a_flow_graph(stmt, out, ctx):
    """Paper 5.5: Tapenade differentiates unstructured code block by block of its flow
    graph, and reconnects the blocks of the backward sweep by the reversed arrows, pushing
    the branch taken at each merge. The paper gives no rule; this one applies it to the
    smallest statement S that holds jumps out of its parts (a loop and its EXITs, a C
    switch and its fall-throughs, the body and its GOTOs and RETURNs). Each arrow into a
    block with several predecessors pushes the number of the predecessor it comes from
    (PUSHCONTROLnB), so that the backward sweep, ending the adjoint of that block, pops it
    and goes to the adjoint of that very predecessor: it replays the forward path exactly,
    whatever the path. The statements of a block that jump nowhere out of themselves are
    differentiated whole by the structured rules. A lowered DO pushes its index before each
    increment (the adjoints of the trip before read it) and counts its trips the way Fortran
    fixes them at entry. A test that diff-liveness finds useless (nothing the derivatives
    read depends on it; the sliced forward sweep may not compute what it reads) is not
    evaluated: its block goes straight to its immediate post-dominator."""
    graph, stmts, pairs, hoists, whole = var(), var(), var(), var(), var()
    op = var()
    guard = lall(eq(stmt, pattern(op, rest=var())), member(op, COMPOUNDS), ctx.check(_live_or_block(ctx), stmt),
                 ctx.check(ctx.unstructured, stmt))
    body = lall(ctx.compute(lambda s: Graph(ctx, s), stmt, graph), ctx.compute(Graph.statements, graph, stmts),
                ctx.derive_all("adjoint", stmts, pairs), ctx.derive_all("hoist", stmts, hoists),
                ctx.compute(ctx.with_hoisted_calls, stmts, pairs, hoists, whole),
                ctx.compute(Graph.sweeps, graph, whole, out))
    return guard, body


def _live_or_block(ctx):
    def is_live_for_diff(s):  # a block is no control of its own: live or not, its parts say
        return s.op == "block" or ctx.facts.is_live_for_diff(s)
    return is_live_for_diff
