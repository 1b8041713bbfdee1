"""Where the derivatives of global variables live (paper 4.2: a derivative variable is declared
like its variable; DESIGN.md compatibility contract: Tapenade's names).

Activity is a whole-program fact: a global active in one procedure has its derivative in every
differentiated procedure that sees it, under one name (rules.naming.Namer serves the program).
- COMMON `/c/` → `/c_d/` declared next to `/c/` in each differentiated procedure
  (procedures.derivative_declarations mirrors the whole layout).
- A Fortran module `m` whose variables are active, or whose procedures are differentiated,
  gets a module `m_diff` that USEs `m` and holds the derivatives `vd` of its active variables
  and the differentiated module procedures; its default accessibility is PRIVATE and only
  what it adds is PUBLIC, so that `use m_diff` brings no name of `m` twice. A differentiated
  procedure that USEs `m` also USEs `m_diff` (docs/rules.md#t-proc explains why `m_diff`
  keeps `m`'s variables in `m` rather than copying them as Tapenade does).
- A C file-scope variable `double g;` used by the differentiated functions is declared in the
  output file as `extern double g;` (the original file defines it), and, when it is active,
  followed by the definition `double gd;` of its derivative, once.
"""
from __future__ import annotations

from ...engine.errors import UnsupportedError
from ...engine.il import Node, walk
from .procedures import derivative_declarations

GLOBAL_SCOPES = ("module", "file")


def global_owner(scope, name: str):
    """(the module or file scope that declares global variable `name` seen from scope, the
    name there), or (None, name) when `name` is no such global."""
    owner, remote = scope.owner_of(name)
    if owner is None or owner.kind not in GLOBAL_SCOPES:
        return None, name
    return owner, remote


def active_globals(facts, program) -> dict:
    """{module or file scope: the names there of its variables that have a derivative in some
    differentiated procedure}, each name once, in the order first met."""
    found: dict = {}
    for proc_name in facts.diff_procedures():
        scope = program.procedure(proc_name).scope
        for name in sorted(facts.diff_variables(proc_name)):
            sym = scope.lookup(name)
            if sym is None or sym.kind != "variable" or sym.common is not None:
                continue
            owner, remote = global_owner(scope, name)
            if owner is not None and remote not in found.setdefault(owner, []):
                found[owner].append(remote)
    return found


def module_derivative_declarations(module, active: list, var_name, derivative_type=None) -> tuple:
    """The declarations of the derivatives of the module's active variables (same type and
    dimensions, PUBLIC/PRIVATE dropped: m_diff decides what it exports)."""
    decls = module.node.kids[1]
    derived = derivative_declarations(decls, frozenset(active), var_name, derivative_type=derivative_type)
    out = []
    for decl in derived:
        if any(decl is d for d in decls):
            continue
        typ, attrs, declarators = decl.kids
        out.append(Node("varDecl", (typ, tuple(a for a in attrs if a not in ("public", "private", "protected")),
                                    declarators), decl.ann))
    return tuple(out)


