"""Vector tangent mode (paper 4.7, fig. 10): F_DV from F_D.

The copies of the original statements do not depend on the direction, so they stay as they
are; every derivative variable gains an extra dimension of nbdirsmax directions, innermost
(the first index in Fortran, `xd(nd, i)`; the last in C, `xd[i][nd]`), and every run of
consecutive derivative statements goes into one loop over the directions, `DO nd = 1,
nbdirs` — fusing them is always legal, since a derivative statement reads original values
(which the run does not change) and derivatives of its own direction. The size comes from
module DIFFSIZES (nbdirsmax) in Fortran and from the macro NBDirsMax of DIFFSIZES.h in C,
both provided by the user. In C a pointer derivative argument becomes a pointer to rows of
directions, `double xd[][NBDirsMax]`, so that offsets (`xd + k`, `&xd[k]`) and addresses
(`&td`) pass every direction unchanged; a derivative pointer declared in the body is the
same pointer, `double (*pd)[NBDirsMax]`, so `pd = xd`, `pd = pd + 1`, `pd = &md[1][1]` move
every direction at once, and an allocated one gets n rows of directions,
`wd = (double (*)[NBDirsMax])calloc(n, sizeof(double[NBDirsMax]))`, freed whole.

The partial derivatives in a derivative statement do not depend on the direction: each one
that costs more than a load (`cos(x)`, `u(i+1) - u(i-1)`) is computed once, into a temporary
before the loop over the directions (`temp0 = cos(x)`), so F_DV does the work of F_D's
partials once for all directions (`_Hoister`). The loop reads the same values in the
same order as F_D, so each direction's derivatives are bit for bit those of F_D.
A derivative statement that carries a label (T-seq put a jump target there) starts a run of
its own, and the label goes on the run's first statement, a hoisted partial or the loop: a
jump never enters the loop over the directions, and it runs every direction.

A function's F_D returns its derivative; F_DV cannot return the array of directions, so it
is a subroutine (C: a void function) whose last arguments before nbdirs are the value and
its derivative, and a call split out of an expression, `resd = g_d(..., res)`, becomes
`call g_dv(..., res, resd, nbdirs)` (reconstructed: the paper shows subroutines only).

Structures (paper 4.7 with 4.2: the direction goes at the deepest level of a structure): a
derivative of a structure keeps the structure's shape and each of its real components gets the
directions, innermost: Fortran `td%x(nd)`, `ad(i)%x(nd, k)`; C `td.x[nd]`, `ad[i].x[k][nd]`.
So the derivative of a structure is still one object with the original's access paths: passed
by address (`&pd`), by value or copied whole, it carries every direction, and `td%x` names the
directions of `t%x` like `xd` names those of `x`. Its type is the tangent's derivative type
`T_diff` (rules/naming.py: Fortran `type(T_diff)`, C `struct s_diff` or typedef `T_diff`, only
the components that can carry a derivative) with its components widened, under the same name:
F_DV is in a file of its own (Fortran: T_diff in module m_diffv, or in the procedure), where it
meets no tangent `T_diff`. A struct value's derivative (C) goes where a `T_diff *` argument
points. A derivative statement on whole structures (`ad = bd`, C `*fd = rd`, `pd = pd + 1`)
handles every direction at once: it is not put in a direction loop (it has no `nd` once
indexed). An assignment to a component of a local structure that no other name reaches
(`q%x = x`) is movable like one to a local variable.

Fortran modules: the tangent's module `m_diff` (derivatives of module variables, T_diff,
differentiated module procedures) becomes `m_diffv` (Tapenade's name), with each module
derivative widened like a local one and its procedures vectorized; every `use m_diff` becomes
`use m_diffv`.

This is a rewrite of the tangent the rules produced, not a rule set of its own: the
derivation of each statement is the tangent's (explain shows it).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from ...engine.errors import UnsupportedError
from ...engine.il import Node, mk, walk
from ..derivatives import derivative
from .types import is_void
from .structures import StructureTypes, TypeTable

NBDIRS, DIRECTION = "nbdirs", "nd"
DIFFSIZES_INCLUDE = '#include "DIFFSIZES.h"'


@dataclass(frozen=True)
class _Structure:
    """A derivative variable of a structure type: its type name and rank ("pointer": C pointer)."""
    name: str
    rank: object


def widen_file_scope(units: list, derivatives: frozenset, filename: str, structures=None) -> tuple:
    """C: (units with the file-scope derivatives and the derivative types widened, `double
    gd[NBDirsMax]`, their ranks): a global's derivative holds every direction like a local's."""
    layout, ranks = _CLayout(filename, structures), {}
    return [layout.widened(u, derivatives, ranks) if u.op in ("varDecl", "typeDef") else u for u in units], ranks


def derivative_ranks(decls, derivatives: frozenset, filename: str, structures=None) -> dict:
    """Fortran: the ranks in F_D of the derivatives that decls declare (a host's, which its
    internal procedures reach by host association)."""
    layout, ranks = _FortranLayout(filename, structures), {}
    for decl in decls:
        layout.widened(decl, derivatives, ranks)
    return ranks


def vector_modules(units: list, derivatives: frozenset, renamed: dict, filename: str, module_name,
                   structures=None) -> tuple:
    """Fortran: (units with each tangent module m_diff made m_diffv: its derivatives and T_diff
    widened, what it exports renamed; every `use m_diff` made `use m_diffv`; the ranks of the
    module derivatives). module_name: m_diff -> m_diffv. Its procedures are vectorized apart."""
    layout, ranks = _FortranLayout(filename, structures), {}
    modules = {u.kids[0]: module_name(u.kids[0]) for u in units if u.op == "module"}

    def uses(decls):
        return tuple(d.with_kids(modules[d.kids[0]], *d.kids[1:]) if d.op == "use" and d.kids[0] in modules else d
                     for d in decls)

    def exported(decl):
        if decl.op != "attrDecl" or decl.kids[0] != "public":
            return decl
        return decl.with_kids("public", tuple(x.with_kids(renamed.get(x.kids[0], x.kids[0]), *x.kids[1:])
                                              for x in decl.kids[1]))

    def unit(u):
        if u.op == "procedure":
            return u.with_kids(*u.kids[:6], uses(u.kids[6]), u.kids[7], tuple(unit(c) for c in u.kids[8]))
        if u.op != "module":
            return u
        name, decls, procedures = u.kids
        decls = [exported(layout.widened(d, derivatives, ranks)) for d in uses(decls)]
        decls.insert(0, mk("use", "diffsizes", None))
        return u.with_kids(modules[name], tuple(decls), tuple(unit(p) for p in procedures))

    return [unit(u) for u in units], ranks


class Dummies(NamedTuple):
    """What a call of a differentiated procedure needs to know of its dummies."""
    arrays: frozenset   # the positions of the array dummies
    count: int          # how many dummies
    result: str | None  # a Fortran function's result variable (its derivative, in F_D)


def vectorize_procedure(proc: Node, derivatives: frozenset, names: dict, filename: str, temp,
                        lang: str = "fortran", valued: dict | None = None, file_scope: dict | None = None,
                        structures: StructureTypes | None = None, types: TypeTable | None = None,
                        dummies: dict | None = None) -> Node:
    """F_D -> F_DV. derivatives: the names of the derivative variables of proc; names:
    differentiated procedure name (_d) -> its vector name (_dv); temp(base): a fresh
    variable name (the partials computed once outside the direction loops, C's derivative
    results); valued: the differentiated functions with a value -> its type; file_scope: the
    ranks of the global derivatives (C file scope, Fortran modules); structures: the
    structure types of the derivatives; types: the program's own structure types;
    dummies: differentiated procedure name -> its Dummies."""
    name, kind, params, result, rtype, attrs, decls, body, contains = proc.kids
    layout = (_CLayout if lang == "c" else _FortranLayout)(filename, structures)
    arrays: dict = dict(file_scope or {})  # derivative variable -> its rank in F_D
    decls_v = [w for w in (layout.widened(d, derivatives | set(names), arrays) for d in decls) if w is not None]
    params = tuple(params)
    derivative_result = None
    if kind == "function" and not is_void(rtype):
        # F_D returns the derivative; F_DV cannot return the array of its directions, so it
        # is a subroutine with the derivative as its last argument before nbdirs
        derivative_result = result if lang == "fortran" else temp(name.rsplit("_", 1)[0] + "d")
        params += (derivative_result,)
        if lang == "c" or rtype is not None:  # Fortran: F_D's header typed the derivative result
            decls_v.append(layout.result_argument(derivative_result, rtype, arrays))
        kind, result, rtype = layout.subroutine(rtype)
    types = types or TypeTable(())
    layout.reached_by_name_only(decls, body, types)
    hoist = _Hoister(_variable_types(decls, body), arrays, temp, types)
    vector = _Vectorizer(layout, derivatives, arrays, names, hoist, temp, valued or {}, derivative_result)
    vector.dummies = dummies or {}
    vector.dims = {x.kids[0]: x.kids[1] for d in decls if d.op in ("varDecl", "attrDecl") for x in d.kids[-1]
                   if isinstance(x, Node) and x.op == "declarator" and x.kids[1]}
    body_v = vector.block(body)
    temps: dict = {}
    for temp_name, typ in hoist.temps:
        temps.setdefault(typ, []).append(mk("declarator", temp_name, None, None, 0))
    locals_v = [mk("varDecl", typ, (), tuple(ds)) for typ, ds in temps.items()] + vector.dropped
    decls_v, body_v = layout.declare(decls_v, body_v, locals_v)
    return Node("procedure", (names[name], kind, params + (NBDIRS,), result, rtype, attrs, tuple(decls_v),
                              body_v, contains), proc.ann)


class _Vectorizer:
    """Puts every run of derivative statements into one loop over the directions. A derivative
    statement moves above the original assignments before it (to join the run before them)
    when they write nothing it reads: it writes only derivatives, which they do not read.
    Only assignments to variables no other name can reach are moved across (`movable`)."""

    def __init__(self, layout, derivatives: frozenset, arrays: dict, names: dict, hoist, temp, valued: dict,
                 derivative_result=None):
        self.layout, self.derivatives, self.arrays, self.names, self.hoist = layout, derivatives, arrays, names, hoist
        self.temp, self.valued = temp, valued  # fresh names; the functions with a value -> its type
        self.derivative_result = derivative_result  # C: the argument that replaces F_D's return value
        self.dropped: list = []  # declarations of the derivatives of values a call statement drops
        self.masking = 0  # inside a FORALL or WHERE
        self.dims: dict = {}  # the procedure's arrays -> their dimensions
        self.dummies: dict = {}  # differentiated procedure -> its Dummies

    def block(self, block: Node) -> Node:
        out, run, between = [], [], []  # between: the original assignments that follow the run
        target = []  # the label of a jump target that starts the run: for the run's first statement

        def flush():
            start = len(out)
            if run and not self.masking:  # no scalar temporaries in a FORALL or WHERE
                run[:] = self.hoist.partials_of(run, out)
            if run:
                out.append(self.layout.direction_loop(mk("block", *run)))
                run.clear()
            out.extend(between)
            between.clear()
            if target and len(out) > start:  # a jump to it runs the partials and the loop
                out[start] = out[start].with_ann(label=target.pop())

        def derivative(stmt):
            if "label" in stmt.ann:  # a jump target (T-seq): a run of its own, never inside the loop
                flush()
                target.append(stmt.ann["label"])
                stmt = Node(stmt.op, stmt.kids, stmt.ann.discard("label"))
            element = self.indexed(stmt)
            if DIRECTION not in _names(element):  # whole structures: every direction at once
                flush()
                out.append(element.with_ann(label=target.pop()) if target else element)
                return
            if between and _names(stmt) & {_root(s.kids[0]) for s in between}:
                flush()
            run.append(element)

        def place(stmt):
            if stmt.op == "varDecl":  # C: a declaration in the body, its initial values after it
                flush()
                decl, initial_values = self.layout.local(stmt, self.derivatives, self.arrays)
                out.append(decl)
                for value in initial_values:
                    place(value)
            elif stmt.op == "return" and stmt.kids[0] is not None:  # C: F_D returned the derivative
                result = mk("ident", self.derivative_result)
                if isinstance(self.arrays.get(self.derivative_result), _Structure):  # *fd = rd: where it points
                    result = mk("deref", result)
                derivative(Node("assign", (result, stmt.kids[0]), stmt.ann))
                flush()
                out.append(stmt.with_kids(None))
            elif (stmt.op == "pointerAssign" and _root(stmt.kids[0]) in self.arrays) or self.moves_pointer(stmt):
                # pd => ad, C pd = pd + 1: the pointer to every direction moves once
                flush()
                out.append(stmt.with_kids(*(self.layout.whole(k, self.rank_of) for k in stmt.kids)))
            elif stmt.op in ("allocate", "deallocate") and _root(stmt.kids[0]) in self.arrays:
                flush()  # a structure's directions are in its components: allocated as it is
                out.append(self.layout.allocation(stmt) if self.structure_of(stmt.kids[0]) is None else stmt)
            elif self.function_call(stmt):  # RESd = G_D(ARGS, RES) -> call G_DV(ARGS, RES, RESd, nbdirs)
                flush()
                callee, args = stmt.kids[1].kids
                value = self.layout.reference(stmt.kids[0], self.valued.get(callee))
                if any(a.op == "namedArg" for a in args):  # optional arguments left out: by keyword
                    value = mk("namedArg", self.dummies[callee].result, value)
                out.append(self.call(Node("call", (callee, args + (value,)), stmt.ann), value_kept=True))
            elif stmt.ann.get("derivative") or self.writes_derivative(stmt):
                if stmt.op == "call":
                    flush()
                    out.append(self.call(stmt))
                else:
                    derivative(stmt)
            elif stmt.op in ("forall", "where"):
                flush()
                out.extend(self.masked(stmt))
            elif run and self.movable(stmt):
                between.append(stmt)
            else:
                flush()
                out.append(self.statement(stmt))

        for stmt in block.kids:
            place(stmt)
        flush()
        return Node("block", tuple(out), block.ann)

    def masked(self, stmt: Node) -> list:
        """FORALL and WHERE (Fortran) may hold no DO: a construct whose blocks have derivative
        runs is split into one construct per run (segment), in order, a run's with the directions
        (FORALL: nd one more index; WHERE: in a direction loop), each block keeping its masks (an
        ELSEWHERE block behind empty blocks of the masks before it). A mask is then evaluated
        again at each segment of its blocks and those after: sound when the segments before
        assign nothing it reads; else a WHERE's first mask is kept in a temporary, and any other
        is refused."""
        chain = _where_chain(stmt) if stmt.op == "where" else [(stmt.kids[:2], stmt.kids[2])]
        self.masking += 1
        try:
            blocks = [self.block(b) for _, b in chain]
        finally:
            self.masking -= 1
        segments = [(k, segment) for k, block in enumerate(blocks) for segment in _segments(block)]
        if all(isinstance(segment, list) for _, segment in segments):
            return [_rebuilt(stmt, chain, blocks)]

        def overwritten(k):  # what the segments that re-evaluate mask k may have changed before they do
            return {_root(a.kids[0]) for j, segment in segments[:-1] if j >= k for a in walk(tuple(segment))
                    if a.op == "assign"}
        out = []
        if stmt.op == "where" and _names(chain[0][0]) & overwritten(0):
            mask, shape = self.temp("mask"), _shape(chain[0][0][0], self.dims)
            if shape is None:
                self.layout.refuse(stmt, "vector mode for derivatives in a WHERE whose mask reads what it assigns "
                                         "and is not shaped as a whole array of explicit shape")
            self.dropped.append(mk("varDecl", mk("type", "logical", None, None), (),
                                   (mk("declarator", mask, shape, None, 0),)))
            out.append(mk("assign", mk("ident", mask), chain[0][0][0]))
            chain = [((mk("ident", mask),), chain[0][1])] + chain[1:]
        for k, (controls, _) in enumerate(chain):
            if _names(controls) & overwritten(k):
                self.layout.refuse(stmt, f"vector mode for derivatives in a {stmt.op.upper()} whose mask or "
                                         "bounds read what it assigns")
        for k, segment in segments:
            if isinstance(segment, list):
                out.append(_rebuilt(stmt, chain[:k + 1], [mk("block")] * k + [mk("block", *segment)]))
            elif stmt.op == "forall":
                ranges, mask = chain[0][0]
                nd = mk("impliedDo", (), mk("ident", DIRECTION), mk("intCst", 1, None), mk("ident", NBDIRS), None)
                out.append(Node("forall", ((nd,) + tuple(ranges), mask, segment.kids[4]), stmt.ann))
            else:
                where = _rebuilt(stmt, chain[:k + 1], [mk("block")] * k + [segment.kids[4]])
                out.append(self.layout.direction_loop(mk("block", where)))
        return out

    def movable(self, stmt: Node) -> bool:
        """An unlabelled assignment to a variable that only its name reaches."""
        return stmt.op == "assign" and not stmt.ann.get("label") and self.layout.only_named(stmt.kids[0])

    def moves_pointer(self, stmt: Node) -> bool:
        return stmt.op == "assign" and stmt.kids[0].op == "ident" and self.arrays.get(stmt.kids[0].kids[0]) == "pointer"

    def function_call(self, stmt: Node) -> bool:
        return stmt.op == "assign" and stmt.kids[1].op == "call" and stmt.kids[1].kids[0] in self.names

    def writes_derivative(self, stmt: Node) -> bool:
        return stmt.op == "assign" and _root(stmt.kids[0]) in self.arrays

    def statement(self, stmt: Node) -> Node:
        """A statement with no derivative of its own: its blocks are vectorized; a call of a
        differentiated procedure gets nbdirs."""
        if stmt.op == "call":
            return self.call(stmt)
        if stmt.op == "block":  # C: a nested compound statement
            return self.block(stmt)
        kids = tuple(self.block(k) if isinstance(k, Node) and k.op == "block" else k for k in stmt.kids)
        if stmt.op == "switch":
            kids = (kids[0], tuple(self.statement(c) for c in stmt.kids[1]), kids[2])
        return Node(stmt.op, kids, stmt.ann)

    def call(self, stmt: Node, value_kept: bool = False) -> Node:
        name, args = stmt.kids
        if name not in self.names:
            if any(_root(a) in self.arrays for a in walk(args)):
                self.layout.refuse(stmt, f"vector mode for a derivative passed to {name}")
            return stmt
        for a in args:  # Fortran ad%x with ad an array: its directions would make a second ranked part
            if a.op == "fieldAccess" and self.rank_of(a) is not None and self.sectioned(a.kids[0]):
                self.layout.refuse(stmt, "vector mode for a component of an array of derivative structures "
                                      "as an argument")
        arrays, count, _ = self.dummies.get(name, ((), len(args), None))
        whole = tuple(self.layout.whole(a, self.rank_of, k in arrays) for k, a in enumerate(args))
        if name in self.valued and not value_kept:  # C: F_DV needs somewhere to put the derivatives
            dropped = self.temp(name.rsplit("_", 1)[0] + "d")
            self.dropped.append(self.layout.directions_of(dropped, self.valued[name], {}))
            whole += (self.layout.reference(mk("ident", dropped), self.valued[name]),)
        directions = mk("ident", NBDIRS)
        if len(args) < count:  # optional arguments left out: the ones after them go by keyword
            directions = mk("namedArg", NBDIRS, directions)
        return Node("call", (self.names[name], whole + (directions,)), stmt.ann)

    def indexed(self, node):
        """Every reference to a derivative variable, for direction nd."""
        if isinstance(node, tuple):
            return tuple(self.indexed(k) for k in node)
        if not isinstance(node, Node):
            return node
        if node.op == "call" and node.kids[0] in self.names:
            self.layout.refuse(node, "vector mode for a differentiated function called in an expression")
        element = self.layout.element(node, self.rank_of, self.indexed)
        if element is not None:
            return element
        return Node(node.op, self.indexed(node.kids), node.ann)

    def rank_of(self, ref: Node):
        """The rank of the real derivative that ref names whole (C: "pointer" for a pointer
        argument): a derivative variable, or a real component of a derivative structure
        (td%x, ad(i)%w, C pd->q); None for anything else (a structure, an element...)."""
        if ref.op == "ident":
            rank = self.arrays.get(ref.kids[0])
            return None if isinstance(rank, _Structure) else rank
        if ref.op == "fieldAccess":
            component = self.component_of(ref)
            return component[0] if component is not None and component[1] is None else None
        return None

    def component_of(self, ref: Node):
        """(rank, structure type or None) of the component ref = base%f of a derivative
        structure, None if it is none."""
        structure = self.structure_of(ref.kids[0])
        return self.layout.structures.component(structure, ref.kids[1]) if structure else None

    def sectioned(self, ref: Node) -> bool:
        """A part of a derivative structure that is an array not subscripted (ad, cd%p)."""
        if ref.op == "ident":
            found = self.arrays.get(ref.kids[0])
            return isinstance(found, _Structure) and found.rank not in (0, "pointer")
        if ref.op == "fieldAccess":
            component = self.component_of(ref)
            return self.sectioned(ref.kids[0]) or (component is not None and component[0] != 0)
        return ref.op == "arrayAccess" and any(i.op == "arrayTriplet" for i in ref.kids[1])

    def structure_of(self, ref: Node) -> str | None:
        """The structure type of ref, a derivative structure or a part of one (td, ad(i),
        cd%p(k), C *pd), or None."""
        if ref.op == "ident":
            found = self.arrays.get(ref.kids[0])
            return found.name if isinstance(found, _Structure) else None
        if ref.op in ("arrayAccess", "deref"):
            return self.structure_of(ref.kids[0])
        if ref.op == "fieldAccess":
            component = self.component_of(ref)
            return component[1] if component is not None else None
        return None


class _FortranLayout:
    """Fortran (fig. 10): the direction is the first dimension, xd(nd), ad(nd, i); nbdirsmax
    comes from module DIFFSIZES."""
    size = "nbdirsmax"

    def __init__(self, filename: str, structures: StructureTypes | None = None):
        self.filename = filename
        self.structures = structures or StructureTypes(TypeTable(()))

    def reached_by_name_only(self, decls, body, types: TypeTable):
        """Fortran: the variables without POINTER or TARGET (none if there is an EQUIVALENCE);
        those of a structure type with a pointer component write through it (q%p = x)."""
        if any(d.op == "equivalence" for d in decls):
            self.named_only = self.fields_named_only = frozenset()
            return
        named = [(x.kids[0], d.kids[0]) for d in decls if d.op == "varDecl"
                 and not {"pointer", "target"} & set(d.kids[1]) for x in d.kids[2]]
        self.named_only = frozenset(name for name, _ in named)
        self.fields_named_only = frozenset(name for name, typ in named if not types.has_pointers(typ))

    def only_named(self, ref: Node) -> bool:
        through_fields = False
        while ref.op in ("arrayAccess", "fieldAccess"):
            through_fields |= ref.op == "fieldAccess"
            ref = ref.kids[0]
        return ref.op == "ident" and ref.kids[0] in (self.fields_named_only if through_fields else self.named_only)

    def refuse(self, node: Node, what: str):
        raise UnsupportedError(f"{what} is not supported yet", self.filename, node.line if node else None)

    def subroutine(self, rtype):
        """(kind, result, return type) of F_DV for a function F."""
        return "subroutine", None, None

    def directions_of(self, name: str, typ: Node, arrays: dict, pointer: int = 0) -> Node:
        """The declaration of a new scalar derivative `name` of type typ, with its directions."""
        return self.widened(mk("varDecl", typ, (), (mk("declarator", name, None, None, pointer),)), {name}, arrays)

    def result_argument(self, name: str, typ: Node, arrays: dict) -> Node:
        return self.directions_of(name, typ, arrays)

    def reference(self, ref: Node, typ: Node) -> Node:
        """How F_DV passes the derivative ref of a function's value, of type typ."""
        return ref

    def widened(self, decl: Node, derivatives, arrays: dict) -> Node:
        """The declaration with each derivative variable widened by the directions; the
        external declaration of a differentiated function F_D left out (None if that was all:
        F_DV is a subroutine); a T_diff with its components widened."""
        if decl.op == "typeDef" and self.structures.of(mk("typeRef", decl.kids[0])) is not None:
            return self.structures.definition(decl, self)
        if decl.op != "varDecl" or not any(x.kids[0] in derivatives for x in decl.kids[2]):
            return decl
        if self.structure_declaration(decl, derivatives, arrays):
            return decl
        if "external" in decl.kids[1]:
            kept = tuple(x for x in decl.kids[2] if x.kids[0] not in derivatives)
            return decl.with_kids(decl.kids[0], decl.kids[1], kept) if kept else None
        widened = []
        for x in decl.kids[2]:
            dims = x.kids[1] or ()
            arrays[x.kids[0]] = len(dims)
            # a deferred shape (allocatable) stays deferred, td(:, :), allocated with nbdirsmax;
            # a scalar pointer's derivative is a pointer to the directions, qd(:) => td
            deferred = bool(dims) and all(k.kids == (None, None) for k in dims) or "pointer" in decl.kids[1]
            direction = mk("dim", None, None) if deferred else mk("dim", None, mk("ident", self.size))
            # an initial value (0, a SAVE variable's derivative: procedures._saved_zero) stays
            widened.append(x.with_kids(x.kids[0], (direction,) + tuple(dims), x.kids[2], x.kids[3]))
        return decl.with_kids(decl.kids[0], decl.kids[1], tuple(widened))

    def structure_declaration(self, decl: Node, derivatives, arrays: dict) -> bool:
        """Whether decl declares derivatives of a structure type: they keep their type, T_diff
        (its components hold the directions), and arrays records them."""
        typ = self.structures.table.resolve(decl.kids[0])
        structure = self.structures.of(typ)
        if structure is None:
            if typ is not None and typ.op == "typeRef":
                self.refuse(decl, f"vector mode for a derivative of type {typ.kids[0]}")
            return False
        for x in decl.kids[2]:
            name, dims, init, ptr = x.kids
            if name not in derivatives or ptr > 1 or not _aggregate_zero(init):
                self.refuse(decl, f"vector mode for the declaration of the derivative structure {name}")
            arrays[name] = _Structure(structure, "pointer" if ptr else len(dims or ()))
        return True

    def pointer_component(self, field: Node) -> Node:
        """The vector T_diff's declaration of the pointer component field of T_diff."""
        self.refuse(field, f"vector mode for the pointer component {field.kids[2][0].kids[0]} of a structure")

    def allocation(self, stmt: Node) -> Node:
        """allocate(td(n)) -> allocate(td(nbdirsmax, n)), once for all directions."""
        if stmt.op != "allocate":
            return stmt
        target, dims, type_ = stmt.kids
        return Node("allocate", (target, (mk("ident", self.size),) + tuple(dims), type_), stmt.ann)

    def declare(self, decls: list, body: Node, temps: list):
        # nd only where a direction loop uses it (gfortran -Wall: no unused variable)
        counters = (NBDIRS, DIRECTION) if DIRECTION in _names(body) else (NBDIRS,)
        loop_vars = mk("varDecl", mk("type", "integer", None, None), (),
                       tuple(mk("declarator", c, None, None, 0) for c in counters))
        return [mk("use", "diffsizes", None)] + decls + [loop_vars] + temps, body

    def direction_loop(self, body: Node) -> Node:
        """DO nd = 1, nbdirs, marked for vectorization: gfortran -O2 (gcc 12's very cheap cost
        model) leaves a loop with a run-time bound scalar unless told that vectorizing pays;
        the directions are independent, so it does, and each lane computes F_D's value."""
        return mk("do", mk("ident", DIRECTION), mk("intCst", 1, None), mk("ident", NBDIRS), None, body,
                  vectorize=True)

    def element(self, node: Node, rank_of, indexed):
        """xd -> xd(nd), ad(i) -> ad(nd, i), a whole array ad -> ad(nd, :); the same for a
        real component of a derivative structure, td%x -> td%x(nd), ad(i)%w(k) -> ad(i)%w(nd, k)."""
        direction = mk("ident", DIRECTION)
        rank = rank_of(node)
        if rank is not None:
            whole = (mk("arrayTriplet", None, None, None),) * rank
            return mk("arrayAccess", _leaf(node, indexed), (direction,) + whole)
        if node.op == "arrayAccess" and rank_of(node.kids[0]) is not None:
            return mk("arrayAccess", _leaf(node.kids[0], indexed), (direction,) + indexed(node.kids[1]))
        return None

    def whole(self, arg: Node, rank_of, to_array: bool = False) -> Node:
        """A derivative actual argument with all its directions: xd, td%x, a structure td, or
        ad(:, i) for ad(i); ad(1, i) for ad(i) passed to an array dummy (sequence association:
        the elements from ad(i) on, with the directions of each)."""
        if arg.op == "arrayAccess" and rank_of(arg.kids[0]) is not None:
            first = mk("intCst", 1, None) if to_array and not any(
                i.op == "arrayTriplet" for i in arg.kids[1]) else mk("arrayTriplet", None, None, None)
            return mk("arrayAccess", arg.kids[0], (first,) + tuple(arg.kids[1]))
        return arg


