"""Zones: the memory locations the data-flow analyses reason about (paper 5.1, section 3).

The contract flowgraph, callgraph, effects and the analyses rely on:

A zone is a small int. A scalar or an array gets one zone (arrays are atoms); a variable of a
structured type gets one zone per field, recursively (`v%x`, `v%p%y`; C `v.x`); a COMMON block
is split into fragments at every boundary where some procedure's declaration of it places a
member, and each fragment is a zone; EQUIVALENCEd variables share their zones, and so do the
fields of a C union (one zone per union variable, never killed by a field write); C enumerators
are named constants. A C pointer
variable `p` is itself a (non-differentiable) zone, and what it may point to is found by a
flow-insensitive points-to pass: `&v` -> v's zones, a pointer formal `double *x` -> its own
pointee zone `*x`, an allocate/malloc/cudaMalloc site -> a heap zone per site, `q`/`q + k` ->
q's targets.
A Fortran POINTER likewise points to the zones of its `=>` targets (or its own pointee zone
when it is a formal). Sets of zones are int bitsets (engine/bitsets.py).

Numbering: zones of global storage (COMMON fragments, module variables, C globals) come first
and are numbered once for the whole program, so that a global zone has the same number in
every procedure; each procedure then numbers its formals (in argument order, fields
expanded), its function result, its locals, and the temporaries added by the flow-graph builder.

Implementation choices (beyond the interface):
- Host association: a variable of a host procedure that one of its internal procedures uses is
  numbered as a global zone, so host and internal procedure share its number (and call-site
  translation needs nothing special). Its kind is "global". For the host itself it is still its
  own formal, result or local (`ZoneMap.host_shared`): a caller of the host does not share it
  (`caller_globals_mask`), a formal is translated to the caller's actual like any formal.
- A global C pointer (or Fortran module pointer) gets a global pointee zone `*g`: what it points
  to when set outside the procedure; assignments `g = &v` inside a procedure add v.
- A pointer whose value comes from an unknown function call may point to every pointee and heap
  zone of the procedure (and the `&`-taken variables); from a call to a procedure returning a
  pointer to a structure type, to those of that type, or to a heap zone of the call site (memory
  the callee allocated). A field access skips targets of another structure type.
- Points-to is intraprocedural: a callee setting a pointer through `&p` is not seen; a local
  structure's pointer fields point to a pointee zone of their own too (`*m.data`), which stands
  for what a callee it is passed to sets them to (mat_alloc(&m)).
- Zone of a pointer: type `pointerType(T)` (not differentiable). Named constants (Fortran
  PARAMETER) and procedure names have no zone: they read as nothing.
"""
from __future__ import annotations

from dataclasses import dataclass

from .errors import SourceError, UnsupportedError
from .constants import int_constant
from .il import Node, mk, walk, walk_statements
from .intrinsics import INQUIRY_INTRINSICS, differentiable_args

ZONE_KINDS = ("global", "formal", "result", "local", "temp", "pointee", "heap")
UNION_STYLES = frozenset(("union", "typedefUnion"))


@dataclass(frozen=True)
class Zone:
    index: int
    name: str            # readable: "x", "v%x", "/blk/ omega", "*p", "heap@12", "f_result1"
    var: str | None      # the variable it belongs to (None for heap and common fragments)
    type: Node | None    # elementary IL type of its values (None: unknown)
    is_array: bool
    kind: str            # one of ZONE_KINDS
    formal: int | None = None   # position of the formal argument it belongs to (kind formal/pointee)

    @property
    def differentiable(self) -> bool:
        """Real or complex values (or unknown type): may carry a derivative. Pointers do not."""
        t = self.type
        if t is None:
            return True
        if t.op == "type":
            return t.kids[0] in ("real", "complex")
        return t.op != "pointerType"


@dataclass(frozen=True)
class RefZones:
    """The zones a memory reference denotes, and whether it covers them all completely
    (a scalar or a whole array: True; an element, a section, a field of one element of an
    array of structures, or a pointer that may point to several places: False)."""
    zones: int
    total: bool


# ---------------------------------------------------------------------------------------------
# Locations: the tree of zones of one variable (fields, pointer leaves)
# ---------------------------------------------------------------------------------------------
class Loc:
    """The storage of a variable or of a part of it: a leaf (one zone, or several COMMON
    fragments) or a structure (fields). A pointer leaf's zone holds the pointer value; what it
    points to is in ZoneMap.pts."""
    __slots__ = ("name", "all", "zone", "fields", "is_array", "ndims", "pointer", "fortran_pointer",
                 "target_type", "target_ptr", "target_dims", "scope", "partial", "structure")

    def __init__(self, name, all_zones=0, zone=None, fields=None, is_array=False, ndims=0):
        self.name, self.all, self.zone, self.fields = name, all_zones, zone, fields
        self.is_array, self.ndims = is_array, ndims
        self.pointer = self.fortran_pointer = False
        self.target_type = self.target_dims = self.scope = None
        self.target_ptr = 0
        self.partial = False      # shares its zones with other storage: never totally written
        self.structure = None     # the name of its structure type (a Loc with fields)

    def __repr__(self):
        return f"Loc({self.name})"

    def pointer_leaves(self):
        if self.pointer:
            yield self
        elif self.fields:
            for f in self.fields.values():
                yield from f.pointer_leaves()


