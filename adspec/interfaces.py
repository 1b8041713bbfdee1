"""Fortran: explicit interfaces for the derivative procedures a caller calls.

A caller that declares a procedure `foo` by an interface block needs it for a reason:
gfortran cannot call a procedure with assumed-shape, optional, pointer or allocatable
dummies without an explicit interface. The derivative procedures of foo that the
differentiated caller calls (foo_d, foo_dv, foo_b...) have the same dummies plus their
derivatives, so the caller's interface block gets one interface body for each of them,
taken from its generated definition.
"""
from __future__ import annotations

from .engine.il import Node, called_names


def with_derivative_interfaces(units, derived_from: dict) -> list:
    """units: the generated Fortran units; derived_from: the name of each generated procedure
    -> the name of the original procedure it derives from."""
    generated = {p.kids[0]: p for p in _procedures(units)}
    return [_with_interfaces(u, generated, derived_from) for u in units]


def _procedures(units):
    for unit in units:
        if unit.op == "procedure":
            yield unit
            yield from _procedures(unit.kids[8] or ())
        elif unit.op == "module":
            yield from _procedures(unit.kids[2])


def _with_interfaces(unit: Node, generated: dict, derived_from: dict) -> Node:
    if unit.op == "module":
        return unit.with_kids(unit.kids[0], unit.kids[1],
                              tuple(_with_interfaces(u, generated, derived_from) for u in unit.kids[2]))
    if unit.op != "procedure":
        return unit
    name, kind, params, result, rtype, attrs, decls, body, contains = unit.kids
    declared = {p.kids[0] for d in decls if d.op == "interface" for p in d.kids[2] if p.op == "procedure"}
    # the walk of the body only when an interface block may need extending (most units have none)
    called = called_names(body) if body is not None and declared else set()
    wanted = {c for c in called if c in generated and c not in declared and derived_from.get(c) in declared}
    if wanted:
        decls = tuple(_extended(d, wanted, generated, derived_from) if d.op == "interface" else d
                      for d in _without_external(decls, wanted))
    contains = tuple(_with_interfaces(u, generated, derived_from) for u in contains or ())
    return unit.with_kids(name, kind, params, result, rtype, attrs, decls, body, contains)


def _extended(block: Node, wanted: set, generated: dict, derived_from: dict) -> Node:
    name, names, procs = block.kids
    extra = []
    for proc in procs:
        if proc.op == "procedure":
            extra += [interface_body(generated[d]) for d in sorted(wanted) if derived_from[d] == proc.kids[0]]
    return block.with_kids(name, names, procs + tuple(extra)) if extra else block


def _without_external(decls, names: set):
    """decls without the EXTERNAL declarations of names (an interface body declares them)."""
    for decl in decls:
        external = decl.op == "varDecl" and "external" in decl.kids[1] or \
            decl.op == "attrDecl" and decl.kids[0] == "external"
        if not external:
            yield decl
            continue
        kept = tuple(d for d in decl.kids[-1] if d.kids[0] not in names)
        if kept:
            yield decl.with_kids(*decl.kids[:-1], kept)


def interface_body(proc: Node) -> Node:
    """proc's header with the declarations of its dummies and result (and the USE, IMPLICIT
    and PARAMETER statements they may need), and no body."""
    name, kind, params, result, rtype, attrs, decls, _, _ = proc.kids
    interface_names = set(params) | {result or name}

    def needed(decl: Node):
        """decl as the interface body needs it, or None."""
        if decl.op in ("use", "implicit") or decl.op in ("varDecl", "attrDecl") and "parameter" in \
                (decl.kids[1] if decl.op == "varDecl" else (decl.kids[0],)):
            return decl
        if decl.op not in ("varDecl", "attrDecl"):
            return None
        declarators = decl.kids[-1]
        kept = tuple(d for d in declarators if d.kids[0] in interface_names)
        return decl.with_kids(*decl.kids[:-1], kept) if kept else None
    kept = tuple(d for d in map(needed, decls) if d is not None)
    return proc.with_kids(name, kind, params, result, rtype, attrs, kept, None, ())
