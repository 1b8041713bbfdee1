"""The program as the analyses see it: procedures with their symbol tables, zones and flow
graphs, and the call graph between them (paper 5.1, fig. 16).

The contract the solver and the analyses rely on:

`build_program(files) -> Program` from one IL `file` node or a list of them. Order of work:
symbol tables (engine.symbols) -> one `Procedure` per procedure with a body (module and internal
procedures included) -> zone maps (engine.zones.build_zone_maps) -> flow graphs
(engine.flowgraph_builder) -> call graph and call sites (engine.callgraph).

Procedure: name (unique: "proc", "module.proc" or "host.inner"; the source name is `source_name`),
  node (IL procedure), lang, scope (engine.symbols.Scope), zones (engine.zones.ZoneMap),
  flow (engine.flowgraph.FlowGraph), formals (tuple of formal names), call_results
  (dict id(call expression node) -> temporary zone, for function calls split out of expressions).
Program: files, lang, procedures (dict name -> Procedure, in source order), callgraph
  (networkx.DiGraph on procedure names; edge attribute "sites": list of CallSite), call_sites
  (dict id(Instr) -> CallSite for every instruction of kind "call" whose callee is in the program),
  n_globals, global_zones (list of Zone), and:
    procedure(name_or_source_name) -> Procedure  (raises KeyError)
    bottom_up() -> list of lists of procedure names: the strongly connected components of the
        call graph, callees before callers (recursion = a component with several procedures
        or a self-loop)
    top_down() -> the same components, callers before callees
CallSite (engine.callgraph): instr, caller, callee (Procedure), and the zone translations
  to_callee(s) -> int, to_caller(s) -> int, relation_to_caller(R) -> Relation.

Statement ids: before anything else, `build_program` stamps the annotation `sid` (an int,
unique in the program) on every statement node — every node of an operator of
`engine.il.STATEMENT_OPS` (blocks, `case`s, C `varDecl` statements and comments included) found
in a statement position, i.e. not the `call`/`intrinsic` expressions inside expressions —
numbered in pre-order over the files in order. `Program.files`, the procedures' nodes and the
flow-graph instructions all carry the stamped trees; annotations take no part in IL equality.
`Program.statement(sid) -> (Procedure or None, node)` finds a statement back (None: a
statement outside any procedure body).

Additions beyond the interface: Program.filenames (procedure name -> source file),
Program.external_calls ((Procedure, Instr) for calls of procedures not in the files),
Program.root_scope; CallSite.to_caller(s, written=True) (only the caller memory the callee's
writes reach: not expression actuals nor C by-value arguments) and to_caller(s, must=True)
(only caller zones entirely overwritten: kill sets).
"""
from __future__ import annotations

from .callgraph import Resolver, build_call_graph, components_bottom_up
from .errors import SourceError
from .flowgraph_builder import build_flow_graph
from .il import EXPRESSION_OPS, OPS, STATEMENT_OPS, Node
from .symbols import build_scopes
from .zones import build_zone_maps


class Procedure:
    __slots__ = ("name", "source_name", "node", "lang", "scope", "zones", "flow", "formals", "call_results",
                 "host")

    def __init__(self, name, source_name, node, lang, scope, host=None):
        self.name, self.source_name, self.node, self.lang, self.scope = name, source_name, node, lang, scope
        self.host = host
        self.formals = tuple(node.kids[2])
        self.zones = None
        self.flow = None
        self.call_results: dict[int, int] = {}

    def __repr__(self):
        return f"Procedure({self.name})"