class _Numbering:
    """Creates zones and the Loc trees of declared variables."""

    def __init__(self, zones: list, lang: str, filename: str):
        self.zones, self.lang, self.filename = zones, lang, filename

    def new_zone(self, name, var, typ, is_array, kind, formal=None) -> int:
        z = len(self.zones)
        self.zones.append(Zone(z, name, var, typ, is_array, kind, formal))
        return z

    def field_name(self, base: str, field: str) -> str:
        if self.lang == "fortran":
            return f"{base}%{field}"
        return f"{base[1:]}->{field}" if base.startswith("*") else f"{base}.{field}"

    def make(self, name, var, typ, ptr, dims, fpointer, scope, kind, formal=None, is_array=False,
             depth=0) -> Loc:
        """The Loc of a variable (or field) of IL type `typ`, `ptr` C stars, `dims`."""
        if depth > 20:
            raise UnsupportedError(f"type of {var!r} nests too deeply", self.filename)
        base, extra_ptr, scope = resolve_type(typ, scope)
        ptr += extra_ptr
        ndims = len(dims) if dims else 0
        is_array = is_array or ndims > 0
        if ptr > 0 or fpointer:
            target = typ if extra_ptr == 0 else _strip_pointer(typ, scope)
            z = self.new_zone(name, var, mk("pointerType", base if base.op != "typeDef" else mk("typeRef", base.kids[0])),
                              is_array, kind, formal)
            loc = Loc(name, 1 << z, z, None, is_array, ndims)
            loc.pointer, loc.fortran_pointer = True, bool(fpointer)
            loc.target_type, loc.target_ptr, loc.scope = target, max(ptr - 1, 0), scope
            loc.target_dims = dims if fpointer else None
            return loc
        if base.op == "typeDef" and base.kids[2] in UNION_STYLES:
            return self.union(name, var, base, kind, formal, is_array, ndims)
        if base.op == "typeDef":
            fields = {}
            for decl in base.kids[1]:
                if decl.op != "varDecl":
                    continue
                ftype, fattrs, fdecls = decl.kids
                for d in fdecls:
                    fname, fdims, _, fptr = d.kids
                    fields[fname] = self.make(self.field_name(name, fname), var, ftype, fptr, fdims,
                                              "pointer" in fattrs, scope, kind, formal, is_array, depth + 1)
            loc = Loc(name, 0, None, fields, is_array, ndims)
            loc.structure = base.kids[0]
            for f in fields.values():
                loc.all |= f.all
            return loc
        z = self.new_zone(name, var, base, is_array, kind, formal)
        return Loc(name, 1 << z, z, None, is_array, ndims)

    def union(self, name, var, tdef: Node, kind, formal, is_array, ndims) -> Loc:
        """A C union: ONE zone for all its fields (they share their bytes, like EQUIVALENCE);
        a write to a field never kills it. Real if any field is real, so it stays
        differentiable."""
        members = [(d.kids[0], decl.kids[0], d.kids[1]) for decl in tdef.kids[1] if decl.op == "varDecl"
                   for d in decl.kids[2]]
        typ = next((t for _, t, _ in members if t.op == "type" and t.kids[0] in ("real", "complex")),
                   members[0][1] if members else None)
        is_array = is_array or any(dims for _, _, dims in members)
        z = self.new_zone(name, var, typ, is_array, kind, formal)
        fields = {}
        for fname, _, fdims in members:
            f = fields[fname] = Loc(self.field_name(name, fname), 1 << z, z, None, is_array, len(fdims or ()))
            f.partial = True
        return Loc(name, 1 << z, None, fields, is_array, ndims)

    def pointee(self, ptr_loc: Loc, kind, formal, is_array, memo: dict) -> Loc:
        """The zone(s) a pointer coming from outside points to (`*p`), with the pointees of
        its own pointers; pointees of the same type are shared to cut recursive types."""
        key = (ptr_loc.target_type, ptr_loc.target_ptr)
        if key in memo:
            return memo[key]
        name = "*" + ptr_loc.name
        var = self.zones[ptr_loc.zone].var
        dims = ptr_loc.target_dims
        loc = self.make(name, var, ptr_loc.target_type, ptr_loc.target_ptr, dims, False, ptr_loc.scope,
                        kind, formal, is_array or bool(dims))
        memo[key] = loc
        return loc


def resolve_type(typ: Node | None, scope) -> tuple[Node, int, object]:
    """(elementary type or typeDef node, extra C pointer depth from typedefs, scope of the
    definition). An unknown type name stays a typeRef (an opaque, maybe differentiable zone)."""
    extra = 0
    for _ in range(50):
        if typ is None:
            return mk("type", "real", None, None), extra, scope
        if typ.op == "pointerType":
            extra += 1
            typ = typ.kids[0]
            continue
        if typ.op != "typeRef" or scope is None:
            return typ, extra, scope
        owner, name_there = scope.owner_of(typ.kids[0])
        sym = owner.symbols.get(name_there) if owner is not None else None
        if sym is None or sym.kind != "type":
            return typ, extra, scope
        if sym.node is not None and sym.node.op == "typeDef":
            return sym.node, extra, owner
        typ, scope = sym.type, owner
    raise UnsupportedError(f"circular type definition {typ.kids[0]!r}")


def _strip_pointer(typ, scope):
    """The pointed-to type of a typedef'd pointer type."""
    base, extra, scope = resolve_type(typ, scope)
    t = base if base.op != "typeDef" else mk("typeRef", base.kids[0])
    for _ in range(extra - 1):
        t = mk("pointerType", t)
    return t


# ---------------------------------------------------------------------------------------------
# Constant integer expressions (array bounds, COMMON member sizes)
# ---------------------------------------------------------------------------------------------
def const_int(e: Node | None, scope) -> int | None:
    """The value of an integer constant expression (literals, named constants), else None."""
    visiting = set()

    def named(name):
        sym = scope.lookup(name) if scope is not None else None
        if sym is None or not sym.is_constant or sym.init is None or name in visiting:
            return None
        visiting.add(name)
        value = int_constant(sym.init, named)
        visiting.discard(name)
        return value

    return int_constant(e, named)


def byte_size(typ: Node | None, dims, scope, depth: int = 0) -> int | None:
    """Bytes of storage of a Fortran entity, or None when not constant."""
    if depth > 20:
        return None
    base, _, tscope = resolve_type(typ, scope)
    if base.op == "typeDef":
        elem = 0
        for decl in base.kids[1]:
            if decl.op != "varDecl":
                continue
            for d in decl.kids[2]:
                s = byte_size(decl.kids[0], d.kids[1], tscope, depth + 1)
                if s is None or "pointer" in decl.kids[1]:
                    return None
                elem += s
    elif base.op == "type":
        b, kind, length = base.kids
        if b == "character":
            elem = 1 if length is None else const_int(length, scope)
        elif b == "complex":
            elem = 2 * (kind or 4)
        else:
            elem = kind or 4
        if elem is None:
            return None
    else:
        return None
    for d in dims or ():
        lo = 1 if d.kids[0] is None else const_int(d.kids[0], scope)
        hi = const_int(d.kids[1], scope) if d.kids[1] is not None and d.kids[1].op != "star" else None
        if lo is None or hi is None:
            return None
        elem *= max(hi - lo + 1, 0)
    return elem


# ---------------------------------------------------------------------------------------------
# The zone map of one procedure
# ---------------------------------------------------------------------------------------------
_REF_OPS = frozenset(("ident", "arrayAccess", "fieldAccess", "deref"))
_ARITH_DIFF_OPS = frozenset(("add", "sub", "mul", "div", "power", "neg", "pos"))
_NON_DIFF_OPS = frozenset(("eq", "ne", "lt", "le", "gt", "ge", "and", "or", "eqv", "neqv", "not",
                           "concat", "bitAnd", "bitOr", "bitXor", "lShift", "rShift", "bitNot", "mod",
                           "address", "sizeof", "intCst", "realCst", "boolCst", "stringCst", "star"))


