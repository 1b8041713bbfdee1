"""The one generic fixed-point solver of all data-flow analyses (paper 5.2 and 5.5).

An analysis is a *description* (`Analysis`): its direction on flow graphs, its lattice
(bottom value and meet), its boundary value at the entry (forward) or exit (backward) of a
procedure, a transfer function per instruction, and how it uses the call graph:

- "bottom-up": a procedure is summarised (`summarize`) after its flow graph is solved, and its
  callers read that summary in their transfer function at call sites (Dep, Diff-dep, in-out).
  Call-graph components are visited callees first; a recursive component is iterated until
  its summaries are stable, starting from `initial_summary`.
- "top-down": a procedure's boundary value comes from the context its callers give it
  (`call_context` at each call site, joined with `join_contexts`); heads get their context
  from the caller of `solve`. Components are visited callers first; a recursive component is
  iterated until its contexts are stable (activity, diff-liveness, TBR, adjoint-out).

Inside a flow graph the solver iterates a worklist of basic blocks, in reverse post-order for
forward analyses and post-order for backward ones, to the least fixed point. No analysis
writes its own iteration loop.
"""
from __future__ import annotations

import heapq
import random
from typing import Any

from .errors import SourceError

FORWARD, BACKWARD = "forward", "backward"
BOTTOM_UP, TOP_DOWN, INTRA = "bottom-up", "top-down", "intraprocedural"


class Analysis:
    """Base class of analysis descriptions; subclasses override what they need.

    The solver sets `self.summaries` (procedure name -> summary) before a bottom-up run, so that
    `transfer` can read a callee's summary with `self.summary_of(callee)`.
    """

    name = "analysis"
    direction = FORWARD
    call_order = INTRA

    def bottom(self, proc):
        raise NotImplementedError

    def meet(self, a, b):
        raise NotImplementedError

    def boundary(self, proc, context):
        """Value at the entry (forward) or exit (backward) of `proc`."""
        raise NotImplementedError

    def transfer(self, instr, value, proc):
        """Value after `instr` from the value before it (forward), or before from after (backward)."""
        raise NotImplementedError

    # bottom-up analyses ---------------------------------------------------------------
    def summarize(self, proc, result: "FlowResult"):
        return None

    def initial_summary(self, proc):
        return None

    def summary_of(self, proc):
        s = self.summaries.get(proc.name)
        return self.initial_summary(proc) if s is None else s

    # top-down analyses ----------------------------------------------------------------
    def call_context(self, site, before, after):
        """The context this call site gives its callee, from the values around the call."""
        return None

    def join_contexts(self, a, b):
        return self.meet(a, b)

    def initial_context(self, proc):
        """Context of a procedure no analysed caller reaches."""
        return None


class FlowResult:
    """The solved values of one procedure: at block starts and ends (execution order), and
    before/after every instruction (recomputed on demand from the block values)."""

    def __init__(self, analysis: Analysis, proc, block_in: dict, block_out: dict, boundary):
        self.analysis, self.proc = analysis, proc
        self.block_in, self.block_out = block_in, block_out
        self.boundary = boundary
        self._around: dict[int, tuple] | None = None

    @property
    def at_entry(self):
        return self.block_in[self.proc.flow.entry] if self.analysis.direction == FORWARD \
            else self.block_out[self.proc.flow.entry]

    @property
    def at_exit(self):
        return self.block_in[self.proc.flow.exit] if self.analysis.direction == FORWARD \
            else self.block_out[self.proc.flow.exit]

    def _compute_around(self):
        around = {}
        transfer, proc = self.analysis.transfer, self.proc
        for b, block in self.proc.flow.blocks.items():
            if self.analysis.direction == FORWARD:
                v = self.block_in[b]
                for instr in block.instrs:
                    after = transfer(instr, v, proc)
                    around[id(instr)] = (v, after)
                    v = after
            else:
                v = self.block_out[b]
                for instr in reversed(block.instrs):
                    before = transfer(instr, v, proc)
                    around[id(instr)] = (before, v)
                    v = before
        self._around = around

    def before(self, instr):
        """Info⁻(I): the value immediately before the instruction."""
        if self._around is None:
            self._compute_around()
        return self._around[id(instr)][0]

    def after(self, instr):
        """Info⁺(I): the value immediately after the instruction."""
        if self._around is None:
            self._compute_around()
        return self._around[id(instr)][1]


class Solution:
    """All the results of one analysis over a program."""

    def __init__(self, analysis: Analysis):
        self.analysis = analysis
        self.results: dict[str, FlowResult] = {}
        self.summaries: dict[str, Any] = {}
        self.contexts: dict[str, Any] = {}
        self.flow_iterations = 0  # block visits, for benchmarks

    def __getitem__(self, proc_name) -> FlowResult:
        return self.results[proc_name]


def _block_order(flow, direction: str, order: str, rng: random.Random | None) -> list[int]:
    blocks = flow.rpo() if direction == FORWARD else flow.po()
    if order == "good":
        return blocks
    if order == "reversed":
        return list(reversed(blocks))
    if order == "random":
        blocks = list(blocks)
        rng.shuffle(blocks)
        return blocks
    raise ValueError(f"unknown block order {order!r}")