def fortran_units(entries, ctx) -> list:
    """The units of the differentiated Fortran file: a module m_diff per module with active
    variables or differentiated procedures (source order), then the other differentiated
    procedures. entries: [(program Procedure, [its header comments and differentiated unit])]."""
    program, names = ctx.program, ctx.names
    active = {owner.name: vars_ for owner, vars_ in active_globals(ctx.facts, program).items()
              if owner.kind == "module"}
    contained: dict = {}
    outside = []
    for proc, units in entries:
        host = proc.scope.parent
        if host is not None and host.kind == "module":
            contained.setdefault(host.name, []).extend(units)
        else:
            outside.append(units)
    modules = program.root_scope.modules
    variables = {m: module_derivative_declarations(modules[m], vars_, names.var,
                                                   lambda typ, module=modules[m]: ctx.types.derivative_of(typ, module))
                 for m, vars_ in active.items()}  # first: they may use the T_diff of any module
    diff_modules = {m: names.module(m) for m in modules
                    if m in active or m in contained or ctx.types.definitions_of(modules[m])}
    out = []
    for module_name, diff_name in diff_modules.items():
        owner = modules[module_name]
        derivatives = ctx.types.definitions_of(owner) + variables.get(module_name, ())
        procedures = tuple(with_diff_uses(u, diff_modules, modules) for u in contained.get(module_name, []))
        exported = [decl.kids[0] if decl.op == "typeDef" else d.kids[0]
                    for decl in derivatives for d in (decl.kids[2] if decl.op == "varDecl" else (None,))]
        exported += [u.kids[0] for u in procedures if u.op == "procedure"]
        uses = (Node("use", (module_name, None)),) + diff_uses(owner.node.kids[1], diff_modules, modules)
        implicit = tuple(d for d in owner.node.kids[1] if isinstance(d, Node) and d.op == "implicit")
        decls = uses + implicit + (Node("attrDecl", ("private", ())),
                        Node("attrDecl", ("public", tuple(Node("declarator", (n, None, None, 0)) for n in exported))))
        out.append(Node("module", (diff_name, decls + derivatives, procedures), owner.node.ann))
    for units in outside:
        out.extend(with_diff_uses(u, diff_modules, modules) for u in units)
    return out


def diff_uses(decls, diff_modules: dict, modules: dict) -> tuple:
    """`use m_diff` for each module m that decls USE, directly or through the modules they
    USE (m's entities, types included, may come through them), when m has an m_diff."""
    reached, stack = [], [d.kids[0] for d in decls if isinstance(d, Node) and d.op == "use"]
    while stack:
        name = stack.pop(0)
        if name in reached:
            continue
        reached.append(name)
        scope = modules.get(name)
        stack.extend(used for used, _, _ in (scope.uses if scope is not None else ()))
    return tuple(Node("use", (diff_modules[m], None)) for m in reached if m in diff_modules)


def with_diff_uses(unit: Node, diff_modules: dict, modules: dict) -> Node:
    """A differentiated procedure that USEs m also USEs m_diff (after its other USEs)."""
    if unit.op != "procedure":
        return unit
    decls = unit.kids[6]
    added = diff_uses(decls, diff_modules, modules)
    if not added:
        return unit
    last_use = max(i for i, d in enumerate(decls) if d.op == "use")
    return unit.with_kids(*unit.kids[:6], decls[:last_use + 1] + added + decls[last_use + 1:], *unit.kids[7:])


def c_units(units, ctx, originals=()) -> list:
    """The units of the differentiated C file: the derivative types (struct s_diff, T_diff) it
    uses, the file-scope variables the differentiated functions use, declared `extern` (the
    original file defines them), each active one followed by the definition of its derivative,
    then the differentiated functions (`originals`: the original functions they call, whose
    globals are declared too)."""
    active = {name for owner, vars_ in active_globals(ctx.facts, ctx.program).items() if owner.kind == "file"
              for name in vars_}
    used = {n.kids[0] for n in walk(tuple(units) + tuple(originals)) if n.op == "ident"}
    out = []
    for file in ctx.program.files:
        for decl in file.kids:
            if not isinstance(decl, Node) or decl.op != "varDecl" or "extern" in decl.kids[1]:
                continue
            typ, attrs, declarators = decl.kids
            kept = tuple(d.with_kids(d.kids[0], d.kids[1], None, d.kids[3]) for d in declarators if d.kids[0] in used)
            if not kept:
                continue
            if "static" in attrs:
                raise UnsupportedError(f"a static file-scope variable ({kept[0].kids[0]}) used by differentiated "
                                       f"code", ctx.filename, decl.line)
            extern = Node("varDecl", (typ, ("extern",) + attrs, kept), decl.ann)
            out.extend(derivative_declarations((extern,), frozenset(active), ctx.names.var,
                                               derivative_type=ctx.types.derivative_of))
    return ctx.types.definitions() + out + list(units)