class ZoneMap:
    """The zones visible in one procedure (its own and all the program's global zones).

    Attributes: zones (list[Zone], index = zone number), n_globals, formal_zones (list of bitsets,
    one per formal argument position: all zones of that formal incl. fields and pointee),
    result_zone (int or None: Fortran function result / C return value), result_zones (bitset:
    all zones of the result, the components of a structure included; 0 if none), globals_mask,
    locals_mask (bitset of local + temp zones: invisible to callers), differentiable_mask,
    host_shared (this procedure's own variables numbered as globals because its internal
    procedures use them), caller_globals_mask (globals_mask without host_shared: the global
    zones a caller shares with this procedure).

    Methods:
      var_zones(name) -> int         all zones of a named variable visible here (fields included)
      ref(expr) -> RefZones          the memory a reference expression (ident, arrayAccess,
                                     fieldAccess, deref, ...) denotes; raise SourceError if expr is
                                     not a reference
      reads(expr, call_results) -> int      zones read to evaluate expr (values, indices, pointer
                                     values); a `call` node whose id() is in call_results reads that
                                     temporary zone instead of being analysed
      address_reads(expr, call_results) -> int   zones read only for address computation of a
                                     reference expr (indices of the lhs, pointer values)
      diff_reads(expr, call_results) -> int zones whose value flows differentiably into expr's value:
                                     excludes indices and addresses, arguments of non-differentiable
                                     intrinsics (int, nint, floor, ...: engine.intrinsics), conditions
                                     of ifExpr, and zones that are not differentiable
      add_temp(name, type) -> int    a new temporary zone (for split function calls)
      describe(s: int) -> str        "a, b(:), x" : readable names of a set

    Extra methods: is_ref(expr), targets(expr) (zones a pointer-valued expression may point to),
    pointer_ref(expr) (the pointer zones themselves, for `p => ...` / allocate of a pointer).
    """

    def __init__(self, name: str, lang: str, filename: str, global_zones: list, n_globals: int):
        self.name, self.lang, self.filename = name, lang, filename
        self.zones: list[Zone] = list(global_zones)
        self.n_globals = n_globals
        self.globals_mask = (1 << n_globals) - 1
        self.formal_zones: list[int] = []
        self.result_zone: int | None = None
        self.result_zones = 0
        self.locals_mask = 0
        self.host_shared = 0
        self.differentiable_mask = 0
        for z in global_zones:
            if z.differentiable:
                self.differentiable_mask |= 1 << z.index
        self.vars: dict[str, Loc] = {}
        self.no_zone: set[str] = set()        # named constants, procedures: read as nothing
        self.pts: dict[int, frozenset] = {}   # pointer zone -> Locs it may point to
        self.heap: dict[int, Loc] = {}        # id(allocate node) -> heap Loc
        self.unknown_targets: frozenset = frozenset()
        self.call_targets: dict = {}          # id(call returning a structure pointer) -> its Locs
        self.returned: dict = {}              # the heap Loc of such a call -> the callee's name
        self._numbering = _Numbering(self.zones, lang, filename)
        self._frozen = False
        self._ref_cache: dict = {}
        self._reads_memo: dict = {}           # id(node) -> (node, call_results, zones): see _remembered_reads
        self._diff_reads_memo: dict = {}      # the same for diff_reads
        self.effects_cache: dict = {}         # used by engine.effects: id(Instr) -> (Instr, Effects)

    def __repr__(self):
        return f"ZoneMap({self.name}: {len(self.zones)} zones)"

    # --- zone creation ----------------------------------------------------------------------
    def _new_loc(self, name, typ, ptr, dims, fpointer, scope, kind, formal=None) -> Loc:
        start = len(self.zones)
        loc = self._numbering.make(name, name, typ, ptr, dims, fpointer, scope, kind, formal)
        self._register_range(start, kind)
        return loc

    def _register_range(self, start: int, kind: str):
        for z in range(start, len(self.zones)):
            if self.zones[z].differentiable:
                self.differentiable_mask |= 1 << z
            if kind in ("local", "temp"):
                self.locals_mask |= 1 << z

    def add_temp(self, name: str, type: Node | None) -> int:
        z = self._numbering.new_zone(name, name, type, False, "temp")
        self._register_range(z, "temp")
        self.vars[name] = Loc(name, 1 << z, z)
        return z

    # --- queries ----------------------------------------------------------------------------
    @property
    def caller_globals_mask(self) -> int:
        return self.globals_mask & ~self.host_shared

    def var_zones(self, name: str) -> int:
        loc = self.vars.get(name)
        return 0 if loc is None else loc.all

    def describe(self, s: int) -> str:
        out = []
        for z in _bits(s):
            zone = self.zones[z]
            suffix = ("(:)" if self.lang == "fortran" else "[]") if zone.is_array else ""
            out.append(zone.name + suffix)
        return ", ".join(out)

    def is_ref(self, e) -> bool:
        return isinstance(e, Node) and e.op in _REF_OPS

    def ref(self, e: Node) -> RefZones:
        items, total = self._ref(e)
        s = 0
        for loc, _ in items:
            s |= loc.all
        return RefZones(s, total and bool(items))

    def pointer_ref(self, e: Node) -> RefZones:
        """The pointer zones a Fortran pointer reference (no automatic dereference) or a C
        pointer lvalue denotes: the lhs of `=>`, the target of allocate/deallocate."""
        items, total = self._ref_raw(e)
        s = 0
        for loc, _ in items:
            s |= loc.all
        return RefZones(s, total and bool(items))

    def targets(self, e: Node) -> int:
        """Zones that the pointer value of expression e may point to."""
        s = 0
        for loc in self._value_targets(e):
            s |= loc.all
        return s

    def _error(self, message, e):
        raise SourceError(message, self.filename, e.line if isinstance(e, Node) else None)

    # --- references ---------------------------------------------------------------------------
    def _ref(self, e):
        """(items, total) after Fortran automatic dereference of pointers; items are
        (Loc, array dims left to index) pairs."""
        if self._frozen:
            hit = self._ref_cache.get(e)
            if hit is not None:
                return hit
        items, total = self._ref_raw(e)
        if self.lang == "fortran" and any(loc.fortran_pointer for loc, _ in items):
            items, total = self._auto_deref(items, total)
        if self._frozen:
            self._ref_cache[e] = (items, total)
        return items, total

    def _auto_deref(self, items, total):
        out = []
        for loc, d in items:
            if loc.fortran_pointer:
                targets = self.pts.get(loc.zone, ())
                total = total and len(targets) == 1 and len(items) == 1
                for t in targets:
                    total = total and not t.is_array
                    out.append((t, t.ndims))
            else:
                out.append((loc, d))
        return tuple(out), total

    def _ref_raw(self, e):
        op = e.op if isinstance(e, Node) else None
        if op == "ident":
            name = e.kids[0]
            loc = self.vars.get(name)
            if loc is None:
                if name in self.no_zone:
                    return (), True
                self._error(f"unknown variable {name!r} in {self.name}", e)
            return ((loc, loc.ndims),), not loc.partial
        if op == "arrayAccess":
            base, indices = e.kids
            items, total = self._ref(base)
            out = []
            c = self.lang == "c"
            for loc, d in items:
                if c and d == 0 and loc.pointer:
                    # C has no pointer to an array here: p[i] is one element of any target
                    # (`p = &m[2][1]` into a 2-D m included)
                    out.extend((t, 0) for t in self.pts.get(loc.zone, ()))
                else:
                    out.append((loc, d - 1 if c and d > 0 else 0))
            full = not c and all(i.op == "arrayTriplet" and i.kids == (None, None, None) for i in indices)
            return tuple(out), total and full
        if op == "fieldAccess":
            base, field = e.kids
            items, total = self._ref(base)
            out = []
            # a pointer the analysis cannot resolve to one type may hold targets of other
            # structure types: C's typing says they are not what the access reaches
            typed = [loc for loc, _ in items if loc.fields is not None and field in loc.fields]
            for loc, _ in items:
                if loc.fields is None:
                    out.append((loc, 0))      # opaque storage: a COMMON member, unknown type
                    total = False
                    continue
                sub = loc.fields.get(field)
                if sub is None:
                    if typed:
                        total = False
                        continue
                    self._error(f"{loc.name!r} has no field {field!r}", e)
                out.append((sub, sub.ndims))
                total = total and not sub.partial   # a union field shares its zone
            return tuple(out), total
        if op == "deref":
            targets = self._value_targets(e.kids[0])
            items = tuple((t, 0 if self.lang == "c" else max(t.ndims - 1, 0)) for t in targets)
            return items, len(items) == 1 and not items[0][0].is_array
        if op == "cast" and self.lang == "c":
            return self._ref_raw(e.kids[1])
        self._error(f"not a memory reference: {_show(e)}", e)

    def _value_targets(self, e) -> frozenset:
        """The Locs a pointer-valued expression may point to."""
        op = e.op if isinstance(e, Node) else None
        if op == "address":
            items, _ = self._ref(e.kids[0])
            return frozenset(loc for loc, _ in items)
        if op in _REF_OPS:
            items, _ = self._ref(e)
            out = set()
            for loc, d in items:
                if d > 0 and self.lang == "c":
                    out.add(loc)              # an array decays to a pointer to itself
                elif loc.pointer:
                    out |= self.pts.get(loc.zone, frozenset())
            return frozenset(out)
        if op in ("add", "sub"):
            return self._value_targets(e.kids[0]) | self._value_targets(e.kids[1])
        if op == "cast":
            return self._value_targets(e.kids[1])
        if op == "ifExpr":
            return self._value_targets(e.kids[1]) | self._value_targets(e.kids[2])
        if op == "call":
            return self.call_targets.get(id(e), self.unknown_targets)
        if op == "intrinsic" and e.kids[0] != "null":
            return self.unknown_targets
        return frozenset()

    # --- reads ----------------------------------------------------------------------------------
    def reads(self, e, call_results=None) -> int:
        if type(e) is Node and self._frozen:
            hit = self._reads_memo.get(id(e))   # see _remembered_reads
            if hit is not None and hit[0] is e and hit[1] is call_results:
                return hit[2]
            return self._remembered_reads(self._reads, self._reads_memo, e, call_results)
        return self._reads(e, call_results)

    def diff_reads(self, e, call_results=None) -> int:
        if type(e) is Node and self._frozen:
            hit = self._diff_reads_memo.get(id(e))
            if hit is not None and hit[0] is e and hit[1] is call_results:
                return hit[2]
            return self._remembered_reads(self._diff_reads, self._diff_reads_memo, e, call_results)
        return self._diff_reads(e, call_results)

    @staticmethod
    def _remembered_reads(compute, memo: dict, e: Node, call_results) -> int:
        """The zones a tree reads, kept per node (by identity, with the node: the calls it
        holds are told apart by identity in call_results). The rules ask again about every
        sub-tree of an expression, and the partial derivatives hold the operands' trees.
        reads and diff_reads look the memo up themselves (most calls are hits); this computes
        and keeps a miss."""
        zones = compute(e, call_results)
        memo[id(e)] = (e, call_results, zones)
        return zones

    def _reads(self, e, call_results=None) -> int:
        if not isinstance(e, Node):
            if isinstance(e, tuple):
                s = 0
                for x in e:
                    s |= self.reads(x, call_results)
                return s
            return 0
        op = e.op
        if op in _REF_OPS:
            items, _ = self._ref(e)
            s = self.address_reads(e, call_results)
            c = self.lang == "c"
            for loc, d in items:
                if not (c and d > 0):      # a C array in a value context is its address
                    s |= loc.all
            return s
        if op == "address":
            return self.address_reads(e.kids[0], call_results)
        if op == "call":
            if call_results and id(e) in call_results:
                return 1 << call_results[id(e)]
            return self.reads(e.kids[1], call_results)
        if op == "intrinsic":
            if e.kids[0] in INQUIRY_INTRINSICS:
                s = 0
                for a in e.kids[1]:
                    a = a.kids[1] if a.op == "namedArg" else a
                    s |= self.address_reads(a, call_results) if a.op in _REF_OPS else self.reads(a, call_results)
                return s
            return self.reads(e.kids[1], call_results)
        if op in ("sizeof", "intCst", "realCst", "boolCst", "stringCst", "star"):
            return 0
        if op == "cast":
            return self.reads(e.kids[1], call_results)
        s = 0
        for k in e.kids:
            if isinstance(k, (Node, tuple)):
                s |= self.reads(k, call_results)
        return s

    def address_reads(self, e, call_results=None, deref: bool = True) -> int:
        """Zones read to compute the address of reference e (0 for a non-reference). With
        deref=False the pointer zone of a Fortran pointer reference itself is not counted (the
        lhs of `=>`)."""
        op = e.op if isinstance(e, Node) else None
        if op not in _REF_OPS and op != "cast":
            return 0
        s = 0
        if op == "arrayAccess":
            base, indices = e.kids
            s = self.address_reads(base, call_results) | self.reads(indices, call_results)
            if self.lang == "c":
                for loc, d in self._ref(base)[0]:
                    if d == 0 and loc.pointer:
                        s |= loc.all
        elif op == "fieldAccess":
            s = self.address_reads(e.kids[0], call_results)
        elif op == "deref":
            s = self.reads(e.kids[0], call_results)
        elif op == "cast":
            s = self.address_reads(e.kids[1], call_results)
        if deref and self.lang == "fortran":
            for loc, _ in self._ref_raw(e)[0] if not self._frozen else self._raw_cached(e):
                if loc.fortran_pointer:
                    s |= loc.all
        return s

    def _raw_cached(self, e):
        key = ("raw", e)
        hit = self._ref_cache.get(key)
        if hit is None:
            hit = self._ref_cache[key] = self._ref_raw(e)[0]
        return hit

    def _diff_reads(self, e, call_results=None) -> int:
        if not isinstance(e, Node):
            if isinstance(e, tuple):
                s = 0
                for x in e:
                    s |= self.diff_reads(x, call_results)
                return s
            return 0
        op = e.op
        if op in _REF_OPS:
            items, _ = self._ref(e)
            s = 0
            c = self.lang == "c"
            for loc, d in items:
                if not (c and d > 0):
                    s |= loc.all
            return s & self.differentiable_mask
        if op in _ARITH_DIFF_OPS or op in ("arrayConstructor", "complexCst"):
            return self.diff_reads(e.kids, call_results)
        if op == "impliedDo":      # its items' values; the loop control is integer
            return self.diff_reads(e.kids[0], call_results)
        if op in _NON_DIFF_OPS:
            return 0
        if op == "namedArg":
            return self.diff_reads(e.kids[1], call_results)
        if op == "ifExpr":
            return self.diff_reads(e.kids[1], call_results) | self.diff_reads(e.kids[2], call_results)
        if op == "cast":
            t = e.kids[0]
            if t.op == "pointerType" or (t.op == "type" and t.kids[0] not in ("real", "complex")):
                return 0
            return self.diff_reads(e.kids[1], call_results)
        if op == "call":
            if call_results and id(e) in call_results:
                return (1 << call_results[id(e)]) & self.differentiable_mask
            return self.diff_reads(e.kids[1], call_results)
        if op == "intrinsic":
            name, args = e.kids
            s = 0
            for i in differentiable_args(name, len(args), self.lang):
                s |= self.diff_reads(args[i], call_results)
            return s
        return 0      # arrayTriplet and anything else: no differentiable value


