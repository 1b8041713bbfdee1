"""Flow graphs: one per procedure, of basic blocks of instructions (paper 5.1, fig. 16).

The contract the solver and the analyses rely on:

- `Instr`: one instruction of a basic block.
    node   the IL statement it stands for (assign, call, intrinsic, io, allocate, deallocate,
           pointerAssign, return, stop, nop, varDecl with initialisers, ...). For control
           instructions it is the IL statement whose control part it stands for: the `if`,
           `while`, `doWhile`, `for`, `switch`, `computedGoto` or `arithmeticIf` node for kind
           "test" (a switch tests its selector), the `do` node for kind "loop".
           For kind "call" split out of an expression it is the IL `call` expression node.
    kind   "plain"  a simple statement (assign, io, allocate, ...), including calls of
                    intrinsics;
           "call"   a call of a procedure: a `call` statement, a CUDA `kernelLaunch` (a call of
                    the kernel), or a function call split out of
                    an expression (then `result` is the temporary zone that receives the value
                    and the using instruction reads that zone where the call stood). A callee
                    outside the source has no CallSite (program.external_calls);
           "test"   the condition of if / while / doWhile / C for, or a switch selector (reads `expr`);
                    a switch test has a "true" edge to each case body, a "false" edge to
                    the default body or to after the switch; also the mask of a WHERE (node
                    the `where`; two tests, one before each arm, see flowgraph_builder) and
                    the control of a FORALL (node the `forall`, expr an arrayConstructor of
                    its ranges and mask); and the index of a computed GOTO or the expression
                    of an arithmetic IF ("goto" edges to their labels; a computed GOTO also
                    has a "false" edge to the next statement, for an index out of range);
           "loopEntry"  the entry of a Fortran DO, before its header: index = lo, and the trip
                    count fixed from lo, hi, step;
           "loop"   the header of a Fortran DO, at every trip: advances the index and tests the
                    trip count (reads and writes the index only);
           "exit"   a return/stop (control leaves the procedure), or jump statements kept for
                    display (goto, exit, cycle) with no data effect.
    expr   the expression read by a "test" (condition) — None otherwise.
    result the temporary zone receiving a split function call's value (kind "call"), else None.
    masked True for an instruction inside a WHERE or FORALL: it assigns some elements only, so
           its writes are may-writes (never kills; each written zone also keeps its old value).
    block  id of its basic block; index its position in the block; line its source line.
- `Block`: id, kind ("entry" | "exit" | "normal"), instrs (list of Instr). The entry and exit
  blocks are empty: analyses put their boundary values there.
- `FlowGraph`: proc (IL procedure node), name, graph (networkx.DiGraph on block ids; edge
  attribute "label": "next", "true", "false", "loop", "exit", "back", "goto", "return"),
  blocks (id -> Block), entry, exit, loops (list of `Loop`), and the methods below.
- `Loop`: a natural loop: header block id, body (frozenset of block ids, header included),
  depth (1 = outermost), parent (index in FlowGraph.loops or None).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import networkx as nx

from .il import Node, walk

INSTR_KINDS = ("plain", "call", "test", "loopEntry", "loop", "exit")


class Instr:
    __slots__ = ("node", "kind", "expr", "result", "block", "index", "line", "masked")

    def __init__(self, node: Node, kind: str, expr: Node | None = None, result: int | None = None,
                 line: int | None = None, masked: bool = False):
        assert kind in INSTR_KINDS, kind
        self.node, self.kind, self.expr, self.result = node, kind, expr, result
        self.masked = masked
        self.block: int = -1
        self.index: int = -1
        self.line = line if line is not None else node.ann.get("line")

    def __repr__(self):
        return f"Instr({self.kind} {self.node.op} @{self.line} b{self.block}.{self.index})"


@dataclass
class Block:
    id: int
    kind: str = "normal"
    instrs: list = field(default_factory=list)


@dataclass(frozen=True)
class Loop:
    header: int
    body: frozenset
    depth: int
    parent: int | None


class FlowGraph:
    def __init__(self, proc: Node, name: str):
        self.proc = proc
        self.name = name
        self.graph = nx.DiGraph()
        self.blocks: dict[int, Block] = {}
        self.entry = self.new_block("entry").id
        self.exit = self.new_block("exit").id
        self.loops: list[Loop] = []
        self._rpo: list[int] | None = None

    def new_block(self, kind: str = "normal") -> Block:
        b = Block(len(self.blocks), kind)
        self.blocks[b.id] = b
        self.graph.add_node(b.id)
        return b

    def add_edge(self, src: int, dst: int, label: str = "next") -> None:
        self.graph.add_edge(src, dst, label=label)
        self._rpo = None

    def preds(self, b: int):
        return self.graph.predecessors(b)

    def succs(self, b: int):
        return self.graph.successors(b)

    def rpo(self) -> list[int]:
        """Blocks in reverse post-order from the entry; blocks unreachable from the entry
        come last (they are still analysed, from their own boundary)."""
        if self._rpo is None:
            order = list(nx.dfs_postorder_nodes(self.graph, self.entry))[::-1]
            seen = set(order)
            order += [b for b in self.blocks if b not in seen]
            self._rpo = order
        return self._rpo

    def po(self) -> list[int]:
        """Post-order (the good order for backward analyses)."""
        return list(reversed(self.rpo()))

    def instructions(self):
        """Every instruction, blocks in reverse post-order."""
        for b in self.rpo():
            yield from self.blocks[b].instrs


def control_dependence(flow: FlowGraph) -> dict[int, list]:
    """For each control instruction (the last instruction of a block with several successors),
    the instructions that are control dependent on it (Ferrante, Ottenstein and Warren):
    block B depends on branch A -> S when B post-dominates S but not A."""
    reverse = flow.graph.reverse(copy=False)
    if flow.exit not in reverse:
        return {}
    ipdom = nx.immediate_dominators(reverse, flow.exit)
    regions: dict[int, list] = {}
    for a in flow.graph.nodes:
        succs = list(flow.graph.successors(a))
        block = flow.blocks[a]
        if len(succs) < 2 or not block.instrs or a not in ipdom:
            continue
        control = block.instrs[-1]
        stop = ipdom[a]
        controlled = []
        seen = set()
        for s in succs:
            b = s
            while b in ipdom and b != stop and b not in seen:
                seen.add(b)
                controlled.extend(flow.blocks[b].instrs)
                if ipdom[b] == b:
                    break
                b = ipdom[b]
        regions[id(control)] = controlled
    return regions


def switch_bodies(flow: FlowGraph) -> dict[int, list]:
    """For each switch test (by id), the instructions of the statements inside its cases,
    whether or not they depend on the test by post-dominance: a body that runs whatever the
    selector is (a SELECT CASE with only CASE DEFAULT, a C default that every case falls
    into) depends on none."""
    instrs = list(flow.instructions())
    tests = [i for i in instrs if i.kind == "test" and i.node.op == "switch"]
    if not tests:
        return {}
    by_node: dict[int, list] = {}
    for i in instrs:
        by_node.setdefault(id(i.node), []).append(i)
    return {id(test): [i for case in test.node.kids[1] for n in walk(case.kids[1]) for i in by_node.get(id(n), ())]
            for test in tests}