class Program:
    """All procedures of the analysed files, their zones and flow graphs, and the call graph."""

    def __init__(self, files):
        self.files = list(files)
        langs = {f.ann.get("lang") for f in self.files}
        self.lang = langs.pop() if len(langs) == 1 else "mixed"
        self.procedures: dict[str, Procedure] = {}
        self.filenames: dict[str, str] = {}  # procedure name -> its source file
        self.callgraph = None
        self.call_sites: dict = {}
        self.external_calls: list = []
        self.n_globals = 0
        self.global_zones: list = []
        self.root_scope = None  # engine.symbols root Scope (all files)
        self._statements: dict | None = None  # sid -> (Procedure | None, node), built on demand
        self._stamped_statements: dict | None = None  # sid -> (procedure node | None, node), when stamped here

    def procedure(self, name: str) -> Procedure:
        """The procedure of unique name `name`, or of source name `name` when only one
        procedure has it. Raises KeyError otherwise."""
        if name in self.procedures:
            return self.procedures[name]
        found = [p for p in self.procedures.values() if p.source_name == name]
        if len(found) != 1:
            why = "no procedure" if not found else f"{len(found)} procedures ({', '.join(p.name for p in found)})"
            raise KeyError(f"{why} named {name!r}")
        return found[0]

    def statement(self, sid: int):
        """(procedure, node) of the statement stamped `sid` (procedure None for a statement
        outside every procedure). Raises KeyError for an unknown sid."""
        if self._statements is None and self._stamped_statements is not None:
            # a statement belongs to the innermost procedure holding it, when that one has a body
            by_node = {id(proc.node): proc for proc in self.procedures.values()}
            self._statements = {sid: (None if holder is None else by_node.get(id(holder)), node)
                                for sid, (holder, node) in self._stamped_statements.items()}
        if self._statements is None:
            self._statements = {}
            for proc in self.procedures.values():
                _index_statements(proc.node, proc, self._statements)
            for file in self.files:
                _index_statements(file, None, self._statements)
        return self._statements[sid]

    def bottom_up(self) -> list[list[str]]:
        order = {name: i for i, name in enumerate(self.procedures)}
        return components_bottom_up(self.callgraph, order)

    def top_down(self) -> list[list[str]]:
        return list(reversed(self.bottom_up()))

    def __repr__(self):
        return f"Program({', '.join(self.procedures)})"


def collect_procedures(program: Program, scope_of: dict | None = None) -> None:
    """One Procedure per procedure with a body, in source order: global procedures ("p"),
    module procedures ("m.p") and internal procedures ("host.inner")."""
    scope_of = scope_of or {}

    def add(node: Node, name: str, host: Procedure | None, lang: str, filename: str) -> None:
        if node.kids[7] is None:  # a C prototype
            return
        if name in program.procedures:
            raise SourceError(f"procedure {node.kids[0]} is defined twice", filename, node.line)
        proc = Procedure(name, node.kids[0], node, lang, scope_of.get(id(node)), host)
        program.procedures[name] = proc
        program.filenames[name] = filename
        for inner in node.kids[8]:
            if inner.op == "procedure":
                add(inner, f"{name}.{inner.kids[0]}", proc, lang, filename)

    for file in program.files:
        lang, filename = file.ann.get("lang", "fortran"), file.ann.get("filename", "<input>")
        for unit in file.kids:
            if unit.op == "procedure":
                add(unit, unit.kids[0], None, lang, filename)
            elif unit.op == "module":
                for inner in unit.kids[2]:
                    if inner.op == "procedure":
                        add(inner, f"{unit.kids[0]}.{inner.kids[0]}", None, lang, filename)


def build_program(files) -> Program:
    """The analysable program of one IL `file` node or a list of them (order in the module
    docstring)."""
    files = [files] if isinstance(files, Node) else list(files)
    stamped, program_statements = _stamped(files)
    program = Program(stamped)
    program._stamped_statements = program_statements
    program.root_scope, scope_of = build_scopes(program.files)
    collect_procedures(program, scope_of)
    build_zone_maps(program)
    link_program(program)
    return program


def link_program(program: Program) -> None:
    """The steps after the zone maps: flow graphs, then the call graph."""
    resolver = Resolver(program.procedures)
    for proc in program.procedures.values():
        proc.flow = build_flow_graph(proc, lambda name, p=proc: resolver.result_type(p, name),
                                     program.filenames[proc.name])
    build_call_graph(program, resolver)


# ---------------------------------------------------------------------------
# Statement ids
# ---------------------------------------------------------------------------
_STATEMENT_KINDS = frozenset(("stmt", "block"))
_CONTAINER_KINDS = frozenset(("stmt", "block", "unit"))  # the child kinds that may hold statements