def _bits(s: int):
    while s:
        low = s & -s
        yield low.bit_length() - 1
        s ^= low


def _show(e) -> str:
    from .il import sexpr
    text = sexpr(e.without_ann()) if isinstance(e, Node) else repr(e)
    return text if len(text) < 80 else text[:77] + "..."


# ---------------------------------------------------------------------------------------------
# Building the zone maps of a program
# ---------------------------------------------------------------------------------------------
def build_zone_maps(program) -> None:
    """Give every procedure of `program` (engine.callgraph.Program) its ZoneMap
    (procedure.zones), with the global zones numbered once for the whole program."""
    procs = list(program.procedures.values())
    root = getattr(program, "root_scope", None)
    if root is None and procs:
        root = procs[0].scope
        while root.parent is not None:
            root = root.parent
    builder = _GlobalBuilder(root, procs)
    builder.build()
    for p in procs:
        p.zones = _ProcedureBuilder(p, builder).build()
    builder.share_global_targets(procs)
    for attr, value in (("n_globals", len(builder.zones)), ("global_zones", builder.zones)):
        try:
            setattr(program, attr, value)
        except AttributeError:
            pass


def _referenced_names(node: Node) -> list[str]:
    """Identifiers used in a procedure's declarations and body (not its contained units nor
    its interface bodies, whose names are their own dummies), in order of first appearance."""
    seen = {}
    stack = [node.kids[6], node.kids[7]]
    while stack:
        x = stack.pop()
        if isinstance(x, tuple):
            stack.extend(reversed(x))
        elif isinstance(x, Node):
            if x.op == "ident":
                seen.setdefault(x.kids[0], None)
            elif x.op != "interface":
                stack.extend(reversed(x.kids))
    return list(seen)


