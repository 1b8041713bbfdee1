"""SAVE (Fortran) and static (C) local variables of called procedures, in adjoint mode
(issue 16): such a local is a global variable whose scope is one procedure, as Tapenade
treats it.

Reconstruction (docs/rules.md#a-saved-locals): a joint call's P_b runs P's forward sweep again
from the snapshot, and a caller's backward sweep needs P's state as each call saw it, so P's
state must be something the caller can save and restore, and the primal P that the forward
sweeps run must share it with P_b. Before the analyses, each such local `s` of P becomes a
global variable: a variable of a new module `P_save` that P and its callers USE (Fortran), a
file-scope variable (C), under a name no other procedure uses. The analyses and the rules then
treat it as any global (rules/adjoint/globals.py): it belongs to in(C)/out(C) of the calls that
reach P, the snapshot of a checkpointed call saves it, TBR pushes it where needed, its adjoint
`sb` is global too, zero at the start, carried from one call's backward sweep to the previous
call's, and zeroed by the head before its backward sweep. The output defines this state itself
(the module `P_save`, C `static` definitions with the initial values) and runs copies
`Q_nodiff` of P and of the procedures that reach it where the differentiated code calls them:
the user's P keeps its own state, as P_D's derivative code keeps its own (the tangent's SAVE
derivative).

Only procedures at the top of a file are moved so (Fortran external procedures, C functions),
with their SAVE locals declared with a type, constant dimensions and no DATA; anything else
keeps its SAVE locals, and P_b is refused where it is called (called_statuses). As for any
global, the state P_b leaves is not the one P leaves (the forward sweep is sliced and the
snapshots restore what the calls changed): P_b is no replacement for P's run.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ...analyses.common import saved_locals
from ...engine.il import Node, called_names, substituted, walk, walk_statements
from ..naming import program_names


@dataclass
class Relocation:
    """What the output needs for the moved state: modules (Fortran `P_save` units), the C
    file-scope definitions by name, and the procedures whose primal copies it runs."""
    modules: list = field(default_factory=list)
    modules_of: dict = field(default_factory=dict)    # Fortran: procedure -> its module P_save
    definitions: dict = field(default_factory=dict)   # C: relocated name -> its `static` definition
    reaching: frozenset = frozenset()                 # procedures that reach moved state
    moved: dict = field(default_factory=dict)         # procedure -> (its unit, {local: global name})

    def warnings(self, nodiff: dict) -> list:
        """(unit, message) for the .msg file: where each procedure's state now lives."""
        out = []
        for name, (unit, renames) in sorted(self.moved.items()):
            kind, where = ("SAVE", f"module {self.modules_of[name]}") if name in self.modules_of \
                else ("static", "file scope")
            names = ", ".join(new if new == old else f"{old} as {new}" for old, new in sorted(renames.items()))
            out.append((unit, f"the {kind} locals of {name} ({names}) are global state of the adjoint code "
                              f"({where}), which calls {nodiff[name]} where the source calls {name}; {name} "
                              f"itself keeps its own state"))
        return out

    def __bool__(self):
        return bool(self.reaching)


def _may_keep_state(files) -> bool:
    """A cheap look before building a program: some declaration says SAVE, static, DATA or
    gives a Fortran initial value."""
    for f in files:
        fortran = f.ann.get("lang", "fortran") == "fortran"
        for unit in walk_statements(tuple(u for u in f.kids if isinstance(u, Node) and u.op == "procedure")):
            if unit.op == "varDecl" and ("save" in unit.kids[1] or "static" in unit.kids[1] or (
                    fortran and "parameter" not in unit.kids[1] and any(d.kids[2] is not None for d in unit.kids[2]))):
                return True
            if unit.op in ("data", "attrDecl") and (unit.op == "data" or unit.kids[0] == "save"):
                return True
    return False