class _CLayout(_FortranLayout):
    """C: the direction is the last index, xd[nd], ad[i][nd], (*pd)[nd] as pd[0][nd]; a
    pointer derivative argument points to rows of NBDirsMax directions, `double xd[][NBDirsMax]`
    (the type `double (*xd)[NBDirsMax]`), so `xd + k`, `&xd[k]` and `&td` pass all the
    directions of what they point to; NBDirsMax comes from DIFFSIZES.h."""
    size = "NBDirsMax"

    def subroutine(self, rtype):
        return "function", None, mk("type", "void", None, None)

    def result_argument(self, name: str, typ: Node, arrays: dict) -> Node:
        """The argument receiving the derivatives of the value: `double fd[NBDirsMax]`, or
        `struct s_diff *fd` for a struct value."""
        return self.directions_of(name, typ, arrays, pointer=1 if self.structures.of(typ) is not None else 0)

    def reference(self, ref: Node, typ: Node) -> Node:
        """&rd for a struct's derivative (F_DV writes where it points), rd (an array) else."""
        return mk("address", ref) if typ is not None and self.structures.of(typ) is not None else ref

    def reached_by_name_only(self, decls, body, types: TypeTable):
        """C: the scalar locals whose address is never taken (a field is its struct's storage)."""
        addressed = {n.kids[0].kids[0] for n in walk(body) if n.op == "address" and n.kids[0].op == "ident"}
        self.named_only = frozenset(x.kids[0] for d in walk(body) if d.op == "varDecl" for x in d.kids[2]
                                    if not x.kids[1] and not x.kids[3]) - addressed

    def only_named(self, ref: Node) -> bool:
        while ref.op == "fieldAccess":  # a field of a local struct
            ref = ref.kids[0]
        return ref.op == "ident" and ref.kids[0] in self.named_only

    def widened(self, decl: Node, derivatives, arrays: dict) -> Node:
        if decl.op != "varDecl":  # a derivative type T_diff, widened as in Fortran
            return super().widened(decl, derivatives, arrays)
        if not any(x.kids[0] in derivatives for x in decl.kids[2]) or \
                self.structure_declaration(decl, derivatives, arrays):
            return decl
        widened = []
        for x in decl.kids[2]:
            name, dims, init, ptr = x.kids
            dims = tuple(dims or ())
            if ptr > 1 or (ptr and dims) or not _aggregate_zero(init):
                self.refuse(decl, f"vector mode for the derivative {name}")
            if ptr:  # a pointer argument: the rows of its directions
                dims, arrays[name] = (mk("dim", None, None),), "pointer"
            else:
                arrays[name] = len(dims)
            widened.append(x.with_kids(name, dims + (mk("dim", None, mk("ident", self.size)),), init, 0))
        return decl.with_kids(decl.kids[0], decl.kids[1], tuple(widened))

    def local(self, decl: Node, derivatives, arrays: dict):
        """A declaration in the body, widened, and the assignments of its derivatives'
        initial values (`double sd = 0.0;` -> `double sd[NBDirsMax];` then sd[nd] = 0.0); the
        zero `{0}` of a struct or an array stays: it zeroes every direction."""
        def assigned(x):
            return x.kids[0] in derivatives and x.kids[2] is not None and not _aggregate_zero(x.kids[2])
        initial_values = tuple(Node("assign", (mk("ident", x.kids[0]), x.kids[2]), decl.ann.set("derivative", True))
                               for x in decl.kids[2] if assigned(x))
        if initial_values:
            decl = decl.with_kids(decl.kids[0], decl.kids[1],
                                  tuple(x.with_kids(x.kids[0], x.kids[1], None, x.kids[3]) if assigned(x) else x
                                        for x in decl.kids[2]))
        if "static" in decl.kids[1]:  # zero once (C's static storage), not at each call
            initial_values = ()
        # a pointer to structures points to T_diff, which holds the directions: no rows
        if any(x.kids[3] for x in decl.kids[2] if x.kids[0] in derivatives) and self.structures.of(decl.kids[0]) is None:
            return self.pointer_to_rows(decl, derivatives, arrays), initial_values
        return self.widened(decl, derivatives, arrays), initial_values

    def pointer_to_rows(self, decl: Node, derivatives, arrays: dict) -> Node:
        """A derivative pointer declared in the body points to rows of directions, like a
        pointer argument: `double *pd;` -> `double (*pd)[NBDirsMax];`, so that pd = xd,
        pd = pd + 1, &td and allocations move every direction at once. Its initial value
        (`local`) is assigned after it, to the whole pointer."""
        typ, attrs, declarators = decl.kids
        if any(x.kids[0] not in derivatives or x.kids[3] != 1 or x.kids[1] for x in declarators):
            self.refuse(decl, f"vector mode for the derivative {declarators[0].kids[0]}")
        for x in declarators:
            arrays[x.kids[0]] = "pointer"
        return decl.with_kids(self.rows_of(typ), attrs, declarators)

    def pointer_component(self, field: Node) -> Node:
        """`double *data;` -> `double (*data)[NBDirsMax];`: it points to rows of directions, as
        a derivative pointer declared in the body does (pointer_to_rows)."""
        typ, attrs, declarators = field.kids
        if "pointer" in attrs or any(x.kids[3] != 1 or x.kids[1] for x in declarators):
            return super().pointer_component(field)
        return field.with_kids(self.rows_of(typ), attrs, declarators)

    def allocation(self, stmt: Node) -> Node:
        """wd = calloc(n, sizeof(double)) -> wd = calloc(n, sizeof(double[NBDirsMax])): n rows of
        directions, for wd a pointer to rows (`local`); free(wd) frees them all."""
        if stmt.op != "allocate":
            return stmt
        target, dims, type_ = stmt.kids
        return Node("allocate", (target, dims, self.rows_of(type_)), stmt.ann)

    def rows_of(self, typ: Node) -> Node:
        return mk("arrayType", typ, (mk("ident", self.size),))

    def declare(self, decls: list, body: Node, temps: list):
        nbdirs = mk("varDecl", mk("type", "integer", 4, None), (), (mk("declarator", NBDIRS, None, None, 0),))
        direction = mk("varDecl", mk("type", "integer", 4, None), (), (mk("declarator", DIRECTION, None, None, 0),))
        used = (direction,) if DIRECTION in _names(body) else ()
        return decls + [nbdirs], Node("block", used + tuple(temps) + body.kids, body.ann)

    def direction_loop(self, body: Node) -> Node:
        nd = mk("ident", DIRECTION)
        return mk("for", mk("assign", nd, mk("intCst", 0, None)), mk("lt", nd, mk("ident", NBDIRS)),
                  mk("assign", nd, mk("add", nd, mk("intCst", 1, None))), body)

    def element(self, node: Node, rank_of, indexed):
        """td -> td[nd], ad[i] -> ad[i][nd], *pd -> pd[0][nd]; the same for a real field of
        a derivative structure, sd.x -> sd.x[nd], pd->q[i] -> pd->q[i][nd]."""
        direction = (mk("ident", DIRECTION),)
        if rank_of(node) == 0:
            return mk("arrayAccess", _leaf(node, indexed), direction)
        if node.op == "deref" and node.kids[0].op == "ident" and rank_of(node.kids[0]) == "pointer":
            return mk("arrayAccess", mk("arrayAccess", node.kids[0], (mk("intCst", 0, None),)), direction)
        if node.op == "arrayAccess":
            depth, base = 1, node.kids[0]
            while base.op == "arrayAccess":
                depth, base = depth + 1, base.kids[0]
            rank = rank_of(base)
            if rank is not None and depth == (1 if rank == "pointer" else rank):
                def access(n):  # the indices are expressions to index in turn, the base stays
                    return Node("arrayAccess", (access(n.kids[0]), indexed(n.kids[1])), n.ann) \
                        if n.op == "arrayAccess" else _leaf(n, indexed)
                return mk("arrayAccess", access(node), direction)
        if rank_of(node) is not None:
            self.refuse(node, f"vector mode for a whole derivative array {_root(node)} in a statement")
        return None

    def whole(self, arg: Node, rank_of, to_array: bool = False) -> Node:
        """xd, xd + k, &xd[k], &td, td (a by-value derivative), sd, &sd, sd.x all pass every
        direction as they are."""
        return arg