def _storage_owner(scope, name):
    """(symbol, scope declaring it) for a name seen from `scope` (maybe renamed by a USE)."""
    owner, name_there = scope.owner_of(name)
    return (owner.symbols[name_there], owner) if owner is not None else (None, None)


class _GlobalBuilder:
    """Numbers the global zones: module variables, C globals, COMMON fragments, host
    variables used by internal procedures."""

    def __init__(self, root, procs):
        self.root, self.procs = root, procs
        self.zones: list[Zone] = []
        lang = root.lang if root is not None else "fortran"
        self.numbering = _Numbering(self.zones, lang, root.filename if root is not None else "<input>")
        self.locs: dict[int, Loc] = {}               # id(Symbol) -> Loc
        self.common_members: dict[tuple, tuple] = {}  # (id(scope), name) -> (bitset, total, is_array)
        self.pts: dict[int, frozenset] = {}          # global pointer zone -> its pointee Loc(s)
        self.names: dict[int, list[str]] = {}        # id(proc node) -> referenced names
        self.host_shared: dict[int, int] = {}        # id(host scope) -> zones of its variables

    def build(self):
        if self.root is None:
            return
        for p in self.procs:
            self.names[id(p.node)] = _referenced_names(p.node)
        for scope in self._module_scopes():
            if scope.equivalences:
                raise UnsupportedError(f"EQUIVALENCE in module {scope.name}", scope.filename)
            self._scope_variables(scope)
        if self.root.lang == "c":
            self._scope_variables(self.root)
        self._commons()
        self._host_variables()

    def _module_scopes(self):
        seen, out = set(), []
        for scope in self.root.modules.values():
            if id(scope) not in seen:
                seen.add(id(scope))
                out.append(scope)
        return out

    def _add(self, sym, scope, name=None):
        loc = self.numbering.make(name or sym.name, sym.name, sym.type, sym.ptr, sym.dims,
                                  "pointer" in sym.attrs, scope, "global")
        memo: dict = {}       # one pointee per type within this variable (recursive types)
        stack = list(loc.pointer_leaves())
        while stack:
            leaf = stack.pop()
            if leaf.zone in self.pts:
                continue
            t = self.numbering.pointee(leaf, "global", None, True, memo)
            self.pts[leaf.zone] = frozenset((t,))
            stack.extend(t.pointer_leaves())
        self.locs[id(sym)] = loc
        return loc

    def _scope_variables(self, scope):
        for sym in list(scope.symbols.values()):
            if sym.is_storage and sym.common is None:
                self._add(sym, scope)

    def _commons(self):
        """Split every COMMON block at all member boundaries of all its declarations."""
        layouts: dict[str, list] = {}     # block -> [(scope, [(name, start, end or None, sym)])]
        scopes = [p.scope for p in self.procs] + self._module_scopes()
        for scope in scopes:
            for key, blk in scope.symbols.items():
                if blk.kind != "common":
                    continue
                members, offset = [], 0
                for name in blk.members:
                    sym = scope.symbols[name]
                    size = byte_size(sym.type, sym.dims, scope)
                    if size is None or offset is None:
                        members.append((name, None, None, sym))
                        offset = None
                    else:
                        members.append((name, offset, offset + size, sym))
                        offset += size
                layouts.setdefault(blk.name, []).append((scope, members))
        for block, decls in layouts.items():
            constant = all(s is not None for _, members in decls for _, s, _, _ in members)
            if constant:
                cuts = sorted({x for _, members in decls for _, s, e, _ in members for x in (s, e)})
            else:
                cuts = [0, 1]
            frag_zones = []
            for a, b in zip(cuts, cuts[1:]):
                covering = [(name, sym, s) for _, members in decls for name, s, e, sym in members
                            if not constant or (s <= a < e)]
                if not covering:
                    frag_zones.append(None)     # a hole between declarations: no storage used
                    continue
                name, sym, s = covering[0]
                typ = next((c[1].type for c in covering if c[1].type is not None and c[1].type.op == "type"
                            and c[1].type.kids[0] in ("real", "complex")), sym.type)
                if typ is not None and typ.op != "type":
                    typ = None
                label = f"{block} {name}" if not constant or s == a else f"{block} {name}+{a - s}"
                is_array = not constant or any(c[1].dims is not None for c in covering) \
                    or len({c[0] for c in covering}) > 1
                frag_zones.append(self.numbering.new_zone(label, None, typ, is_array, "global"))
            for scope, members in decls:
                for name, s, e, sym in members:
                    if constant:
                        bits = 0
                        for i, (a, b) in enumerate(zip(cuts, cuts[1:])):
                            if s <= a < e and frag_zones[i] is not None:
                                bits |= 1 << frag_zones[i]
                        total = True
                    else:
                        bits, total = 1 << frag_zones[0], len(members) == 1 and len(decls) == 1
                    self.common_members[(id(scope), name)] = (bits, total, sym.dims is not None or not constant)

    def _host_variables(self):
        """Host variables used by internal procedures become global zones."""
        for p in self.procs:
            scope = p.scope
            if scope.parent is None or scope.parent.kind != "procedure":
                continue
            for name in self.names[id(p.node)]:
                if name in scope.symbols:
                    continue
                sym, owner = _storage_owner(scope, name)
                if sym is None:
                    sym, owner = self._implicit_host_variable(scope.parent, name)
                if sym is None or owner.kind != "procedure" or not sym.is_storage:
                    continue
                if id(sym) in self.locs or sym.common is not None:
                    continue
                first = len(self.zones)
                self._add(sym, owner, name)      # its zones and those of its pointees
                new_zones = ((1 << len(self.zones)) - 1) & ~((1 << first) - 1)
                self.host_shared[id(owner)] = self.host_shared.get(id(owner), 0) | new_zones

    def _implicit_host_variable(self, host, name):
        """(symbol, host) when the host uses `name` undeclared, implicitly typed: then the
        internal procedure's `name` is the host's variable, declared here so both see it."""
        if name not in self.names.get(id(host.node), ()) or host.type_of(name) is None:
            return None, None
        from .symbols import Symbol
        sym = host.symbols[name] = Symbol(name, "variable", type=host.type_of(name))
        return sym, host

    def share_global_targets(self, procs):
        """A global pointer set to a global target in one procedure may point there in all."""
        extra: dict[int, set] = {}
        for p in procs:
            zm = p.zones
            for z, targets in zm.pts.items():
                if z < len(self.zones):
                    for t in targets:
                        if t.all and (t.all >> len(self.zones)) == 0:
                            extra.setdefault(z, set()).add(t)
        if not extra:
            return
        for p in procs:
            zm = p.zones
            changed = False
            for z, ts in extra.items():
                old = zm.pts.get(z, frozenset())
                new = old | ts
                if new != old:
                    zm.pts[z] = frozenset(new)
                    changed = True
            if changed:
                zm._ref_cache.clear()
                zm._reads_memo.clear()
                zm._diff_reads_memo.clear()


