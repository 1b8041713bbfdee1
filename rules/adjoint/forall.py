"""FORALL in adjoint mode (reconstructed: docs/rules.md#a-forall): before the analyses, a
FORALL whose iterations are independent becomes DO loops, which the loop rules of 5.4 then
differentiate like any other (the tangent keeps FORALL: T-masked).

FORALL (I = F:T:S, ..., MASK) S1; ...; Sn assigns every Sk for all the indices before Sk+1,
each one evaluating all its right-hand sides before it writes. When no iteration of Sk reads
what another iteration of Sk writes (the variable assigned appears on the right or in MASK
only as the very element assigned) and no Sk writes what MASK or the bounds read, this is
the same as n DO nests in sequence, each one `IF (MASK) Sk` for I = F, T, S ... . The
indices, local to the FORALL, get fresh integer variables of the procedure. Anything else
is refused at its line.
"""
from __future__ import annotations

from ...engine.errors import UnsupportedError
from ...engine.il import Node, has_op, substituted, walk

INTEGER = Node("type", ("integer", None, None))
_FORALL = frozenset(("forall",))


def as_loops(files) -> list:
    """The files with their FORALLs turned into DO nests (the Fortran files' procedures)."""
    if not has_op(tuple(files), _FORALL):
        return files
    return [_Rewriter(f.ann.get("filename", "<input>")).unit(f) for f in files]


def _root(ref: Node) -> str | None:
    while isinstance(ref, Node) and ref.op in ("arrayAccess", "fieldAccess"):
        ref = ref.kids[0]
    return ref.kids[0] if isinstance(ref, Node) and ref.op == "ident" else None


class _Rewriter:
    def __init__(self, filename: str):
        self.filename = filename

    def refuse(self, node: Node, what: str):
        raise UnsupportedError(f"adjoint mode does not support {what} yet", self.filename, node.line)

    def unit(self, node: Node) -> Node:
        if node.op == "procedure" and node.kids[7] is not None and any(n.op == "forall" for n in walk(node.kids[7])):
            return self.procedure(node)
        if node.op in ("file", "module") or (node.op == "procedure" and node.kids[8]):
            kids = tuple(tuple(self.unit(u) if isinstance(u, Node) else u for u in k) if isinstance(k, tuple)
                         else self.unit(k) if isinstance(k, Node) and k.op in ("procedure", "module") else k
                         for k in node.kids)
            return node.with_kids(*kids)
        return node

    def procedure(self, proc: Node) -> Node:
        self.taken = {n.kids[0] for n in walk(proc) if n.op == "ident"} | set(proc.kids[2])
        self.taken |= {d.kids[0] for decl in proc.kids[6] if decl.op == "varDecl" for d in decl.kids[2]}
        self.indices = []
        body = self.statements(proc.kids[7])
        decls = proc.kids[6] + tuple(Node("varDecl", (INTEGER, (), (Node("declarator", (name, None, None, 0)),)))
                                     for name in self.indices)
        proc = proc.replace(body=body, decls=decls)
        return self.unit_contains(proc)

    def unit_contains(self, proc: Node) -> Node:
        if not proc.kids[8]:
            return proc
        return proc.with_kids(*proc.kids[:8], tuple(self.unit(u) for u in proc.kids[8]))

    def statements(self, node):
        if isinstance(node, tuple):
            return tuple(self.statements(k) for k in node)
        if not isinstance(node, Node):
            return node
        if node.op == "block":   # a FORALL becomes its DO nests, in its place
            return node.with_kids(*(n for k in node.kids
                                    for n in (self.forall(k) if k.op == "forall" else (self.statements(k),))))
        return node.with_kids(*(self.statements(k) for k in node.kids))

    def forall(self, stmt: Node) -> tuple:
        ranges, mask, body = stmt.kids
        assigns = [s for s in body.kids if s.op != "comment"]
        if any(s.op != "assign" for s in assigns):
            self.refuse(stmt, "a FORALL holding other statements than assignments")
        written = {_root(s.kids[0]) for s in assigns}
        controls = [mask] + [k for r in ranges for k in r.kids[2:]]
        if any(n.op == "ident" and n.kids[0] in written for c in controls if c is not None for n in walk(c)):
            self.refuse(stmt, "a FORALL whose assignments change its mask or bounds")
        for s in assigns:
            lhs, rhs = s.kids
            name = _root(lhs)
            reads = [rhs] + ([mask] if mask is not None else [])
            for ref in (n for r in reads for n in walk(r) if n.op in ("ident", "arrayAccess")):
                if _root(ref) == name and ref != lhs and not (ref.op == "ident" and _inside_access(ref, reads)):
                    self.refuse(s, f"a FORALL whose iterations may read the {name} that others write")
        renames = {}
        for r in ranges:
            fresh = self.fresh(r.kids[1].kids[0])
            renames[r.kids[1].kids[0]] = Node("ident", (fresh,))
        ann = stmt.ann
        nests = []
        for s in assigns:
            inner = s if mask is None else Node("if", (mask, Node("block", (s,)), None), ann)
            inner = substituted(inner, renames)
            for r in reversed(ranges):
                _, index, low, high, step = r.kids
                inner = Node("do", (renames[index.kids[0]], substituted(low, renames), substituted(high, renames),
                                    substituted(step, renames), Node("block", (inner,))), ann)
            nests.append(inner)
        return tuple(nests)

    def fresh(self, base: str) -> str:
        k, name = 0, f"{base}_forall"
        while name in self.taken:
            k += 1
            name = f"{base}_forall{k}"
        self.taken.add(name)
        self.indices.append(name)
        return name


def _inside_access(ident: Node, trees) -> bool:
    """ident is the base of an array access in trees (a(j)'s `a`, checked as a(j) itself)."""
    return any(n.op == "arrayAccess" and n.kids[0] is ident for t in trees for n in walk(t))