def _is_direction_loop(stmt: Node) -> bool:
    return stmt.op == "do" and stmt.kids[0] == mk("ident", DIRECTION)


def _where_chain(where: Node) -> list:
    """WHERE (m1) B1 ELSEWHERE (m2) B2 ... ELSEWHERE Bn as [((m1,), B1), ((m2,), B2), ..., ((), Bn)]."""
    chain = []
    while True:
        mask, block, els = where.kids
        chain.append(((mask,), block))
        if els is None:
            return chain
        if len(els.kids) == 1 and els.kids[0].op == "where" and not els.kids[0].ann.get("label"):
            where = els.kids[0]
            continue
        chain.append(((), els))
        return chain


def _segments(block: Node) -> list:
    """The statements of a block as its direction loops and lists of the statements between."""
    out, pending = [], []
    for stmt in block.kids:
        if _is_direction_loop(stmt):
            out += [pending, stmt] if pending else [stmt]
            pending = []
        else:
            pending.append(stmt)
    return out + ([pending] if pending else [])


def _shape(expr: Node, dims: dict):
    """The dimensions of an elemental array expression, those of an array it reads whole when
    they are explicit (None if it reads none, or a section)."""
    if expr.op == "arrayAccess":
        return None
    if expr.op == "ident":
        shape = dims.get(expr.kids[0])
        explicit = shape and all(d.op == "dim" and d.kids[1] is not None for d in shape)
        return tuple(shape) if explicit else None
    shapes = [_shape(k, dims) for k in expr.kids if isinstance(k, Node) and k.op != "intrinsic"]
    return next((s for s in shapes if s is not None), None)