class _ProcedureBuilder:
    def __init__(self, proc, g: _GlobalBuilder):
        self.proc, self.g = proc, g
        self.scope = proc.scope
        self.node = proc.node
        lang = "c" if proc.lang in ("c", "cuda") else "fortran"
        self.zm = ZoneMap(proc.name, lang, self.scope.filename, g.zones, len(g.zones))
        self.zm.pts.update(g.pts)
        self.zm.host_shared = g.host_shared.get(id(self.scope), 0)

    def build(self) -> ZoneMap:
        zm, scope, node = self.zm, self.scope, self.node
        names = self.g.names.get(id(node)) or _referenced_names(node)
        indexed = None   # _indexed_names, a walk of the body: only for a formal with pointers
        # formals, in argument order
        for i, name in enumerate(self.proc.formals):
            sym = scope.symbols.get(name)
            if sym is None or not sym.is_storage:
                zm.formal_zones.append(0)
                zm.no_zone.add(name)
                continue
            loc = self.g.locs.get(id(sym))
            if loc is None:
                loc = zm._new_loc(name, sym.type, sym.ptr, sym.dims, "pointer" in sym.attrs, scope, "formal", i)
                memo: dict = {}     # one pointee per type within this formal (recursive types)
                for leaf in list(loc.pointer_leaves()):
                    if indexed is None:
                        indexed = self._indexed_names()
                    self._pointee(leaf, "pointee", i, name in indexed, memo)
            zm.vars[name] = loc
            zm.formal_zones.append(self._closure(loc))
        # function result
        if node.kids[1] == "function":
            if zm.lang == "c":
                rtype = node.kids[4]
                if rtype is not None and not (rtype.op == "type" and rtype.kids[0] == "void"):
                    zm.result_zone = zm._numbering.new_zone(f"{node.kids[0]}_result", None, _value_type(rtype, scope),
                                                            False, "result")
                    zm._register_range(zm.result_zone, "result")
                    zm.result_zones = 1 << zm.result_zone
            else:
                rname = node.kids[3] or node.kids[0]
                sym = scope.symbols.get(rname)
                loc = self.g.locs.get(id(sym)) if sym is not None else None
                if loc is None and sym is not None:
                    loc = zm._new_loc(rname, sym.type, sym.ptr, sym.dims, "pointer" in sym.attrs, scope, "result")
                if loc is not None:
                    zm.vars[rname] = loc
                    zm.result_zone = loc.zone if loc.zone is not None else min(_bits(loc.all), default=None)
                    zm.result_zones = loc.all if loc.zone is None else 1 << loc.zone
        # locals: declared here, then implicitly typed names of the body
        equiv = self._equivalences()
        for name, sym in scope.symbols.items():
            if name not in zm.vars and sym.kind == "variable":
                self._local(name, sym, equiv)
        for name in names:
            if name not in zm.vars and name not in zm.no_zone:
                self._resolve(name, equiv)
        self._field_pointees()
        self._points_to()
        zm._frozen = True
        return zm

    # --- one name -------------------------------------------------------------------------
    def _resolve(self, name, equiv):
        zm, scope = self.zm, self.scope
        sym = scope.lookup(name)
        if sym is None:
            if zm.lang == "c":
                raise SourceError(f"undeclared identifier {name!r} in {self.proc.name}", scope.filename,
                                  _line_of(self.node, name))
            typ = scope.type_of(name)
            if typ is None:
                raise SourceError(f"{name!r} has no type (IMPLICIT NONE) in {self.proc.name}", scope.filename,
                                  _line_of(self.node, name))
            from .symbols import Symbol
            sym = scope.symbols[name] = Symbol(name, "variable", type=typ)
            self._local(name, sym, equiv)
            return
        if not sym.is_storage:
            zm.no_zone.add(name)
            return
        if name in scope.symbols:
            self._local(name, sym, equiv)
            return
        loc = self.g.locs.get(id(sym))
        if loc is None:
            owner, name_there = scope.owner_of(name)
            member = self.g.common_members.get((id(owner), name_there)) if owner is not None else None
            if member is None:
                raise SourceError(f"no storage for {name!r} in {self.proc.name}", scope.filename,
                                  _line_of(self.node, name))
            loc = _common_loc(name, member)
        zm.vars[name] = loc

    def _local(self, name, sym, equiv):
        zm = self.zm
        if sym.is_constant or not sym.is_storage:
            zm.no_zone.add(name)
            return
        loc = self.g.locs.get(id(sym))
        if loc is None and sym.common is not None:
            member = self.g.common_members.get((id(self.scope), name))
            loc = _common_loc(name, member)
        if loc is None and name in equiv:
            loc = equiv[name]()
        if loc is None:
            loc = zm._new_loc(name, sym.type or self.scope.type_of(name), sym.ptr, sym.dims,
                              "pointer" in sym.attrs, self.scope, "local")
        zm.vars[name] = loc

    def _closure(self, loc: Loc) -> int:
        """All zones of a formal: its own, and the pointees reachable from its pointers."""
        s, stack, seen = 0, [loc], set()
        while stack:
            x = stack.pop()
            if id(x) in seen:
                continue
            seen.add(id(x))
            s |= x.all
            for leaf in x.pointer_leaves():
                stack.extend(self.zm.pts.get(leaf.zone, ()))
        return s

    def _pointee(self, leaf: Loc, kind, formal, is_array, memo):
        zm = self.zm
        start = len(zm.zones)
        t = zm._numbering.pointee(leaf, kind, formal, is_array or leaf.target_ptr > 0, memo)
        zm._register_range(start, kind)
        zm.pts[leaf.zone] = frozenset((t,))
        for sub in t.pointer_leaves():
            if sub.zone not in zm.pts:
                self._pointee(sub, kind, formal, True, memo)

    def _field_pointees(self):
        """The pointer fields of a local structure may be set by a procedure it is passed to
        (mat_alloc(&m) sets m.data): each points to memory of its own as well, a pointee zone
        `*m.data`, which the call translates to the callee's."""
        for name, loc in list(self.zm.vars.items()):
            if loc.fields is None or loc.zone is not None or not any(True for _ in loc.pointer_leaves()):
                continue
            if self.zm.zones[next(loc.pointer_leaves()).zone].kind != "local":
                continue
            memo: dict = {}
            for leaf in list(loc.pointer_leaves()):
                if leaf.zone not in self.zm.pts:
                    self._pointee(leaf, "heap", None, True, memo)

    def _indexed_names(self) -> set:
        """Pointer names used as arrays (indexed or in pointer arithmetic): their pointee is an
        array."""
        out = set()
        for x in walk(self.node.kids[7]) if self.node.kids[7] is not None else ():
            if x.op == "arrayAccess" and x.kids[0].op == "ident":
                out.add(x.kids[0].kids[0])
            elif x.op in ("add", "sub"):
                for k in x.kids:
                    if k.op == "ident":
                        out.add(k.kids[0])
        return out

    def _equivalences(self) -> dict:
        """name -> factory of the Loc shared by its EQUIVALENCE class."""
        groups = self.scope.equivalences
        if not groups:
            return {}
        parent: dict[str, str] = {}

        def find(x):
            while parent.setdefault(x, x) != x:
                x = parent[x]
            return x
        for group in groups:
            names = [_base_name(e) for e in group]
            for n in names[1:]:
                parent[find(n)] = find(names[0])
        classes: dict[str, list] = {}
        for n in parent:
            classes.setdefault(find(n), []).append(n)
        out, shared = {}, {}

        def factory(rep):
            def make():
                if rep not in shared:
                    shared[rep] = self._equivalence_loc(classes[rep])
                return shared[rep]
            return make
        for rep, members in classes.items():
            for n in members:
                out[n] = factory(rep)
        return out

    def _equivalence_loc(self, members) -> Loc:
        zm, scope = self.zm, self.scope
        syms = [scope.lookup(n) for n in members]
        in_common = [(n, s) for n, s in zip(members, syms) if s is not None and s.common is not None]
        if in_common:
            bits = 0
            for n, _ in in_common:
                bits |= self.g.common_members[(id(scope), n)][0]
            return _common_loc("=".join(members), (bits, False, True))
        types = [s.type if s is not None and s.type is not None else scope.type_of(n) for n, s in zip(members, syms)]
        typ = next((t for t in types if t is not None and t.op == "type" and t.kids[0] in ("real", "complex")),
                   types[0])
        z = zm._numbering.new_zone("=".join(members), None, typ, True, "local")
        zm._register_range(z, "local")
        loc = Loc("=".join(members), 1 << z, z, None, True, 0)
        loc.partial = True
        return loc

    # --- points-to --------------------------------------------------------------------------
    def _points_to(self):
        """Flow-insensitive points-to: iterate the pointer assignments of the body to a fixed
        point."""
        zm = self.zm
        body = self.node.kids[7]
        stmts = [x for x in walk_statements(body) if x.op in ("assign", "pointerAssign", "allocate", "varDecl")] \
            if body is not None else []
        stmts += self._device_allocations(body)
        if not stmts:
            zm.unknown_targets = frozenset()
            return
        calls = self._structure_calls(body)
        for _ in range(100):
            zm.unknown_targets = self._unknown_targets()
            changed = False
            for call, (structure, returned, node) in calls.items():
                reachable = self._reachable(node)
                zm.call_targets[call] = frozenset(t for t in reachable if self._may_be(t, structure)) | {returned}
                for leaf in returned.pointer_leaves():   # its pointers: set by the callee
                    changed |= self._add_targets(leaf, frozenset(t for t in reachable if self._may_point(leaf, t)))
            for s in stmts:
                try:   # at_line's rule, without a context manager per statement and round
                    changed |= self._constraint(s)
                except SourceError as e:
                    if e.line is None:
                        e.line = s.line
                    raise
            if not changed:
                return
        raise UnsupportedError(f"points-to analysis of {self.proc.name} does not converge", self.scope.filename)

    def _device_allocations(self, body) -> list:
        """The calls `cudaMalloc(&p, bytes)` (statements or inside expressions) of the CUDA
        runtime (not a procedure of the program of that name): allocation sites, like
        allocate."""
        if body is None or self.zm.lang != "c":
            return []
        sym = self.scope.lookup("cudaMalloc")
        if sym is not None and sym.kind == "procedure" and sym.node is not None and sym.node.kids[7] is not None:
            return []
        return [x for x in walk(body) if x.op == "call" and x.kids[0] == "cudaMalloc" and x.kids[1]]

    def _structure_calls(self, body) -> dict:
        """id(call) -> (structure name, Loc of the memory it returns, call) of the calls of the
        body to procedures of the program returning a pointer to a structure. What such a call
        returns is a structure of that type: one the callee can reach (_reachable), or one the
        caller does not see (allocated by the callee: a heap Loc of the call site, whose
        pointers point to what the callee can reach or to memory of their own)."""
        out = {}
        for x in walk(body):
            if x.op != "call":
                continue
            sym = self.scope.lookup(x.kids[0])
            if sym is None or sym.kind != "procedure" or sym.node is None or sym.node.op != "procedure":
                continue
            base, extra, owner = resolve_type(sym.node.kids[4], self.scope)
            if extra == 1 and base.op == "typeDef" and base.kids[2] not in UNION_STYLES:
                returned = self._heap(x, mk("typeRef", base.kids[0]), 0, owner)
                memo: dict = {}
                for leaf in list(returned.pointer_leaves()):   # and what the callee allocated for them
                    self._pointee(leaf, "heap", None, True, memo)
                out[id(x)] = (base.kids[0], returned, x)
                self.zm.returned[returned] = x.kids[0]
        return out

    def _reachable(self, call: Node) -> frozenset:
        """The Locs a callee may reach: what the actual arguments point to (and structures
        passed by value hold pointers to), the global variables and their targets, closed
        under the pointers they hold."""
        zm = self.zm
        start = set(loc for name, loc in zm.vars.items() if loc.all & zm.globals_mask)
        for a in call.kids[1]:
            start |= zm._value_targets(a)
            if a.op in _REF_OPS:
                start |= {loc for loc, _ in zm._ref(a)[0] if loc.fields}
        out, stack = set(), list(start)
        while stack:
            loc = stack.pop()
            if loc in out:
                continue
            out.add(loc)
            for leaf in loc.pointer_leaves():
                stack.extend(zm.pts.get(leaf.zone, ()))
        return frozenset(out)

    def _may_point(self, leaf: Loc, loc: Loc) -> bool:
        """Whether pointer leaf may point to loc as C types it: a structure pointer to a
        structure of its type, a pointer to reals or integers to no structure."""
        base, extra, _ = resolve_type(leaf.target_type, leaf.scope or self.scope)
        if leaf.target_ptr or extra:
            return True
        if base.op == "typeDef" and base.kids[2] not in UNION_STYLES:
            return self._may_be(loc, base.kids[0])
        return loc.fields is None or base.op != "type" or base.kids[0] == "void"

    def _may_be(self, loc: Loc, structure: str) -> bool:
        """Whether loc may be a structure of that type: it is one, or its type is unknown."""
        if loc.fields is not None:
            return loc.structure == structure
        t = self.zm.zones[loc.zone].type if loc.zone is not None else None
        return t is None or t.op == "typeRef"

    def _unknown_targets(self) -> frozenset:
        out = set()
        for ts in self.zm.pts.values():
            out |= ts
        out.update(self.zm.heap.values())
        return frozenset(out)

    def _add_targets(self, leaf: Loc, targets) -> bool:
        old = self.zm.pts.get(leaf.zone, frozenset())
        if targets <= old:
            return False
        self.zm.pts[leaf.zone] = old | targets
        return True

    def _constraint(self, s: Node) -> bool:
        zm = self.zm
        op = s.op
        changed = False
        if op == "varDecl":
            for d in s.kids[2]:
                if d.op == "declarator" and d.kids[2] is not None and d.kids[0] in zm.vars:
                    changed |= self._assign_pointers(zm.vars[d.kids[0]], d.kids[2])
            return changed
        if op == "assign":
            lhs, rhs = s.kids
            if not _has_pointer(zm, lhs):
                return False
            for loc, _ in zm._ref(lhs)[0]:
                changed |= self._assign_pointers(loc, rhs)
            return changed
        if op == "pointerAssign":
            lhs, rhs = s.kids
            if rhs.op == "intrinsic" and rhs.kids[0] == "null":
                return False
            if rhs.op == "call":
                targets = zm.unknown_targets
            else:
                targets = frozenset(loc for loc, _ in zm._ref(rhs)[0])
            for loc, _ in zm._ref_raw(lhs)[0]:
                if loc.pointer:
                    changed |= self._add_targets(loc, targets)
            return changed
        if op == "allocate":
            target, dims, typ = s.kids
            for loc, _ in zm._ref_raw(target)[0]:
                if loc.pointer:
                    site = self._heap(s, typ, 0, loc.scope) if typ is not None else \
                        self._heap(s, loc.target_type, loc.target_ptr, loc.scope)
                    changed |= self._add_targets(loc, frozenset((site,)))
            return changed
        if op == "call":        # cudaMalloc(pp, bytes): *pp gets new device memory
            for loc, _ in zm._ref(mk("deref", s.kids[1][0]))[0]:
                if loc.pointer:
                    changed |= self._add_targets(loc, frozenset((self._heap(s, loc.target_type, loc.target_ptr,
                                                                            loc.scope),)))
            return changed
        return False

    def _assign_pointers(self, loc: Loc, rhs: Node) -> bool:
        """Pointer leaves of `loc` receive the targets of the value `rhs`."""
        zm = self.zm
        if loc.pointer:
            return self._add_targets(loc, zm._value_targets(rhs))
        if loc.fields and rhs.op in _REF_OPS:       # struct copy: pointer fields pairwise
            changed = False
            for src, _ in zm._ref(rhs)[0]:
                for name, sub in loc.fields.items():
                    if src.fields and name in src.fields:
                        for a, b in zip(sub.pointer_leaves(), src.fields[name].pointer_leaves()):
                            changed |= self._add_targets(a, zm.pts.get(b.zone, frozenset()))
            return changed
        return False

    def _heap(self, site: Node, typ, ptr: int, scope) -> Loc:
        """The memory of an allocation site (or of a call returning memory of its own), of
        type typ with ptr C stars."""
        zm = self.zm
        loc = zm.heap.get(id(site))
        if loc is None:
            name = f"heap@{site.line}" if site.line is not None else f"heap#{len(zm.heap)}"
            start = len(zm.zones)
            loc = zm._numbering.make(name, None, typ, ptr, None, False, scope or self.scope, "heap", None, True)
            zm._register_range(start, "heap")
            zm.heap[id(site)] = loc
        return loc