def _kid_kinds(op: str, n: int) -> tuple:
    """The base kind (stmt, block, unit, expr, ...) of each of the n children of an op."""
    kinds = _KID_KINDS.get((op, n))
    if kinds is None:
        kinds = _KID_KINDS[op, n] = tuple(_kid_kinds_of(op, n))
    return kinds


_KID_KINDS: dict = {}   # (op, number of children) -> _kid_kinds: asked once per node of the program


def _kid_kinds_of(op: str, n: int) -> list:
    spec = OPS.get(op)
    if spec is None:
        return ["any"] * n
    kinds = [k.rstrip("?*.") for _, k in spec.kids]
    if spec.variadic:
        return kinds[:-1] + [kinds[-1]] * (n - len(kinds) + 1)
    return kinds + ["any"] * (n - len(kinds))


def stamp_statement_ids(files: list) -> list:
    """The files with the annotation `sid` on every statement (module docstring), numbered
    0, 1, ... in pre-order over the files in order. Expression subtrees are kept as they are."""
    return _stamped(files)[0]


def _stamped(files: list) -> tuple[list, dict]:
    """(stamp_statement_ids(files), sid -> (the innermost procedure node holding the statement
    or None, the stamped statement)): Program.statement's table, found on the way.
    Iterative: an ELSE IF chain nests one `if` per branch."""
    counter = 0
    found = {}
    holders = []   # per open procedure: the (sid, statement) it holds, until its new node is known

    def open_frame(node: Node, statement_position: bool) -> list:
        nonlocal counter
        ann = node.ann
        sid = None
        if statement_position and node.op in STATEMENT_OPS:
            sid = counter
            ann = ann.set("sid", sid)
            counter += 1
        if node.op == "procedure":
            holders.append([])
        slots = []  # (kid index, element index or None, child node, statement position)
        for i, (kid, kind) in enumerate(zip(node.kids, _kid_kinds(node.op, len(node.kids)))):
            if kind not in _CONTAINER_KINDS:
                continue
            position = kind in _STATEMENT_KINDS
            if isinstance(kid, Node):
                slots.append((i, None, kid, position))
            elif isinstance(kid, tuple):
                slots.extend((i, j, k, position) for j, k in enumerate(kid) if isinstance(k, Node))
        return [node, ann, slots, [], 0, sid]

    def close_frame(frame) -> Node:
        done = _rebuilt(*frame[:4])
        if done.op == "procedure":
            for sid, statement in holders.pop():
                found[sid] = (done, statement)
        sid = frame[5]
        if sid is not None:
            if holders:
                holders[-1].append((sid, done))
            else:
                found[sid] = (None, done)
        return done

    out = []
    for file in files:
        stack = [open_frame(file, False)]
        while True:
            frame = stack[-1]
            if frame[4] < len(frame[2]):
                _, _, child, position = frame[2][frame[4]]
                frame[4] += 1
                stack.append(open_frame(child, position))
                continue
            done = close_frame(stack.pop())
            if not stack:
                out.append(done)
                break
            stack[-1][3].append(done)
    return out, found


def _rebuilt(node: Node, ann, slots: list, results: list) -> Node:
    """node with annotations `ann` and the new children `results` in its `slots` (itself
    when nothing changed)."""
    if ann is node.ann and all(new is old for new, (_, _, old, _) in zip(results, slots)):
        return node
    kids = [list(k) if isinstance(k, tuple) else k for k in node.kids]
    for new, (i, j, _, _) in zip(results, slots):
        if j is None:
            kids[i] = new
        else:
            kids[i][j] = new
    return Node(node.op, tuple(tuple(k) if isinstance(k, list) else k for k in kids), ann)


def _index_statements(node, proc, table: dict) -> None:
    """table[sid] = (proc, node) for the stamped statements under node not yet in table."""
    stack = [node]
    while stack:
        x = stack.pop()
        if isinstance(x, Node):
            if x.op == "procedure" and proc is not None and x is not node:
                continue  # an internal procedure: its statements are its own
            sid = x.ann.get("sid")
            if sid is not None and sid not in table:
                table[sid] = (proc, x)
            if x.op in EXPRESSION_OPS:
                continue  # no statement inside an expression
            stack.extend(x.kids)
        elif isinstance(x, tuple):
            stack.extend(x)
