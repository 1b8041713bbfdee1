"""The call graph and its call sites (paper 5.1, fig. 16).

Three jobs:
- `Resolver`: which program procedure a called name denotes from a given procedure
  (Fortran: internal procedures of the procedure and its hosts, its module, USEd modules,
  then global procedures; C: global functions). Unknown names are external procedures.
- `CallSite`: one call instruction, and the translation of zone sets and dependency
  relations between the caller's zones and the callee's zones through the actual/formal
  argument correspondence.
- `build_call_graph`: the networkx graph caller -> callee with the sites on each edge
  (a CUDA kernel launch is a call of the kernel with the launch's arguments), and the
  questions asked of it: `components_bottom_up` (the solver's order) and `callees`.

Argument passing: Fortran passes references, so a formal stands for the actual's memory in
both directions; C passes values, so a formal's own zones receive the actual's value only
(read side), while what a C pointer formal points to (its pointee zones) is the caller's
memory in both directions. An expression actual (not a reference) only passes a value.
"""
from __future__ import annotations

from dataclasses import dataclass

import networkx as nx

from .bitsets import Relation, bit, zones_of
from .errors import SourceError
from .il import Node, mk
from .zones import RefZones

REFERENCE_OPS = frozenset(("ident", "arrayAccess", "fieldAccess", "deref"))


# --- name resolution ----------------------------------------------------------------------------
class Resolver:
    """Which program procedure a called name denotes from a procedure, by the symbol tables
    (engine.symbols): the procedure symbol the name finds from the caller's scope (internal
    procedures of the caller and its hosts, its module, USEd modules, the file level). A name
    declared locally as EXTERNAL or only typed (F77 `DOUBLE PRECISION F`) is the global
    procedure of that name when the program has one; a dummy procedure is unknown."""

    def __init__(self, procedures: dict):
        self.by_node = {id(p.node): p for p in procedures.values()}
        self.globals = {p.source_name: p for p in procedures.values()
                        if p.host is None and "." not in p.name}

    def resolve(self, proc, name: str):
        """The Procedure `name` denotes when called from `proc`, or None (external/unknown)."""
        if name in proc.formals:
            return None
        sym = proc.scope.lookup(name) if proc.scope is not None else None
        if sym is not None and sym.kind == "procedure" and id(sym.node) in self.by_node:
            return self.by_node[id(sym.node)]
        return self.globals.get(name)

    def result_type(self, proc, name: str) -> Node | None:
        """The type of the value of function `name` called from `proc`: the callee's result
        type, else the caller's declaration (or implicit type) of the name, else None."""
        callee = self.resolve(proc, name)
        if callee is not None:
            rtype = callee.node.kids[4]
            if rtype is None and callee.scope is not None:
                rtype = callee.scope.type_of(callee.node.kids[3] or callee.source_name)
            return rtype
        return proc.scope.type_of(name) if proc.scope is not None else None


# --- call sites ----------------------------------------------------------------------------------
@dataclass
class _Side:
    """The caller zones matching one callee zone: `reads` give it its value at entry, `writes`
    receive its value at exit (`total`: they are then entirely overwritten)."""
    reads: int = 0
    writes: int = 0
    total: bool = False


