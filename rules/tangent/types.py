"""Fortran derived types T → T_diff (Tapenade's TYPE(T_DIFF), rules/naming.py; paper 4.2: the
derivative of a variable is declared like it, with the derivative type). C's struct types are
in rules/tangent/structures.py.

T_diff holds only the components of T that can have a derivative: real and complex components,
and components of a derived type U that has a U_diff (typed `type(U_diff)`). A derivative of a
`type(T)` variable is a `type(T_diff)`, so `v%x` has the derivative `vd%x` and the integer
components of T take no room in T_diff. A zero derivative of a structure is set component by
component (`vd%x = 0.0d0; vd%y = 0.0d0`): Fortran has no zero of a derived type.
"""
from __future__ import annotations

from ...engine.il import Node

DIFFERENTIABLE_BASES = ("real", "complex")


class DerivativeTypes:
    """The T_diff of the program's Fortran derived types, named by the program's Namer; records
    which ones the differentiated code uses (their definitions go out with it)."""

    def __init__(self, names):
        self.names = names
        self.used: dict = {}  # (id(owner scope), type name) -> (owner scope, typeDef node)

    def type_def(self, scope, name: str):
        """(owner scope, typeDef node) of derived type `name` seen from scope, or None."""
        owner, remote = scope.owner_of(name)
        sym = owner.symbols.get(remote) if owner is not None else None
        if sym is None or sym.kind != "type" or sym.node is None or sym.node.op != "typeDef":
            return None
        return owner, sym.node

    def has_derivative_type(self, scope, name: str) -> bool:
        found = self.type_def(scope, name)
        return found is not None and bool(self._components(found[0], found[1]))

    def derivative_of(self, typ: Node, scope) -> Node:
        """The type of the derivative of a variable of type typ: type(T_diff) for type(T)."""
        if typ is None or typ.op != "typeRef":
            return typ
        found = self.type_def(scope, typ.kids[0])
        if found is None or not self._components(*found):
            return typ
        owner, tdef = found
        if (id(owner), tdef.kids[0]) not in self.used:
            for field in tdef.kids[1]:  # the nested types first: they are defined before
                if field.op == "varDecl":
                    self.derivative_of(field.kids[0], owner)
            self.used[(id(owner), tdef.kids[0])] = (owner, tdef)
        return Node("typeRef", (self.names.type(tdef.kids[0]),))

    def definition(self, owner, tdef: Node) -> Node:
        """type T_diff: the components of T that can have a derivative."""
        fields = tuple(Node("varDecl", (self.derivative_of(typ, owner), attrs,
                                        tuple(d.with_kids(d.kids[0], d.kids[1], None, d.kids[3]) for d in decls)),
                            field.ann)
                       for field, (typ, attrs, decls) in self._components(owner, tdef))
        return Node("typeDef", (self.names.type(tdef.kids[0]), fields, tdef.kids[2]), tdef.ann)

    def definitions_of(self, owner) -> tuple:
        """The T_diff used so far of the types owner (a module or procedure scope) defines, in
        the order of their first use (nested types first)."""
        return tuple(self.definition(o, tdef) for o, tdef in self.used.values() if o is owner)

    def _components(self, owner, tdef: Node) -> list:
        """[(field declaration, (type, attributes, declarators))] of the components of tdef
        that can have a derivative."""
        out = []
        for field in tdef.kids[1]:
            if field.op != "varDecl":
                continue
            typ = field.kids[0]
            elementary = typ.op == "type" and typ.kids[0] in DIFFERENTIABLE_BASES
            nested = (typ.op == "typeRef" and typ.kids[0] != tdef.kids[0]  # not a pointer to its own type
                      and self.has_derivative_type(owner, typ.kids[0]))
            if elementary or nested:
                out.append((field, field.kids))
        return out

    def zero_assignments(self, ref_d: Node, typ: Node, scope, ranked: int, zero_of, ann) -> tuple | None:
        """REFd = 0 for a reference of type typ: one assignment per real component of a
        structure, recursively. ranked: how many parts of REFd have a rank already; None when
        a component reference would have two (Fortran allows one: the caller loops).
        zero_of(elementary type) gives the typed zero."""
        found = self.type_def(scope, typ.kids[0]) if typ is not None and typ.op == "typeRef" else None
        if found is None:
            return (Node("assign", (ref_d, zero_of(typ)), ann),)
        owner, tdef = found
        out = []
        for _, (ftype, _, decls) in self._components(owner, tdef):
            for d in decls:
                rank = ranked + (d.kids[1] is not None)
                inner = self.zero_assignments(Node("fieldAccess", (ref_d, d.kids[0])), ftype, owner, rank, zero_of, ann)
                if rank > 1 or inner is None:
                    return None
                out.extend(inner)
        return tuple(out)


def is_void(rtype) -> bool:
    return rtype is not None and rtype.op == "type" and rtype.kids[0] == "void"