def _rebuilt(stmt: Node, chain: list, blocks: list) -> Node:
    """The FORALL or WHERE of `chain` (_where_chain, or a FORALL's [((ranges, mask), body)]) with
    its blocks replaced by `blocks` (a WHERE chain cut after the last block given)."""
    ann = stmt.ann.discard("label")  # the parts of a split construct
    if stmt.op == "forall":
        return Node("forall", (*chain[0][0], blocks[0]), ann)
    els = None
    for (controls, _), block in reversed(list(zip(chain, blocks))):
        els = mk("block", Node("where", (controls[0], block, els), ann)) if controls else block
    return els.kids[0]


def _aggregate_zero(init) -> bool:
    """No initial value, or C's `{0}` (tangent: the zero of a struct's or an array's derivative)."""
    return init is None or init.op == "arrayConstructor"


def _leaf(ref: Node, indexed) -> Node:
    """A real derivative named whole, with the subscripts of the structure it is in indexed."""
    return ref.with_kids(indexed(ref.kids[0]), ref.kids[1]) if ref.op == "fieldAccess" else ref


def _names(node: Node) -> set:
    return {n.kids[0] for n in walk(node) if n.op == "ident"}


def _root(ref: Node) -> str | None:
    while isinstance(ref, Node) and ref.op in ("arrayAccess", "fieldAccess", "deref", "address"):
        ref = ref.kids[0]
    return ref.kids[0] if isinstance(ref, Node) and ref.op == "ident" else None