class CallSite:
    """One call of a program procedure, with the zone translations of paper 5.1.

    to_callee(s): caller zones -> callee zones (each actual argument's zones -> its formal's
        zones; global zones unchanged; the rest dropped).
    to_caller(s): callee zones -> caller zones (a formal -> every caller zone matching it:
        the memory of a reference actual, the zones an expression actual reads; the result
        zone -> the call's temporary; globals unchanged; callee locals dropped). Right for
        what the callee reads or uses, and a safe over-approximation of what it writes.
      to_caller(s, written=True): only the caller memory the callee's writes can reach (not
        expression actuals nor C by-value arguments): the precise may-write set.
      to_caller(s, must=True): only the caller zones certainly and entirely overwritten when
        all of s is (whole actuals, single pointer targets): the kill set.
    relation_to_caller(R): a callee summary relation -> the caller's relation for this call.
    """

    def __init__(self, instr, caller, callee, actuals, filename: str = "<input>"):
        self.instr, self.caller, self.callee, self.actuals = instr, caller, callee, tuple(actuals)
        self.filename = filename
        self.pairs = self.formal_actuals()
        self._sides: dict[int, _Side] | None = None

    def __repr__(self):
        return f"CallSite({self.caller.name} -> {self.callee.name} @{self.instr.line})"

    # --- the correspondence, computed on first use -----------------------------------------------
    @property
    def sides(self) -> dict[int, _Side]:
        if self._sides is None:
            self._sides = self._correspondence()
        return self._sides

    def formal_actuals(self) -> list[tuple[int, Node]]:
        """(formal position, actual expression) pairs: positional, then keyword arguments."""
        formals = self.callee.formals
        pairs = []
        for pos, actual in enumerate(self.actuals):
            if actual.op == "namedArg":
                name, actual = actual.kids
                if name not in formals:
                    raise SourceError(f"{self.callee.source_name} has no argument named {name}",
                                      self.filename, self.instr.line)
                pairs.append((formals.index(name), actual))
            elif pos < len(formals):
                pairs.append((pos, actual))
        return pairs

    def _correspondence(self) -> dict[int, _Side]:
        fz = self.callee.zones
        sides: dict[int, _Side] = {}
        argument = self._c_argument if self.callee.lang in ("c", "cuda") else self._fortran_argument
        for pos, actual in self.pairs:
            own, pointee = [], []
            for z in zones_of(fz.formal_zones[pos]):
                (pointee if fz.zones[z].kind == "pointee" else own).append(z)
            argument(sides, pos, actual, own, pointee)
        # several callee zones writing the same caller zone: each writes only part of it
        writers: dict[int, int] = {}
        for side in sides.values():
            for c in zones_of(side.writes):
                writers[c] = writers.get(c, 0) + 1
        for side in sides.values():
            if side.total and any(writers[c] > 1 for c in zones_of(side.writes)):
                side.total = False
        return sides

    def _fortran_argument(self, sides, pos, actual, own, pointee) -> None:
        """By reference: the formal is the actual's memory (a POINTER formal: the actual
        pointer itself, and what it points to); an expression actual passes a value."""
        if pointee:
            pointer = self._ref(actual, self.caller.zones.pointer_ref)
            if pointer is not None:
                self._pair(sides, own, pointer.zones, pointer.total, writes=True)
            own = pointee
        ref = self._ref(actual)
        if ref is not None:
            self._pair(sides, own, ref.zones, ref.total, writes=True)
        else:
            self._pair(sides, own, self._value(actual), False, writes=False)

    def _c_argument(self, sides, pos, actual, own, pointee) -> None:
        """By value: the formal's own zones get the actual's value; a pointer formal's pointee
        zones are the memory the actual points to; an array formal is the caller's array."""
        formal = self.callee.zones.vars.get(self.callee.formals[pos])
        if pointee and formal is not None and not formal.pointer:
            # a structure by value with pointer fields: each field's pointee is what the
            # actual's same field points to
            self._pair_pointer_fields(sides, formal, actual)
            pointee = []
        if pointee:
            target = actual.kids[0] if actual.op == "address" else mk("deref", actual)
            # a pointer to a structure with pointer fields (Matrix *m, m->data): what its
            # fields point to is what the same fields of the actual's target point to
            fields = [loc for loc in self.callee.zones.pts.get(formal.zone, ()) if loc.fields] \
                if formal is not None and formal.pointer and target.op in REFERENCE_OPS else []
            if len(fields) == 1:
                paired = self._pair_pointer_fields(sides, fields[0], target)
                pointee = [z for z in pointee if z not in paired]
            targets = self._ref(target)
            value = self._value(actual)
            if targets is not None:
                self._pair(sides, pointee, targets.zones, targets.total, writes=True)
                value &= ~targets.zones  # an array name passed as a pointer: only its address
            self._pair(sides, own, value, False, writes=False)
            return
        ref = self._c_array_actual(actual) if self._c_array(own, pos) else None
        if ref is not None:
            self._pair(sides, own, ref.zones, ref.total, writes=True)
        else:
            self._pair(sides, own, self._value(actual), False, writes=False)

    def _pair_pointer_fields(self, sides, structure, actual: Node) -> set:
        """Pair the pointees of the pointer fields of a callee structure with what the same
        fields of the caller's `actual` point to; the callee zones paired."""
        paired = set()
        for path, leaf in _pointer_fields(structure):
            field = actual
            for name in path:
                field = mk("fieldAccess", field, name)
            targets = self.caller.zones.targets(field)
            pointees = [z for loc in self.callee.zones.pts.get(leaf.zone, ()) for z in zones_of(loc.all)]
            self._pair(sides, pointees, targets, False, writes=True)
            paired.update(pointees)
        return paired

    def _value(self, actual: Node) -> int:
        """The caller zones holding the value an actual passes (the indices or pointers used
        to reach a reference are read by the call instruction itself, not passed)."""
        ref = self._ref(actual)
        return ref.zones if ref is not None else self.caller.zones.reads(actual, self.caller.call_results)

    def _c_array(self, own: list[int], pos: int) -> bool:
        """A C array formal `double a[]` is the caller's array itself, not a copy."""
        if len(own) != 1:
            return False
        zone = self.callee.zones.zones[own[0]]
        return zone.is_array and zone.name == self.callee.formals[pos]

    def _c_array_actual(self, actual: Node):
        """The caller memory a C array formal is: an array actual itself, or what a pointer
        actual (x, p, &x[1], x + 1) points to, never totally (its size is the callee's)."""
        ref = self._ref(actual)
        try:
            targets = self.caller.zones.targets(actual)
        except SourceError:
            return ref
        if not targets or (ref is not None and ref.zones == targets):
            return ref
        return RefZones(targets, False)

    def _ref(self, actual: Node, ref=None):
        """The caller memory an actual denotes (RefZones), None when it is not a reference."""
        if actual.op not in REFERENCE_OPS:
            return None
        try:
            return (ref or self.caller.zones.ref)(actual)
        except SourceError:
            return None  # e.g. a procedure name

    @staticmethod
    def _pair(sides, callee_zones: list[int], caller_set: int, total: bool, writes: bool) -> None:
        """Match a formal's zones with the actual's: one by one when they have the same number
        (fields of the same type, numbered in the same order), else each with all."""
        caller_zones = list(zones_of(caller_set))
        one_to_one = len(callee_zones) == len(caller_zones)
        for i, f in enumerate(callee_zones):
            s = sides.setdefault(f, _Side())
            cs = bit(caller_zones[i]) if one_to_one else caller_set
            s.reads |= cs
            if writes:
                s.writes |= cs
                s.total = total and one_to_one and cs != 0

    # --- translations ----------------------------------------------------------------------------
    # "global zones unchanged" means the callee's caller_globals_mask: a host's variables that
    # its internal procedures share are global zones, but to the host's callers they are its
    # formals (translated through the actuals) or its locals (dropped).
    def to_callee(self, s: int) -> int:
        out = s & self.callee.zones.caller_globals_mask
        for f, side in self.sides.items():
            if side.reads & s:
                out |= bit(f)
        if self.instr.result is not None and (s >> self.instr.result) & 1:
            out |= self.callee.zones.result_zones  # a function's value, received by the caller's temporary
        return out

    def to_caller(self, s: int, written: bool = False, must: bool = False) -> int:
        fz = self.callee.zones
        shared = fz.caller_globals_mask
        out = s & shared
        if s & fz.result_zones and self.instr.result is not None:
            out |= bit(self.instr.result)  # the caller's temporary holds the whole value (every component)
        sides = self.sides
        for f in zones_of(s & ~shared):
            side = sides.get(f)
            if side is None:
                continue
            if must:
                out |= side.writes if side.total else 0
            else:
                out |= side.writes if written else side.reads
        return out

    def relation_to_caller(self, rel: Relation) -> Relation:
        fz = self.callee.zones
        rows: dict[int, int] = {}
        for v2, deps in rel.rows.items():
            source = self.to_caller(deps) & ~self._result_bit()
            for c, total in self._written(v2, fz):
                rows[c] = rows.get(c, 0) | source | (0 if total else bit(c))
        return Relation(rows)

    def _result_bit(self) -> int:
        # the result's value before the call is meaningless: it is not a dependency
        return 0 if self.instr.result is None else bit(self.instr.result)

    def _written(self, v2: int, fz):
        """(caller zone, overwritten entirely?) for a callee zone written by the callee."""
        if (fz.caller_globals_mask >> v2) & 1:
            yield v2, True
            return
        if (fz.result_zones >> v2) & 1:
            if self.instr.result is not None:
                yield self.instr.result, True
            return
        side = self.sides.get(v2)
        if side is not None:
            for c in zones_of(side.writes):
                yield c, side.total


