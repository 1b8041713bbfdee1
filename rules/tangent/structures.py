"""Structure types: which types are structures and their components (TypeTable); C's derivative
types `struct s_diff` / typedef `T_diff` (paper 4.2, rules/naming.py; Fortran's are in
rules/tangent/types.py); and, for vector mode (rules/tangent/vector.py, paper 4.7 with 4.2),
the tangent's T_diff widened: its real components hold the directions innermost.
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
    """The structure types whose components can carry a derivative, in table (TypeTable).
    Vector mode: the derivative types of the tangent (T_diff), whose components it widens
    (same name: the vector tangent is in a file, a module m_diffv, of its own)."""

    def __init__(self, table: TypeTable):
        self.table = table

    def of(self, typ: Node) -> str | None:
        """The name of the structure type typ (aliases followed) when it has real components."""
        tdef = self.table.definition(typ)
        return tdef.kids[0] if tdef is not None and self._components(tdef) else None

    def component(self, structure: str, field: str):
        """(rank, structure name or None) of a component of the derivative of a structure, or
        None if it has no derivative; C's pointer component has the rank "pointer"."""
        typ, declarator = self.table.fields(mk("typeRef", structure)).get(field, (None, None))
        if typ is None or not self.differentiable(typ):
            return None
        if declarator.kids[3]:   # C: a pointer to rows of directions, like a pointer argument
            return "pointer", self.of(typ)
        return len(declarator.kids[1] or ()), self.of(typ)

    def definition(self, tdef: Node, layout) -> Node:
        """The vector mode type of derivative type tdef: its components, each declared like a
        derivative variable (widened by the layout)."""
        fields = []
        for field in tdef.kids[1]:
            if field.op != "varDecl" or not self.differentiable(field.kids[0]):
                continue
            if "pointer" in field.kids[1] or any(x.kids[3] for x in field.kids[2]):
                fields.append(layout.pointer_component(field))
                continue
            fields.append(layout.widened(field, frozenset(x.kids[0] for x in field.kids[2]), {}))
        return tdef.with_kids(tdef.kids[0], tuple(fields), tdef.kids[2])

    def differentiable(self, typ: Node) -> bool:
        """A real type, or a structure with real components."""
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


class CDerivativeTypes:
    """C: the derivative type of a struct type, named as the original is spelled
    (rules/naming.py): `struct s` -> `struct s_diff`, typedef `T` -> `T_diff` (a typedef of a
    tagged struct, `typedef struct s T`, -> `typedef struct s_diff T_diff`). It holds only the
    fields that can carry a derivative (paper 4.2): reals, arrays of them, and structs that
    have a _diff, typed with it; an int field takes no room in it. Records the ones the
    differentiated code uses, nested ones first: their definitions go out with it."""

    def __init__(self, names, files):
        self.names = names
        self.structures = StructureTypes(TypeTable(files))
        self.used: dict = {}  # original type name -> the definition of its _diff type

    def derivative_of(self, typ: Node, scope=None) -> Node:
        """The type of the derivative of a value of type typ (through pointer and array types);
        typ itself when it is no struct with real fields. scope: unused (C types are global)."""
        if typ is None:
            return typ
        if typ.op in ("pointerType", "arrayType"):
            return typ.with_kids(self.derivative_of(typ.kids[0]), *typ.kids[1:])
        if typ.op != "typeRef" or self.structures.of(typ) is None:
            return typ
        name = typ.kids[0]
        if name not in self.used:
            self.used[name] = None  # being defined: a field pointing to the type itself finds its name
            alias = self.structures.table.aliases.get(name)
            if alias == typ:  # typedef struct s s: the tag and the alias share the name, and so do their _diff
                alias = None
            definition = (mk("typeAlias", self.names.type(name), self.derivative_of(alias)) if alias is not None
                          else self._definition(self.structures.table.definition(typ)))
            del self.used[name]  # after the nested types it uses, defined meanwhile
            self.used[name] = definition
        return mk("typeRef", self.names.type(name))

    def _definition(self, tdef: Node) -> Node:
        fields = tuple(field.with_kids(self.derivative_of(field.kids[0]), field.kids[1],
                                       tuple(x.with_kids(x.kids[0], x.kids[1], None, x.kids[3]) for x in field.kids[2]))
                       for field in tdef.kids[1]
                       if field.op == "varDecl" and self.structures.differentiable(field.kids[0]))
        return tdef.with_kids(self.names.type(tdef.kids[0]), fields, tdef.kids[2])

    def definitions(self) -> list:
        """The _diff types used so far, each after the ones it uses."""
        return [d for d in self.used.values() if d is not None]


def structure_types(units: list, derivative_types: frozenset) -> StructureTypes:
    """Vector mode: the derivative types T_diff that the tangent units define (C: with their
    typedef aliases, and the aliases of elementary types their components may use)."""
    return StructureTypes(TypeTable(n for n in walk(tuple(units)) if n.op in ("typeDef", "typeAlias")
                                    and n.kids[0] in derivative_types or n.op == "typeAlias"
                                    and n.kids[1].op == "type"))  # typedef double real: a real component
