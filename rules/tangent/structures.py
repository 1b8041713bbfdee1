"""The structure types of vector mode (rules/tangent/vector.py, paper 4.7 with 4.2): which
types are structures, their components, and the F_DV type of the derivative of one, whose real
components hold the directions innermost (Fortran: the tangent's T_D widened; C: struct s_dv).
"""
from __future__ import annotations

from ...engine.il import Node, mk, walk
from .types import DIFFERENTIABLE_BASES


class TypeTable:
    """The structure types (Fortran derived types, C structs) that some nodes define, by name;
    C typedef aliases followed. A name defined twice differently is left out (ambiguous)."""

    def __init__(self, nodes):
        self.definitions: dict = {}
        self.aliases: dict = {}
        for node in walk(tuple(nodes)):
            if node.op == "typeAlias":
                self.aliases[node.kids[0]] = node.kids[1]
            elif node.op == "typeDef" and node.kids[2] not in ("union", "typedefUnion"):
                known = self.definitions.setdefault(node.kids[0], node)
                if known is not None and known != node:
                    self.definitions[node.kids[0]] = None

    def resolve(self, typ: Node) -> Node:
        seen = set()
        while typ is not None and typ.op == "typeRef" and typ.kids[0] in self.aliases and typ.kids[0] not in seen:
            seen.add(typ.kids[0])
            typ = self.aliases[typ.kids[0]]
        return typ

    def definition(self, typ: Node) -> Node | None:
        typ = self.resolve(typ)
        return self.definitions.get(typ.kids[0]) if typ is not None and typ.op == "typeRef" else None

    def has_pointers(self, typ: Node, seen=frozenset()) -> bool:
        """A structure type with a pointer component (nested too); an unknown one may have."""
        typ = self.resolve(typ)
        if typ is None or typ.op != "typeRef":
            return False
        tdef = self.definition(typ)
        if tdef is None:
            return True
        return any(f.op == "varDecl" and ("pointer" in f.kids[1] or any(x.kids[3] for x in f.kids[2])
                                          or (f.kids[0].op == "typeRef" and f.kids[0].kids[0] not in seen
                                              and self.has_pointers(f.kids[0], seen | {tdef.kids[0]})))
                   for f in tdef.kids[1])

    def fields(self, typ: Node) -> dict:
        """field name -> (type, declarator) of the structure type typ ({} if unknown)."""
        tdef = self.definition(typ)
        return {} if tdef is None else {x.kids[0]: (f.kids[0], x) for f in tdef.kids[1] if f.op == "varDecl"
                                        for x in f.kids[2]}


class StructureTypes:
    """The structures whose derivatives carry the directions inside (Fortran: the T_D of the
    tangent; C: the program's structs, named s_dv in F_DV). table: their TypeTable;
    vector_name: T -> the name of its F_DV type."""

    def __init__(self, table: TypeTable, vector_name=lambda name: name):
        self.table, self.vector_name = table, vector_name
        self.used: dict = {}  # name -> its typeDef, nested types first (C: the definitions to add)

    def of(self, typ: Node) -> str | None:
        """The name of the structure type typ (aliases followed) when it has real components."""
        tdef = self.table.definition(typ)
        return tdef.kids[0] if tdef is not None and self._components(tdef) else None

    def component(self, structure: str, field: str):
        """(rank, structure name or None) of a component of the derivative of a structure, or
        None if it has no derivative."""
        typ, declarator = self.table.fields(mk("typeRef", structure)).get(field, (None, None))
        if typ is None or not self._differentiable(typ):
            return None
        return len(declarator.kids[1] or ()), self.of(typ)

    def vector_type(self, typ: Node) -> Node:
        """The type of the derivative in F_DV of a variable of structure type typ."""
        tdef = self.table.definition(typ)
        if tdef.kids[0] not in self.used:
            for field in tdef.kids[1]:  # nested types first: they are defined before
                if field.op == "varDecl" and self.of(field.kids[0]) is not None:
                    self.vector_type(field.kids[0])
            self.used[tdef.kids[0]] = tdef
        return mk("typeRef", self.vector_name(tdef.kids[0]))

    def definition(self, tdef: Node, layout) -> Node:
        """The F_DV type of structure tdef: its components that have a derivative, each
        declared like a derivative variable (widened by the layout)."""
        fields = []
        for field in tdef.kids[1]:
            if field.op != "varDecl" or not self._differentiable(field.kids[0]):
                continue
            if "pointer" in field.kids[1] or any(x.kids[3] for x in field.kids[2]):
                layout.refuse(field, f"vector mode for the pointer component {field.kids[2][0].kids[0]} "
                                     f"of a structure")
            fields.append(layout.widened(field, frozenset(x.kids[0] for x in field.kids[2]), {}))
        return tdef.with_kids(self.vector_name(tdef.kids[0]), tuple(fields), tdef.kids[2])

    def _differentiable(self, typ: Node) -> bool:
        return _real(self.table.resolve(typ)) or self.of(typ) is not None

    def _components(self, tdef: Node, seen=frozenset()) -> bool:
        """Whether tdef has a real component, nested ones included."""
        if tdef.kids[0] in seen:
            return False
        for field in tdef.kids[1]:
            if field.op != "varDecl":
                continue
            nested = self.table.definition(field.kids[0])
            if _real(self.table.resolve(field.kids[0])) or \
                    (nested is not None and self._components(nested, seen | {tdef.kids[0]})):
                return True
        return False


def _real(typ: Node) -> bool:
    return typ is not None and typ.op == "type" and typ.kids[0] in DIFFERENTIABLE_BASES


def structure_types(lang: str, units: list, files: list, derivative_types: frozenset, vector_type) -> StructureTypes:
    """Fortran: the T_D of the tangent units; C: the structs of the program, F_DV's s_dv."""
    if lang == "fortran":
        return StructureTypes(TypeTable(n for n in walk(tuple(units)) if n.op == "typeDef"
                                        and n.kids[0] in derivative_types))
    return StructureTypes(TypeTable(files), vector_type)
