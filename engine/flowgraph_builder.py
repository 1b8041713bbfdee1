"""Build the flow graph of one procedure from its structured IL body (paper 5.1, fig. 16).

Statements are appended to the current basic block; every construct with control (if,
loops, jumps, labels, WHERE, FORALL) closes it. Function calls nested in expressions are split out as
"call" instructions placed before the instruction that uses them, each with a temporary
zone receiving its value. Natural loops are then found from the back edges of the
dominator tree. Everything is one pass over the statements plus linear graph passes.

WHERE and FORALL (masked array assignments) are modelled as branches whose arms may run, with
"masked" instructions (may-writes: no kill, each written zone keeps a dependence on itself):
- WHERE (m) A ELSEWHERE B:  test(m) -true-> A -> test(m) -false-> B -> join, each test also
  going straight on ("false" past A, "true" past B). Both arms may run, one after the other,
  and each is control dependent on its test, so the mask is what decides them. The second
  test stands for the mask evaluated at entry: it reads the mask's zones again, an
  over-approximation when A writes them. ELSEWHERE (m2) is a WHERE in B.
- FORALL (ranges, mask) body: test(ranges and mask) -true-> body -> join, -false-> join. No
  loop: each body assignment, done for all indices at once, is one masked instruction (array
  zones are atoms). The index variables are read as the zones of the names outside (a sound
  over-approximation: FORALL indices are statement-scoped and never written).
A DATA statement among executable statements is an initial value, not an instruction.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import networkx as nx

from .errors import SourceError
from .flowgraph import Block, FlowGraph, Instr, Loop
from .il import Node, called_names, mk

# Statements that are simple instructions ("plain"): their data effect is the statement itself.
PLAIN_OPS = frozenset(("assign", "pointerAssign", "io", "allocate", "deallocate", "intrinsic", "nop"))
# Statements that are not executed: they give no instruction.
SKIPPED_OPS = frozenset(("comment", "typeDef", "typeAlias", "enumDef", "typedefEnum", "data"))

ResultType = Callable[[str], "Node | None"]


@dataclass
class _LoopTargets:
    """Where `cycle` and `exit` of the innermost enclosing loop (or C switch) go; cont is
    None for a C switch outside any loop."""
    cont: int | None
    brk: int
    cont_label: str  # "back" to a header, "next" to a C for's step block or a doWhile's test


class _Builder:
    def __init__(self, proc, result_type: ResultType | None, filename: str):
        self.proc = proc
        self.flow = FlowGraph(proc.node, proc.name)
        self.result_type = result_type or (lambda name: None)
        self.filename = filename
        self.cur: Block | None = None
        self.labels: dict[str, int] = {}
        self.gotos: list[tuple[int, str, Node]] = []  # (block, label, jump)
        self.loops: list[_LoopTargets] = []
        self.temp_counts: dict[str, int] = {}
        self.reserved: set[int] = {self.flow.entry}  # blocks open_header must not reuse
        self.masked = 0  # depth of WHERE/FORALL constructs around the current statement

    # --- blocks and instructions -----------------------------------------------------------
    def new_block(self) -> Block:
        return self.flow.new_block()

    def open_block(self, pred_label: str = "next") -> Block:
        """A new block, reached from the current one (if any) by a `pred_label` edge."""
        block = self.new_block()
        if self.cur is not None:
            self.flow.add_edge(self.cur.id, block.id, pred_label)
        self.cur = block
        return block

    def open_header(self) -> Block:
        """The block a loop's back edges go to: the current block when it is still empty
        (entering it or looping to it is the same), else a new one. A labelled block or
        another loop's header is not reused: a GOTO to the label re-enters the loop from its
        start, and each loop keeps a header of its own."""
        cur = self.cur
        if cur is not None and not cur.instrs and cur.id not in self.reserved:
            header = cur
        else:
            header = self.open_block()
        self.reserved.add(header.id)
        return header

    def jump(self, dst: int, label: str) -> None:
        """End the current block with an edge to dst; what follows is unreachable until a label."""
        if self.cur is not None:
            self.flow.add_edge(self.cur.id, dst, label)
        self.cur = None

    def emit(self, instr: Instr) -> Instr:
        if self.cur is None:  # code after a jump: an unreachable block, kept
            self.cur = self.new_block()
        if self.masked and instr.kind == "plain":
            instr.masked = True
        instr.block, instr.index = self.cur.id, len(self.cur.instrs)
        self.cur.instrs.append(instr)
        return instr

    # --- function calls nested in expressions --------------------------------------------------
    def split_calls(self, exprs, line) -> None:
        """Emit a "call" instruction for every `call` node under exprs (a Node or tuple),
        innermost first, left to right. Iterative post-order: expressions can be very deep."""
        if not called_names(exprs):   # most statements call no function: one plain scan decides
            return
        done: set[int] = set()  # a node shared twice in one statement (C `a[f(i)] += 1`) runs once
        stack = [(exprs, False)]
        while stack:
            x, expanded = stack.pop()
            if isinstance(x, tuple):
                stack.extend((k, False) for k in reversed(x))
            elif isinstance(x, Node):
                if expanded:
                    if x.op == "call" and id(x) not in done:
                        done.add(id(x))
                        self.emit_split_call(x, line)
                elif x.op != "sizeof":
                    stack.append((x, True))
                    stack.extend((k, False) for k in reversed(x.kids) if isinstance(k, (Node, tuple)))

    def emit_split_call(self, call: Node, line) -> None:
        name = call.kids[0]
        k = self.temp_counts[name] = self.temp_counts.get(name, 0) + 1
        zone = self.proc.zones.add_temp(f"{name}_result{k}", self.result_type(name))
        self.proc.call_results[id(call)] = zone
        self.emit(Instr(call, "call", result=zone, line=line))

    def instr_after_calls(self, node: Node, kind: str, exprs, expr: Node | None = None) -> Instr:
        self.split_calls(exprs, node.line)
        return self.emit(Instr(node, kind, expr=expr))

    # --- statements ------------------------------------------------------------------------------
    def statements(self, nodes) -> None:
        for s in nodes:
            self.statement(s)

    def statement(self, s: Node) -> None:
        label = s.ann.get("label")
        if label is not None:
            self.define_label(label, s)
        if s.op in PLAIN_OPS:
            self.instr_after_calls(s, "plain", s.kids)
        elif s.op not in SKIPPED_OPS:
            method = getattr(self, "s_" + s.op, None)
            if method is None:
                raise SourceError(f"statement '{s.op}' cannot appear in a procedure body", self.filename, s.line)
            method(s)

    def define_label(self, label: str, s: Node) -> None:
        if label in self.labels:
            raise SourceError(f"label {label} defined twice", self.filename, s.line)
        if self.cur is None or self.cur.instrs:
            self.open_block()
        self.labels[label] = self.cur.id
        self.reserved.add(self.cur.id)

    def s_block(self, s):
        self.statements(s.kids)

    def s_varDecl(self, s):
        if "static" in s.kids[1]:
            return  # initialised once before the program runs, not at each execution
        inits = tuple(d.kids[2] for d in s.kids[2] if d.op == "declarator" and d.kids[2] is not None)
        if inits:
            self.instr_after_calls(s, "plain", inits)

    def s_call(self, s):
        self.split_calls(s.kids[1], s.line)
        self.emit(Instr(s, "call"))

    def s_kernelLaunch(self, s):
        """A launch is a call of the kernel (its configuration read, passive)."""
        self.split_calls(s.kids[1:], s.line)
        self.emit(Instr(s, "call"))

    def s_if(self, s):
        # An ELSE IF chain is walked in a loop, all branches meeting in one join block:
        # long chains would otherwise nest one Python call level per branch.
        join = self.new_block()
        while True:
            cond, then, els = s.kids
            self.instr_after_calls(s, "test", cond, expr=cond)
            test = self.cur
            self.open_block("true")
            self.statements(then.kids)
            self.jump(join.id, "next")
            if els is None:
                self.flow.add_edge(test.id, join.id, "false")
                break
            self.cur = test
            self.open_block("false")
            inner = els.kids[0] if len(els.kids) == 1 else None
            if inner is None or inner.op != "if" or "label" in inner.ann:
                self.statements(els.kids)
                self.jump(join.id, "next")
                break
            s = inner
        self.cur = join

    def s_where(self, s):
        mask, then, els = s.kids
        self.split_calls(mask, s.line)  # the mask is evaluated once
        self.masked_branch(s, mask, then, "true", "false")
        if els is not None:
            self.masked_branch(s, mask, els, "false", "true")

    def s_forall(self, s):
        ranges, mask, body = s.kids
        control = mk("arrayConstructor", tuple(ranges) + ((mask,) if mask is not None else ()))
        self.split_calls(control, s.line)
        self.masked_branch(s, control, body, "true", "false")

    def masked_branch(self, s: Node, expr: Node, body: Node, enter: str, skip: str) -> None:
        """test(expr) -enter-> body (masked instructions) -> join, test -skip-> join; the
        current block is then the join."""
        self.emit(Instr(s, "test", expr=expr))
        test = self.cur
        join = self.new_block()
        self.flow.add_edge(test.id, join.id, skip)
        self.open_block(enter)
        self.masked += 1
        self.statements(body.kids)
        self.masked -= 1
        self.jump(join.id, "next")
        self.cur = join

    def s_do(self, s):
        var, lo, hi, step, body = s.kids
        self.split_calls((lo, hi, step), s.line)  # bounds are evaluated once, before the loop
        self.emit(Instr(s, "loopEntry"))
        header = self.open_header()
        self.emit(Instr(s, "loop"))
        after = self.new_block()
        self.flow.add_edge(header.id, after.id, "exit")
        self.loop_body(body, header.id, "loop", _LoopTargets(header.id, after.id, "back"), header.id, "back")
        self.cur = after

    def s_while(self, s):
        cond, body = s.kids
        header = self.open_header()  # calls in the condition run at every iteration: they sit here
        self.instr_after_calls(s, "test", cond, expr=cond)
        after = self.new_block()
        self.flow.add_edge(header.id, after.id, "false")
        self.loop_body(body, header.id, "true", _LoopTargets(header.id, after.id, "back"), header.id, "back")
        self.cur = after

    def s_for(self, s):
        init, cond, step, body = s.kids
        if init is not None:
            self.statement(init)
        header = self.open_header()
        after = self.new_block()
        if cond is not None:
            self.instr_after_calls(s, "test", cond, expr=cond)
            self.flow.add_edge(self.cur.id, after.id, "false")
            enter_from, enter_label = self.cur.id, "true"
        else:
            enter_from, enter_label = header.id, "next"
        step_block = self.new_block()
        self.loop_body(body, enter_from, enter_label, _LoopTargets(step_block.id, after.id, "next"),
                       step_block.id, "next")
        self.cur = step_block
        if step is not None:
            self.statement(step)
        self.jump(header.id, "back")
        self.cur = after

    def s_doWhile(self, s):
        body, cond = s.kids
        start = self.open_header()
        test = self.new_block()
        after = self.new_block()
        self.loops.append(_LoopTargets(test.id, after.id, "next"))
        self.statements(body.kids)
        self.loops.pop()
        self.jump(test.id, "next")
        self.cur = test
        self.instr_after_calls(s, "test", cond, expr=cond)
        self.flow.add_edge(self.cur.id, start.id, "true")
        self.flow.add_edge(self.cur.id, after.id, "false")
        self.cur = after

    def s_switch(self, s):
        """A test on the selector with an edge to each case body ("true", the default's
        "false") and, without a default, a "false" edge to after the switch. With
        fallThrough (C) a body's end flows into the next body and `exit` leaves the switch;
        without (Fortran) every body ends after the switch and `exit` is the loop's."""
        selector, cases, fall_through = s.kids
        self.instr_after_calls(s, "test", selector, expr=selector)
        test = self.cur
        after = self.new_block()
        bodies = [self.new_block() for _ in cases]
        for case, body in zip(cases, bodies):
            self.flow.add_edge(test.id, body.id, "true" if case.values else "false")
        if all(case.values for case in cases):
            self.flow.add_edge(test.id, after.id, "false")
        if fall_through:
            outer = self.loops[-1] if self.loops else None
            self.loops.append(_LoopTargets(outer.cont if outer else None, after.id,
                                           outer.cont_label if outer else "next"))
        for k, (case, body) in enumerate(zip(cases, bodies)):
            self.cur = body
            self.statements(case.body.kids)
            falls_into = bodies[k + 1] if fall_through and k + 1 < len(bodies) else after
            self.jump(falls_into.id, "next")
        if fall_through:
            self.loops.pop()
        self.cur = after

    def loop_body(self, body: Node, enter_from: int, enter_label: str, targets: _LoopTargets,
                  end_target: int, end_label: str) -> None:
        """The body of a loop: entered from `enter_from`, falling through to `end_target`."""
        self.cur = self.flow.blocks[enter_from]
        self.open_block(enter_label)
        self.loops.append(targets)
        self.statements(body.kids)
        self.loops.pop()
        self.jump(end_target, end_label)

    # --- jumps --------------------------------------------------------------------------------------
    def s_goto(self, s):
        self.emit(Instr(s, "exit"))
        self.gotos.append((self.cur.id, s.kids[0], s))
        self.cur = None

    def s_computedGoto(self, s):
        """A test of the index with an edge to each label and one to the next statement (an
        index out of range)."""
        labels, index = s.kids
        self.instr_after_calls(s, "test", index, expr=index)
        self.gotos.extend((self.cur.id, label, s) for label in labels)
        self.open_block("false")

    def s_arithmeticIf(self, s):
        """A test of the expression with an edge to each of its three labels."""
        value, *labels = s.kids
        self.instr_after_calls(s, "test", value, expr=value)
        self.gotos.extend((self.cur.id, label, s) for label in labels)
        self.cur = None

    def innermost_loop(self, s: Node) -> _LoopTargets:
        if not self.loops or (s.op == "cycle" and self.loops[-1].cont is None):
            word = "EXIT/break" if s.op == "exit" else "CYCLE/continue"
            raise SourceError(f"{word} outside a loop", self.filename, s.line)
        return self.loops[-1]

    def s_exit(self, s):
        target = self.innermost_loop(s)
        self.emit(Instr(s, "exit"))
        self.jump(target.brk, "exit")

    def s_cycle(self, s):
        target = self.innermost_loop(s)
        self.emit(Instr(s, "exit"))
        self.jump(target.cont, target.cont_label)

    def s_return(self, s):
        self.instr_after_calls(s, "exit", s.kids)
        self.jump(self.flow.exit, "return")

    s_stop = s_return

    # --- the whole procedure -------------------------------------------------------------------------
    def build(self) -> FlowGraph:
        self.cur = self.flow.blocks[self.flow.entry]
        self.open_block()
        body = self.proc.node.kids[7]
        if body is not None:
            self.statements(body.kids)
        self.jump(self.flow.exit, "next")
        for src, label, s in self.gotos:
            if label not in self.labels:
                raise SourceError(f"GOTO to undefined label {label}", self.filename, s.line)
            self.flow.add_edge(src, self.labels[label], "goto")
        self.flow.loops = find_loops(self.flow)
        return self.flow


