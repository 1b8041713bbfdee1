"""A small directed graph and the four graph algorithms adspec needs.

Flow graphs (block ids) and the call graph (procedure names) are `DiGraph`s. This module
replaces networkx, whose import alone took 0.17 s, 40% of adspec's start-up; the part of its
interface adspec uses is kept (`add_edge(u, v, **attrs)`, `edges(data=True)`,
`edges[u, v]`, `succ` / `pred`, `successors`, `predecessors`, `has_edge`, `nodes`,
`reverse`), with the same orders: nodes in insertion order, each node's neighbours in the
order their edges were first added (an edge added again keeps its place, its attributes
updated).

- `dfs_postorder(graph, source)`: depth-first post-order from source, neighbours in order;
- `immediate_dominators(graph, start)`: node -> immediate dominator for the nodes reachable
  from start, start itself left out (Cooper, Harvey and Kennedy, "A Simple, Fast Dominance
  Algorithm");
- `descendants(graph, source)`: the set of nodes reachable from source, source left out
  even when a cycle leads back to it;
- `components_bottom_up(graph, key)`: strongly connected components, callees before callers.
"""
from __future__ import annotations

import heapq


class _EdgeView:
    """`graph.edges`: called, the edges in order; indexed by (u, v), that edge's attributes."""

    def __init__(self, succ: dict):
        self._succ = succ

    def __call__(self, data: bool = False):
        for u, targets in self._succ.items():
            for v, attrs in targets.items():
                yield (u, v, attrs) if data else (u, v)

    def __getitem__(self, edge):
        u, v = edge
        return self._succ[u][v]

    def __iter__(self):
        return self()


class DiGraph:
    def __init__(self):
        self.succ: dict = {}     # node -> {successor: edge attributes}
        self.pred: dict = {}     # node -> {predecessor: edge attributes}

    def add_node(self, n) -> None:
        if n not in self.succ:
            self.succ[n] = {}
            self.pred[n] = {}

    def add_nodes_from(self, nodes) -> None:
        for n in nodes:
            self.add_node(n)

    def add_edge(self, u, v, **attrs) -> None:
        self.add_node(u)
        self.add_node(v)
        data = self.succ[u].get(v)
        if data is None:
            data = self.succ[u][v] = self.pred[v][u] = {}
        data.update(attrs)

    def has_edge(self, u, v) -> bool:
        return u in self.succ and v in self.succ[u]

    def successors(self, n):
        return iter(self.succ[n])

    def predecessors(self, n):
        return iter(self.pred[n])

    @property
    def nodes(self):
        return self.succ.keys()

    @property
    def edges(self) -> _EdgeView:
        return _EdgeView(self.succ)

    def reverse(self, copy: bool = True) -> DiGraph:
        """The graph with every edge turned round (sharing this one's dicts when not `copy`)."""
        out = DiGraph()
        if copy:
            out.add_nodes_from(self.succ)
            for u, v, attrs in self.edges(data=True):
                out.add_edge(v, u, **attrs)
        else:
            out.succ, out.pred = self.pred, self.succ
        return out

    def __contains__(self, n) -> bool:
        return n in self.succ

    def __iter__(self):
        return iter(self.succ)

    def __len__(self) -> int:
        return len(self.succ)


def dfs_postorder(graph: DiGraph, source) -> list:
    """Nodes reachable from source in depth-first post-order (a loop, not recursion: flow
    graphs can be deep)."""
    succ = graph.succ
    order = []
    visited = {source}
    stack = [(source, iter(succ[source]))]
    while stack:
        node, children = stack[-1]
        for child in children:
            if child not in visited:
                visited.add(child)
                stack.append((child, iter(succ[child])))
                break
        else:
            stack.pop()
            order.append(node)
    return order


def immediate_dominators(graph: DiGraph, start) -> dict:
    order = dfs_postorder(graph, start)
    number = {n: i for i, n in enumerate(order)}      # post-order number: the dominator is higher
    idom = {start: start}
    pred = graph.pred

    def intersect(u, v):
        while u != v:
            while number[u] < number[v]:
                u = idom[u]
            while number[u] > number[v]:
                v = idom[v]
        return u

    rpo = order[-2::-1]                               # reverse post-order without start
    changed = True
    while changed:
        changed = False
        for n in rpo:
            new = None
            for p in pred[n]:
                if p in idom:
                    new = p if new is None else intersect(p, new)
            if idom.get(n) != new:
                idom[n] = new
                changed = True
    del idom[start]
    return idom


def descendants(graph: DiGraph, source) -> set:
    seen = {source}
    stack = [source]
    while stack:
        for v in graph.succ[stack.pop()]:
            if v not in seen:
                seen.add(v)
                stack.append(v)
    seen.discard(source)
    return seen


def _strong_components(graph: DiGraph) -> list[list]:
    """Tarjan's algorithm, with an explicit stack."""
    succ = graph.succ
    index: dict = {}
    low: dict = {}
    on_stack: set = set()
    stack: list = []
    components = []
    for root in succ:
        if root in index:
            continue
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        work = [(root, iter(succ[root]))]
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(succ[child])))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    components.append(component)
    return components


def components_bottom_up(graph: DiGraph, key) -> list[list]:
    """Strongly connected components, each sorted by `key`, callees before callers: the
    components are ordered callers first by Kahn's algorithm taking, among the components
    ready, the one whose first member has the smallest key; that order reversed."""
    components = [sorted(c, key=key) for c in _strong_components(graph)]
    of = {n: i for i, c in enumerate(components) for n in c}
    callees = [set() for _ in components]
    waiting = [0] * len(components)                   # callers not yet placed
    for u, v in graph.edges():
        cu, cv = of[u], of[v]
        if cu != cv and cv not in callees[cu]:
            callees[cu].add(cv)
            waiting[cv] += 1
    ready = [(key(c[0]), i) for i, c in enumerate(components) if not waiting[i]]
    heapq.heapify(ready)
    top_down = []
    while ready:
        _, i = heapq.heappop(ready)
        top_down.append(components[i])
        for j in callees[i]:
            waiting[j] -= 1
            if not waiting[j]:
                heapq.heappush(ready, (key(components[j][0]), j))
    return top_down[::-1]