# --- the call graph -----------------------------------------------------------------------------
def build_call_graph(program, resolver: Resolver) -> None:
    """Set program.callgraph (edges caller -> callee with attribute "sites"), program.call_sites
    (id(instr) -> CallSite) and program.external_calls ((procedure, instr) for calls of
    procedures not in the program)."""
    graph = nx.DiGraph()
    graph.add_nodes_from(program.procedures)
    sites, external = {}, []
    for proc in program.procedures.values():
        for block in proc.flow.blocks.values():
            for instr in block.instrs:
                if instr.kind != "call":
                    continue
                name, actuals = instr.node.kids[0], instr.node.args  # a call or a kernel launch
                callee = resolver.resolve(proc, name)
                if callee is None:
                    external.append((proc, instr))
                    continue
                site = CallSite(instr, proc, callee, actuals, program.filenames.get(proc.name, "<input>"))
                sites[id(instr)] = site
                if graph.has_edge(proc.name, callee.name):
                    graph.edges[proc.name, callee.name]["sites"].append(site)
                else:
                    graph.add_edge(proc.name, callee.name, sites=[site])
    program.callgraph, program.call_sites, program.external_calls = graph, sites, external


def components_bottom_up(graph: nx.DiGraph, order: dict) -> list[list[str]]:
    """Strongly connected components, callees before callers. `order` (name -> source
    position) makes it deterministic: members sorted by it, and among the components whose
    callers are all placed, the one whose first member comes first in the source."""
    cond = nx.condensation(graph)
    members = {c: sorted(cond.nodes[c]["members"], key=order.__getitem__) for c in cond}
    top_down = nx.lexicographical_topological_sort(cond, key=lambda c: order[members[c][0]])
    return [members[c] for c in reversed(list(top_down))]


def callees(graph: nx.DiGraph, name: str) -> set[str]:
    """The procedures that `name` calls, directly or through others (itself left out, even
    when it is recursive)."""
    return nx.descendants(graph, name)


def _pointer_fields(loc, path=()):
    """(field path, pointer leaf Loc) of the pointer fields of a structure's Loc."""
    for name, sub in (loc.fields or {}).items():
        if sub.pointer:
            yield path + (name,), sub
        else:
            yield from _pointer_fields(sub, path + (name,))