def _has_pointer(zm: ZoneMap, lhs: Node) -> bool:
    for loc, _ in zm._ref(lhs)[0]:
        if any(True for _ in loc.pointer_leaves()):
            return True
    return False


def _common_loc(name, member) -> Loc:
    bits, total, is_array = member
    loc = Loc(name, bits, None, None, is_array, 0)
    loc.partial = not total
    return loc


def _base_name(e: Node) -> str:
    while e.op in ("arrayAccess", "fieldAccess"):
        e = e.kids[0]
    if e.op != "ident":
        raise UnsupportedError(f"EQUIVALENCE of {_show(e)}", "<input>", e.line)
    return e.kids[0]


def _value_type(t: Node, scope) -> Node:
    base, extra, _ = resolve_type(t, scope)
    if extra:
        return mk("pointerType", base if base.op != "typeDef" else mk("typeRef", base.kids[0]))
    return base if base.op != "typeDef" else t


def _line_of(node: Node, name: str):
    """The source line of the first use of identifier `name` in a procedure."""
    stack = [(node.kids[6], node.line), (node.kids[7], node.line)]
    while stack:
        x, line = stack.pop()
        if isinstance(x, tuple):
            stack.extend((k, line) for k in reversed(x))
        elif isinstance(x, Node):
            line = x.line or line
            if x.op == "ident" and x.kids[0] == name:
                return line
            stack.extend((k, line) for k in reversed(x.kids))
    return node.line
