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
from .il import Node
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
    program = Program([files] if isinstance(files, Node) else files)
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