def solve_flow(analysis: Analysis, proc, boundary, order: str = "good", rng=None,
               counter: list | None = None) -> FlowResult:
    """Solve one procedure's flow graph to the fixed point, from `boundary`."""
    flow = proc.flow
    forward = analysis.direction == FORWARD
    transfer, meet = analysis.transfer, analysis.meet
    bottom = analysis.bottom(proc)
    blocks = flow.blocks
    start = flow.entry if forward else flow.exit
    # where values come from, and who must be revisited (networkx's neighbour iterators: its
    # `pred[b]` / `succ[b]` views cost an object per look-up in this hot loop)
    sources = flow.graph.predecessors if forward else flow.graph.successors
    targets = flow.graph.successors if forward else flow.graph.predecessors
    priority = {b: i for i, b in enumerate(_block_order(flow, analysis.direction, order, rng))}
    # "incoming" is the value at the block side values enter from; "outgoing" the other side
    incoming = {b: bottom for b in blocks}
    outgoing = {b: bottom for b in blocks}
    worklist = [(p, b) for b, p in priority.items()]
    heapq.heapify(worklist)
    queued = set(blocks)
    visits = 0
    while worklist:
        _, b = heapq.heappop(worklist)
        queued.discard(b)
        visits += 1
        value = boundary if b == start else bottom
        for s in sources(b):
            value = meet(value, outgoing[s])
        incoming[b] = value
        value = _through_block(transfer, blocks[b].instrs, value, proc, forward)
        # every block starts in the worklist, so a block is re-queued only when a value it
        # reads has changed
        if value != outgoing[b]:
            outgoing[b] = value
            for t in targets(b):
                if t not in queued:
                    queued.add(t)
                    heapq.heappush(worklist, (priority[t], t))
    if counter is not None:
        counter[0] += visits
    if forward:
        return FlowResult(analysis, proc, incoming, outgoing, boundary)
    return FlowResult(analysis, proc, outgoing, incoming, boundary)


def _through_block(transfer, instrs, value, proc, forward: bool):
    """Apply the transfer functions of a block's instructions in the analysis' direction.
    An input error found while looking at an instruction gets that instruction's line."""
    instr = None
    try:
        for instr in (instrs if forward else reversed(instrs)):
            value = transfer(instr, value, proc)
    except SourceError as e:  # not `with at_line(...)` per instruction: this is the hot loop
        if e.line is None and instr is not None:
            e.line = instr.line
        raise
    return value


def solve(program, analysis: Analysis, head_contexts: dict | None = None, order: str = "good",
          seed: int = 0) -> Solution:
    """Run `analysis` over every procedure of `program` to the global fixed point.

    head_contexts: for top-down analyses, procedure name -> context given by the user (e.g.
    the independents of a head); other procedures get contexts from their callers.
    order: "good" (reverse post-order / post-order), or "reversed" / "random" (for tests that
    check that the fixed point does not depend on the visiting order).
    """
    rng = random.Random(seed)
    solution = Solution(analysis)
    analysis.summaries = solution.summaries
    counter = [0]
    components = program.bottom_up() if analysis.call_order != TOP_DOWN else program.top_down()
    if analysis.call_order == TOP_DOWN:
        _solve_top_down(program, analysis, solution, components, head_contexts or {}, order, rng, counter)
    else:
        _solve_bottom_up(program, analysis, solution, components, order, rng, counter)
    solution.flow_iterations = counter[0]
    return solution


def _is_recursive(program, component) -> bool:
    return len(component) > 1 or program.callgraph.has_edge(component[0], component[0])


def _solve_bottom_up(program, analysis, solution, components, order, rng, counter):
    for component in components:
        recursive = _is_recursive(program, component)
        while True:
            changed = False
            for name in component:
                proc = program.procedures[name]
                result = solve_flow(analysis, proc, analysis.boundary(proc, None), order, rng, counter)
                solution.results[name] = result
                summary = analysis.summarize(proc, result)
                if summary != solution.summaries.get(name):
                    changed = True
                solution.summaries[name] = summary
            if not (recursive and changed):
                break


def _solve_top_down(program, analysis, solution, components, head_contexts, order, rng, counter):
    contexts = solution.contexts
    contexts.update(head_contexts)
    for component in components:
        members = set(component)
        recursive = _is_recursive(program, component)
        while True:
            changed = False
            for name in component:
                proc = program.procedures[name]
                if contexts.get(name) is None:
                    contexts[name] = analysis.initial_context(proc)
                result = solve_flow(analysis, proc, analysis.boundary(proc, contexts[name]), order, rng, counter)
                solution.results[name] = result
                for site in _sites_in(program, proc):
                    contribution = analysis.call_context(site, result.before(site.instr), result.after(site.instr))
                    callee = site.callee.name
                    old = contexts.get(callee)
                    new = contribution if old is None else analysis.join_contexts(old, contribution)
                    if new != old:
                        contexts[callee] = new
                        changed |= callee in members
            if not (recursive and changed):
                break


def _sites_in(program, proc):
    for instr in proc.flow.instructions():
        if instr.kind == "call":
            site = program.call_sites.get(id(instr))
            if site is not None:
                yield site


def is_fixed_point(program, solution: Solution) -> list[str]:
    """Re-apply every transfer function and meet of a solved analysis; return the places
    where a value would change (empty when the solution is a fixed point)."""
    analysis = solution.analysis
    problems = []
    for name, result in solution.results.items():
        proc = program.procedures[name]
        flow = proc.flow
        forward = analysis.direction == FORWARD
        start = flow.entry if forward else flow.exit
        sources = flow.graph.predecessors if forward else flow.graph.successors
        side_in = result.block_in if forward else result.block_out
        side_out = result.block_out if forward else result.block_in
        for b, block in flow.blocks.items():
            value = result.boundary if b == start else analysis.bottom(proc)
            for s in sources(b):
                value = analysis.meet(value, side_out[s])
            if value != side_in[b]:
                problems.append(f"{name}: block {b} incoming value is not the meet of its neighbours")
            for instr in (block.instrs if forward else reversed(block.instrs)):
                value = analysis.transfer(instr, value, proc)
            if value != side_out[b]:
                problems.append(f"{name}: block {b} outgoing value is not the transfer of its incoming value")
    return problems