def build_flow_graph(proc, result_type: ResultType | None = None, filename: str = "<input>") -> FlowGraph:
    """The flow graph of `proc` (engine.program.Procedure, with its zone map set).

    result_type(callee name) gives the IL type of a called function's value (for the
    temporary zone of a split call); None or unknown names give an untyped temporary.
    Fills proc.call_results. Raises SourceError for jumps to undefined labels and
    EXIT/CYCLE outside loops.
    """
    return _Builder(proc, result_type, filename).build()


# --- natural loops ---------------------------------------------------------------------------------
def find_loops(flow: FlowGraph) -> list[Loop]:
    """Natural loops of the reachable part of the graph: one per header (back edges to the
    same header merged), in reverse post-order of their headers (a loop after its parent),
    with nesting depth and parent index."""
    graph, entry = flow.graph, flow.entry
    idom = nx.immediate_dominators(graph, entry)
    idom[entry] = entry  # networkx >= 3.5 leaves the start node out
    enter, leave = _dominator_intervals(idom, entry)

    def dominates(a, b):
        return enter[a] <= enter[b] and leave[b] <= leave[a]

    latches: dict[int, list[int]] = {}
    for u, v in graph.edges():
        if u in idom and dominates(v, u):
            latches.setdefault(v, []).append(u)

    bodies = []
    for header, tails in latches.items():
        body = {header}
        stack = list(tails)
        while stack:
            n = stack.pop()
            if n not in body:
                body.add(n)
                stack.extend(p for p in graph.predecessors(n) if p in idom)
        bodies.append((header, frozenset(body)))

    # Headers in reverse post-order: a loop's ancestors come before it (their headers dominate
    # its header), so its parent is the innermost loop seen so far that contains its header.
    order = {b: i for i, b in enumerate(flow.rpo())}
    bodies.sort(key=lambda hb: order[hb[0]])
    loops: list[Loop] = []
    innermost: dict[int, int] = {}
    for header, body in bodies:
        parent = innermost.get(header)
        depth = 1 if parent is None else loops[parent].depth + 1
        index = len(loops)
        loops.append(Loop(header, body, depth, parent))
        for b in body:
            innermost[b] = index
    return loops


def _dominator_intervals(idom: dict, root: int) -> tuple[dict, dict]:
    """Pre/post numbers of the dominator tree: a dominates b iff b's interval is inside a's."""
    children: dict[int, list[int]] = {}
    for n, d in idom.items():
        if n != d:
            children.setdefault(d, []).append(n)
    enter, leave = {}, {}
    clock = 0
    stack = [(root, False)]
    while stack:
        n, done = stack.pop()
        clock += 1
        if done:
            leave[n] = clock
            continue
        enter[n] = clock
        stack.append((n, True))
        stack.extend((c, False) for c in children.get(n, ()))
    return enter, leave