def relocated(files) -> tuple:
    """(files with the SAVE/static locals of the called procedures moved to global storage,
    Relocation)."""
    if not _may_keep_state(files):
        return files, Relocation()
    from ...engine.program import build_program
    program = build_program(files)
    top = {u.kids[0]: u for f in files for u in f.kids if isinstance(u, Node) and u.op == "procedure"
           and u.kids[7] is not None}
    graph = program.callgraph
    moved = {}     # procedure name -> its saved local names
    for name, proc in program.procedures.items():
        saved = saved_locals(proc)
        if saved and proc.source_name in top and proc.name == proc.source_name and any(
                caller != name for caller in graph.predecessors(name)) and _movable(top[name], saved, proc):
            moved[name] = saved
    reaching = set(moved)
    while True:
        more = {caller for callee in reaching for caller in graph.predecessors(callee)} - reaching
        if not more:
            break
        reaching |= more
    if any(r not in top for r in reaching):  # a module or internal procedure would need its copy too
        return files, Relocation()
    taken = program_names(files)
    lang = "fortran" if files[0].ann.get("lang", "fortran") == "fortran" else "c"
    renames, uses = {}, {}
    relocation = Relocation(reaching=frozenset(reaching), modules_of=uses)
    for name, saved in moved.items():
        elsewhere = program_names(tuple(u for f in files for u in f.kids if u is not top[name]))
        renames[name] = {}
        for var in saved:
            new = var if var not in elsewhere and var not in top else _fresh(f"{name}_{var}", taken)
            taken.add(new)
            renames[name][var] = new
        if lang == "fortran":
            module = _fresh(f"{name}_save", taken)
            taken.add(module)
            uses[name] = module
    for f in files:
        kept = []
        for unit in f.kids:
            if isinstance(unit, Node) and unit.op == "procedure" and unit.kids[0] in moved:
                relocation.moved[unit.kids[0]] = (unit, renames[unit.kids[0]])
                unit, decls = _without_saved(unit, renames[unit.kids[0]], lang)
                if lang == "c":   # the state just before its procedure, at file scope
                    for decl in decls:
                        kept.append(decl)
                        for d in decl.kids[2]:
                            relocation.definitions[d.kids[0]] = decl.with_kids(
                                decl.kids[0], ("static",) + decl.kids[1], (d,))
                else:   # with P's USEs: the types and kinds of the declarations may come from them
                    used = tuple(d for d in unit.kids[6] if d.op == "use")
                    module = Node("module", (uses[unit.kids[0]], used + tuple(decls), ()), unit.ann)
                    relocation.modules.append(module)
                    kept.append(module)
            if lang == "fortran" and isinstance(unit, Node) and unit.op == "procedure" and unit.kids[0] in reaching:
                reached = _reached(graph, unit.kids[0])
                unit = _with_uses(unit, [uses[m] for m in moved if m in reached])
            kept.append(unit)
        out_file = f.with_kids(*kept)
        files = [out_file if g is f else g for g in files]
    return files, relocation


def _reached(graph, name: str) -> set:
    """name and the procedures it calls, directly or not."""
    seen, stack = {name}, [name]
    while stack:
        for callee in graph.successors(stack.pop()):
            if callee not in seen:
                seen.add(callee)
                stack.append(callee)
    return seen


def _fresh(base: str, taken: set) -> str:
    name, k = base, 0
    while name in taken:
        name, k = f"{base}{k}", k + 1
    return name


def _movable(unit: Node, saved: list, proc) -> bool:
    """Each saved local has one declaration (C: a static one in the body), with a type,
    constant dimensions and initial value, no pointer, allocatable nor local type, no other
    attribute statement than SAVE naming it (DIMENSION), DATA only of whole saved variables
    with constant values, and there is no EQUIVALENCE."""
    c = proc.lang != "fortran"
    decls = list(walk_statements(unit.kids[7])) if c else list(unit.kids[6])
    for d in decls:
        if d.op == "equivalence" or d.op == "attrDecl" and d.kids[0] != "save" \
                and any(x.kids[0] in saved for x in d.kids[1]):
            return False
        if d.op == "data" and not (all(o.op == "ident" and o.kids[0] in saved for o in d.kids[0])
                                   and not any(n.op == "ident" for n in walk(d.kids[1]))):
            return False
    local_types = {d.kids[0] for d in decls if d.op == "typeDef"}
    for var in saved:
        typed = [decl for decl in decls if decl.op == "varDecl" for d in decl.kids[2] if d.kids[0] == var]
        if len(typed) != 1 or (c and "static" not in typed[0].kids[1]) \
                or {"pointer", "allocatable", "target"} & set(typed[0].kids[1]):
            return False
        typ, found = typed[0].kids[0], next(d for d in typed[0].kids[2] if d.kids[0] == var)
        # what the declaration reads must mean the same at file scope or in P_save (P's USEs)
        if found.kids[3] or any(n.op == "ident" for n in walk((typ, found.kids[1] or (), found.kids[2] or ()))) \
                or any(n.op == "typeRef" and n.kids[0] in local_types for n in walk(typ)):
            return False
    return True


