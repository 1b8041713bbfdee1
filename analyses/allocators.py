"""C procedures that allocate or free the memory of the structures they are passed
(`mat_alloc(Matrix *m, ...)` sets `m->data = malloc(...)`, `mat_free` frees it, `mat_mult`
resizes its result through `mat_resize`): Tapenade's "diff mem management" of pointer fields.

Such a procedure writes no active value, so activity alone never differentiates it; yet when
the structure it is passed has a derivative in the caller, the derivative's pointer fields
must be allocated (and freed) with the primal's: the call becomes a call of its derivative,
`mat_alloc_d(&m, &md, ...)`, whose T-allocation-diff gives `md->data` a zeroed block.

A formal is allocating when the procedure allocates or frees through one of its fields
(`m->data`, `m[i].data`), or passes it (rooted at it: `m`, `&m[i]`) to an allocating formal of
another procedure. A fixed point over the program's call sites.
"""
from __future__ import annotations

from ..engine.il import Node, walk_statements

_ALLOCATIONS = ("allocate", "deallocate")


def allocating_formals(program) -> dict:
    """procedure name -> frozenset of the positions of its allocating formals (C pointers)."""
    out = {name: set() for name in program.procedures}
    own = {name: _own_allocations(proc) for name, proc in program.procedures.items()}
    sites = {name: [] for name in program.procedures}
    for site in program.call_sites.values():
        sites[site.caller.name].append(site)
    changed = True
    while changed:
        changed = False
        for name, proc in program.procedures.items():
            found = set(own[name])
            for site in sites[name]:
                found |= {root_of(actual) for pos, actual in site.pairs if pos in out[site.callee.name]}
            positions = {k for k, f in enumerate(proc.formals) if f in found and _is_pointer(proc, f)}
            if not positions <= out[name]:
                out[name] |= positions
                changed = True
    return {name: frozenset(p) for name, p in out.items()}


def _own_allocations(proc) -> set:
    """The variables a procedure allocates or frees a field of."""
    body = proc.node.kids[7]
    if proc.lang != "c" or body is None:
        return set()
    return {root_of(s.kids[0]) for s in walk_statements(body)
            if s.op in _ALLOCATIONS and isinstance(s.kids[0], Node) and s.kids[0].op == "fieldAccess"}


def _is_pointer(proc, name: str) -> bool:
    sym = proc.scope.lookup(name)
    return sym is not None and sym.ptr > 0


def root_of(ref) -> str | None:
    """The variable a reference or an address is rooted at, None for an expression."""
    while isinstance(ref, Node) and ref.op in ("arrayAccess", "fieldAccess", "deref", "address", "cast"):
        ref = ref.kids[1] if ref.op == "cast" else ref.kids[0]
    return ref.kids[0] if isinstance(ref, Node) and ref.op == "ident" else None
