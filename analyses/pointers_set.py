"""Must-be-set analysis of derivative pointers, over a differentiated procedure (the generated
IL, not the source): a check the tangent generator runs on what it wrote, so that no
derivative pointer is read, or read or written through, before it is set (issue 14: a local
`double *stated;` written through, never set).

Forward, intraprocedural, on the set of the procedure's local derivative pointers certainly
set, from ∅ at the entry (its arguments are no candidates: the caller sets them):

    Set⁺(I) = Set⁻(I) ∪ assigned(I)          at merges: intersection

assigned(I): `p = E` (malloc, calloc, another pointer, NULL), `p => T` and ALLOCATE(p),
a declaration `T *p = E`. Every other occurrence of p in what I evaluates is a use, and a use
of p ∉ Set⁻(I) is refused. Solved by the one solver (engine/solver.py) on the flow graph that
engine/flowgraph_builder.py builds of the differentiated procedure, so every jump (GOTO,
break, switch fall-through) is an edge like any other.
"""
from __future__ import annotations

from ..engine.errors import UnsupportedError
from ..engine.flowgraph_builder import build_flow_graph
from ..engine.il import Node, walk, walk_statements
from ..engine.solver import FORWARD, INTRA, Analysis, solve_flow
from .allocators import root_of

_SETTERS = ("assign", "pointerAssign", "allocate")


class PointersSet(Analysis):
    name = "derivative pointers set"
    direction = FORWARD
    call_order = INTRA

    def __init__(self, candidates: frozenset):
        self.candidates = candidates

    def bottom(self, proc):
        return None  # no path: every pointer set (the unit of the intersection)

    def meet(self, a, b):
        if a is None:
            return b
        if b is None:
            return a
        return a & b

    def boundary(self, proc, context):
        return frozenset()

    def transfer(self, instr, value, proc):
        if value is None:
            return None
        return value | (assigned(instr.node) & self.candidates)


def assigned(node: Node) -> frozenset:
    """The pointer variables a statement sets as a whole."""
    if node.op in _SETTERS and node.kids[0].op == "ident":
        return frozenset((node.kids[0].kids[0],))
    if node.op == "varDecl":
        return frozenset(d.kids[0] for d in node.kids[2] if d.kids[2] is not None)
    return frozenset()


def _evaluated(instr):
    """The parts of the IL an instruction evaluates (engine/flowgraph.py's kinds)."""
    node = instr.node
    if instr.kind == "test":
        return (instr.expr,)
    if instr.kind == "loopEntry":
        return node.kids[1:4]
    if instr.kind == "loop":
        return ()
    if node.op in _SETTERS and node.kids[0].op == "ident":
        return node.kids[1:]   # the pointer set is no use
    if node.op == "varDecl":
        return tuple(d.kids[2] for d in node.kids[2] if d.kids[2] is not None)
    return node.kids


def _names(parts) -> set:
    out, stack = set(), list(parts)
    while stack:
        x = stack.pop()
        if isinstance(x, tuple):
            stack.extend(x)
        elif isinstance(x, Node):
            if x.op == "ident":
                out.add(x.kids[0])
            stack.extend(x.kids)
    return out


class _Generated:
    """What the flow graph builder and the solver need of a procedure, for generated IL: its
    node and name; split calls get no zones (nothing here reads them)."""

    class _NoZones:
        @staticmethod
        def add_temp(name, typ):
            return 0

    def __init__(self, node: Node, filename: str):
        self.node, self.name = node, node.kids[0]
        self.zones, self.call_results = self._NoZones(), {}
        self.flow = build_flow_graph(self, filename=filename)


def check_pointers_set(proc: Node, candidates, filename: str) -> None:
    """Refuse (file:line, UnsupportedError) a differentiated procedure that may use one of
    `candidates`, its local derivative pointers, before setting it on some path."""
    candidates = frozenset(candidates)
    if not candidates or proc.kids[7] is None:
        return
    generated = _Generated(proc, filename)
    declared = frozenset().union(*(assigned(d) for d in proc.kids[6] if d.op == "varDecl"))  # set at the entry
    result = solve_flow(PointersSet(candidates), generated, declared & candidates)
    for instr in generated.flow.instructions():
        before = result.before(instr)
        if before is None:   # unreachable
            continue
        unset = sorted((_names(_evaluated(instr)) & candidates) - before)
        if unset:
            raise UnsupportedError(f"a derivative pointer ({unset[0]}) that may be used before it is set, in "
                                   f"{proc.kids[0]}, is not supported yet", filename, instr.line)


def check_pointer_fields_set(proc: Node, fields: dict, allocators, filename: str) -> None:
    """Refuse (file:line) a differentiated procedure that uses a pointer field of one of its
    local derivative structures (`fields`: name -> its pointer field names) that no statement
    of it sets, nor a call of one of `allocators` (analyses/allocators.py: mat_alloc_d(&m,
    &md) sets md.data) it is passed to: the primal's field was set by a procedure that gives
    the derivative no memory. Flow-insensitive: where it is set, the must-be-set order along
    paths is the primal's, which allocates the two together."""
    if not fields or proc.kids[7] is None:
        return
    set_here, used = set(), []
    for stmt in walk_statements(proc.kids[7]):
        if stmt.op == "block":
            continue
        if stmt.op in _SETTERS and _field_of(stmt.kids[0], fields):
            set_here.add(_field_of(stmt.kids[0], fields))
        for x in walk(tuple(k for k in stmt.kids if not (isinstance(k, Node) and k.op == "block"))):
            if isinstance(x, Node) and _field_of(x, fields):
                used.append((_field_of(x, fields), stmt))
    for call in walk(proc.kids[7]):   # calls are expressions to walk_statements
        if isinstance(call, Node) and call.op == "call" and call.kids[0] in allocators:
            set_here.update((name, f) for name in {root_of(a) for a in call.kids[1]} & fields.keys()
                            for f in fields[name])
    for (name, field), stmt in used:
        if (name, field) not in set_here:
            raise UnsupportedError(f"the derivative of the pointer field {field} of a structure whose memory a "
                                   f"called procedure allocates ({name}.{field}), in {proc.kids[0]}, is not supported "
                                   f"yet", filename, stmt.line)


def _field_of(ref, fields: dict):
    """(structure name, pointer field) when ref is `sd.f` or `sd[k].f` for f a pointer field of sd."""
    if not isinstance(ref, Node) or ref.op != "fieldAccess":
        return None
    base = ref.kids[0]
    while base.op == "arrayAccess":
        base = base.kids[0]
    if base.op == "ident" and ref.kids[1] in fields.get(base.kids[0], ()):
        return base.kids[0], ref.kids[1]
    return None