def _without_saved(unit: Node, renames: dict, lang: str) -> tuple:
    """(the procedure without the declarations of its saved locals, those declarations renamed
    and made global: Fortran `save` kept and their DATA statements after them, C `static`
    dropped). A SAVE statement loses their names (a bare one goes: they were all its locals)."""
    moved, data = [], []

    def strip(decl: Node):
        if decl.op == "data" and all(o.kids[0] in renames for o in decl.kids[0]):
            data.append(decl)
            return None
        if decl.op == "attrDecl" and decl.kids[0] == "save":   # a bare SAVE: every local moved
            rest = tuple(d for d in decl.kids[1] if d.kids[0] not in renames)
            return decl.with_kids("save", rest) if rest else None
        if decl.op != "varDecl":
            return decl
        here = tuple(d for d in decl.kids[2] if d.kids[0] in renames)
        if not here:
            return decl
        attrs = tuple(a for a in decl.kids[1] if a != "static")
        moved.append(decl.with_kids(decl.kids[0], attrs, tuple(d.with_kids(renames[d.kids[0]], *d.kids[1:])
                                                                for d in here)))
        rest = tuple(d for d in decl.kids[2] if d.kids[0] not in renames)
        return decl.with_kids(decl.kids[0], decl.kids[1], rest) if rest else None

    values = {old: Node("ident", (new,)) for old, new in renames.items() if new != old}
    if lang == "fortran":
        decls = tuple(d for d in (strip(x) for x in unit.kids[6]) if d is not None)
        body = unit.kids[7]
    else:
        decls = unit.kids[6]
        body = _stripped_body(unit.kids[7], strip)
    unit = unit.with_kids(*unit.kids[:6], substituted(decls, values), substituted(body, values), *unit.kids[8:])
    return unit, moved + list(substituted(tuple(data), values))


def _stripped_body(node, strip):
    """C: the body without the static declarations (strip returns None for a removed one)."""
    if isinstance(node, tuple):
        out = []
        for k in node:
            k = strip(k) if isinstance(k, Node) and k.op == "varDecl" else _stripped_body(k, strip)
            if k is not None:
                out.append(k)
        return tuple(out)
    if not isinstance(node, Node) or node.op in ("varDecl",):
        return node
    kids = tuple(_stripped_body(k, strip) if isinstance(k, (Node, tuple)) else k for k in node.kids)
    if node.op == "block":
        kids = tuple(k for k in (strip(k) if isinstance(k, Node) and k.op == "varDecl" else k for k in kids)
                     if k is not None)
    return node.with_kids(*kids)


def _with_uses(unit: Node, modules: list) -> Node:
    """`use P_save` first in the declarations: the procedure names the state of P."""
    if not modules:
        return unit
    uses = tuple(Node("use", (m, None)) for m in modules)
    return unit.with_kids(*unit.kids[:6], uses + unit.kids[6], *unit.kids[7:])


# --- the output ---------------------------------------------------------------------------------
def renamed_calls(node, names: dict, result: str | None = None):
    """node with every call of a procedure in `names` calling names[it] (the copy Q_nodiff),
    and its other uses by name too: a Fortran `integer tick; external tick`, the result
    variable of a function without RESULT clause in its copy. `result`: the Fortran function
    whose derivative node is, whose name there is its result variable (kept)."""
    if not names or not isinstance(node, Node):
        return node
    kids = tuple(renamed_calls(k, names, result) if isinstance(k, Node)
                 else tuple(renamed_calls(x, names, result) for x in k) if isinstance(k, tuple) else k
                 for k in node.kids)
    if node.kids and node.kids[0] in names and (node.op == "call" or node.op in ("ident", "declarator")
                                                and node.kids[0] != result):
        kids = (names[node.kids[0]],) + kids[1:]
    return node if all(a is b for a, b in zip(kids, node.kids)) else node.with_kids(*kids)


def primal_copies(units, program, names: dict, lang: str) -> list:
    """The copies Q_nodiff of the primal procedures that reach moved state and that `units`
    call, directly or through other copies (C: static, each file's own)."""
    copies = {copy: original for original, copy in names.items()}
    out, seen, wanted = [], set(), list(units)
    while wanted:
        for name in sorted(called_names(wanted.pop()) & copies.keys() - seen):
            seen.add(name)
            node = renamed_calls(program.procedure(copies[name]).node, names).replace(name=name)
            if lang == "c" and "static" not in node.kids[5]:
                node = node.replace(attrs=("static",) + tuple(node.kids[5]))
            out.append(node)
            wanted.append(node)
    if lang == "c":   # their prototypes first: they call each other in any order
        out = [node.replace(body=None) for node in out] + out
    return out


def with_definitions(units, relocation: Relocation) -> list:
    """C: `extern double s;` (c_units' declaration of a file-scope variable) of a moved local
    becomes its definition, `static` with its initial value: the output holds the state."""
    out = []
    for u in units:
        if isinstance(u, Node) and u.op == "varDecl" and "extern" in u.kids[1]:
            moved = [d for d in u.kids[2] if d.kids[0] in relocation.definitions]
            rest = tuple(d for d in u.kids[2] if d.kids[0] not in relocation.definitions)
            out.extend(relocation.definitions[d.kids[0]] for d in moved)
            if rest:
                out.append(u.with_kids(u.kids[0], u.kids[1], rest))
            continue
        out.append(u)
    return out