# --- partials computed once for all directions ------------------------------------------------
_ARITHMETIC = frozenset({"add", "sub", "mul", "div", "power", "neg", "pos"})
_LEAVES = frozenset({"ident", "intCst", "realCst", "arrayAccess", "boolCst", "fieldAccess"})


def _variable_types(decls, body) -> dict:
    """name -> (type node, is an array), for the variables the procedure declares (C: in its
    body too). A pointer counts as an array."""
    return {x.kids[0]: (d.kids[0], bool(x.kids[1]) or bool(x.kids[3]))
            for d in walk((tuple(decls), body)) if d.op == "varDecl" for x in d.kids[2]}


def _keeps_type(intrinsic: str) -> bool:
    """An elemental function whose value has its arguments' type (sin, exp, max, atan2...):
    in the table, with a derivative through every argument; not a conversion."""
    entry = derivative(intrinsic, "fortran")
    return entry is not None and not entry.linear and not entry.inactive and not entry.all_inactive


class _NotHoisted(Exception):
    pass


class _Hoister:
    """Moves the direction-independent partials of a run of derivative statements out of
    its direction loop, into temporaries assigned just before the loop. Only arithmetic is
    searched (a partial under `merge` or a call stays put), and only a scalar expression of
    one known real type, with no call but to an intrinsic, is moved: it then has the same
    value in the temporary as in place."""

    def __init__(self, types: dict, arrays: dict, temp, structures: TypeTable):
        self.types, self.arrays, self.temp = types, arrays, temp
        self.structures = structures  # the program's structure types: the types of components
        self.temps: list = []  # (name, type) to declare

    def partials_of(self, run: list, out: list) -> list:
        """The run with its partials replaced by temporaries; their assignments go to out.
        A derivative statement writes no original variable, so each partial has the same
        value before the loop as in it."""
        given: dict = {}
        return [self._statement(stmt, given, out) for stmt in run]

    def _statement(self, stmt: Node, given: dict, out: list) -> Node:
        if stmt.op != "assign" or not self._varies(stmt.kids[1]):
            return stmt
        return stmt.with_kids(stmt.kids[0], self._expr(stmt.kids[1], given, out))

    def _expr(self, expr: Node, given: dict, out: list) -> Node:
        if expr.op not in _ARITHMETIC:
            return expr
        kids = []
        for kid in expr.kids:
            if self._varies(kid):
                kids.append(self._expr(kid, given, out))
            elif kid.op not in _LEAVES and (typ := self._type_of(kid)) is not None:
                kids.append(self._temporary(kid, typ, given, out))
            else:
                kids.append(kid)
        return expr.with_kids(*kids)

    def _temporary(self, partial: Node, typ: Node, given: dict, out: list) -> Node:
        name = given.get(partial)
        if name is None:
            name = given[partial] = self.temp("temp")
            self.temps.append((name, typ))
            out.append(mk("assign", mk("ident", name), partial))
        return mk("ident", name)

    def _varies(self, expr: Node) -> bool:
        return any(n.op == "ident" and n.kids[0] in self.arrays for n in walk(expr))

    def _type_of(self, expr: Node) -> Node | None:
        """The type of a scalar expression whose variables all have one real type; None for
        anything else (an integer, an array, a call that may have effects)."""
        try:
            found = set(self._value_types(expr))
        except _NotHoisted:
            return None
        typ = found.pop() if len(found) == 1 else None
        return typ if typ is not None and typ.kids[0] in ("real", "double") else None

    def _value_types(self, expr: Node):
        op = expr.op
        if op in ("intCst", "realCst"):
            return
        if op in _ARITHMETIC or (op == "intrinsic" and _keeps_type(expr.kids[0])):
            for kid in (expr.kids if op != "intrinsic" else expr.kids[1]):
                yield from self._value_types(kid)
            return
        typ, is_array = self._reference_type(expr)
        if is_array:
            raise _NotHoisted
        yield typ

    def _reference_type(self, ref: Node) -> tuple:
        """(type, is an array) of a variable, an element, a component (C: p->x too)."""
        if ref.op == "ident" and ref.kids[0] in self.types:
            return self.types[ref.kids[0]]
        if ref.op == "arrayAccess" and not any(i.op == "arrayTriplet" for i in ref.kids[1]):
            typ, is_array = self._reference_type(ref.kids[0])
            if is_array:
                return typ, False
        if ref.op == "fieldAccess":
            base = ref.kids[0]
            typ, is_array = self._reference_type(base.kids[0] if base.op == "deref" else base)
            if is_array == (base.op == "deref"):
                ftype, declarator = self.structures.fields(typ).get(ref.kids[1], (None, None))
                if ftype is not None:
                    return self.structures.resolve(ftype), bool(declarator.kids[1]) or bool(declarator.kids[3])
        raise _NotHoisted
