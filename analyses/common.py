"""Facts about instructions shared by several analyses: what callers see of a procedure,
the arguments of a call, and (from engine.effects) the effect of a call to a procedure that
is not in the source."""
from __future__ import annotations

from ..engine.effects import external_call_effects, launch_configuration  # noqa: F401 (the analyses import them from here)
from ..engine.il import walk, walk_statements
from ..engine.solver import Analysis


def visible_zones(proc) -> int:
    """Zones a caller can see: the formals (fields and pointees included), the result, globals
    (not the procedure's own variables that its internal procedures share)."""
    zones = proc.zones
    visible = zones.caller_globals_mask
    for formal in zones.formal_zones:
        visible |= formal
    visible |= zones.result_zones
    return visible


def saved_zones(proc) -> int:
    """Zones of the procedure's own variables that keep their value between calls: Fortran
    SAVE (attribute, a bare SAVE statement, DATA) or an initial value, C static locals."""
    body = proc.node.kids[7]
    decls = proc.node.kids[6] + tuple(d for d in (walk_statements(body) if body is not None else ())
                                      if d.op == "varDecl")
    bare_save = proc.lang == "fortran" and any(d.op == "attrDecl" and d.kids[0] == "save" and not d.kids[1]
                                               for d in decls)
    data = {n.kids[0] for d in decls if d.op == "data" for n in _walk(d.kids[0]) if n.op == "ident"}
    zones = 0
    for name, loc in proc.zones.vars.items():
        sym = proc.scope.symbols.get(name)
        if sym is None or sym.kind != "variable" or sym.formal is not None or sym.common is not None:
            continue
        if ("save" in sym.attrs or "static" in sym.attrs or name in data
                or (proc.lang == "fortran" and (sym.init is not None or bare_save))):
            zones |= loc.all
    return zones


def saved_locals(proc) -> list:
    """The names of the procedure's own variables that keep their value between calls
    (saved_zones), sorted."""
    zones = saved_zones(proc) & ~proc.zones.result_zones   # a bare SAVE does not make the result one
    return sorted(name for name, loc in proc.zones.vars.items() if loc.all & zones)


def _walk(node):
    return walk(node) if node is not None else ()


def call_arguments(instr):
    """The actual argument expressions of a call instruction (a kernel launch's arguments
    too)."""
    node = instr.node
    return node.args if node.op in ("call", "intrinsic", "kernelLaunch") else ()


class ZoneSetAnalysis(Analysis):
    """The lattice of the may-analyses on sets of zones: bottom ∅, meet ∪, and a boundary
    value given by the context (a head's user-given set, or the callers' union)."""

    def bottom(self, proc):
        return 0

    def meet(self, a, b):
        return a | b

    def boundary(self, proc, context):
        return context or 0

    def initial_context(self, proc):
        return 0
