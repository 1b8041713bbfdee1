"""Symbol tables: nested scopes of declared names (paper 5.1, fig. 16, right part).

`build_scopes(files) -> (root, scopes)` compiles the declarations of IL `file` nodes into a
tree of `Scope`s: one root scope (kind "file") for all files (C globals, types and functions,
Fortran external procedures and modules), one per Fortran module, one per procedure (internal
procedures are children of their host). `scopes` maps id(IL procedure or module node) to its
scope.

Symbol kinds: variable, parameter (a formal argument; its position is `formal`), procedure,
type (Fortran derived type, C struct/typedef), module, common (a COMMON block, name "/c/",
members in order), intrinsic, external, generic (a generic INTERFACE name; its specific
procedure names in `members`). A Fortran named constant (PARAMETER) is a variable with
"parameter" in attrs and its value in `init` (see `Symbol.is_constant`); so is a C enumerator
(attrs parameter and enumerator, init its intCst value). A C enum tag is a type whose `type`
is int.

Lookup (`Scope.lookup`) searches the scope itself, then the modules it USEs (honouring ONLY
lists and `local => remote` renames: the local name finds the module's entity), then the parent
chain (host association, then the file scope). Undeclared Fortran variables are typed by the
IMPLICIT rules (`Scope.type_of`).

CUDA (a file with dialect "cuda"): `__global__` and `__device__` procedures predeclare the
built-in variables threadIdx, blockIdx, blockDim, gridDim (named constants, attrs parameter
and cuda: read-only, no storage); the file scope knows the types dim3 and uint3 and the
runtime's constants (cudaMemcpyHostToDevice, ...). A declaration of the same name wins.

Declarations with no storage of their own: an INTERFACE body declares its name an external
procedure of the scope (a function's result type is the name's type; the body's dummies stay
inside the body); DATA gives initial values, like a declaration initializer, and implies SAVE
(attrs "save" and "data").
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from .errors import SourceError, UnsupportedError
from .enums import ENUM_OPS, ENUM_TYPE, enumerator_values
from .il import Node, mk
from .intrinsics import CUDA_BUILTIN_VARIABLES, CUDA_CONSTANTS, DEVICE_SPACES

SYMBOL_KINDS = ("variable", "parameter", "procedure", "type", "module", "common", "intrinsic", "external",
                "generic")
SCOPE_KINDS = ("file", "module", "procedure")


@dataclass(eq=False)
class Symbol:
    name: str
    kind: str
    type: Node | None = None          # IL type (elementary, typeRef or, for C typedefs, pointerType)
    dims: tuple | None = None         # tuple of IL `dim` nodes, None when not an array
    attrs: frozenset = frozenset()    # pointer, target, allocatable, save, parameter, external, result, ...
    node: Node | None = None          # the declaring IL node (declarator, procedure, typeDef, ...)
    init: Node | None = None          # initial value / named-constant value
    ptr: int = 0                      # C pointer depth (number of '*')
    formal: int | None = None         # position of a formal argument
    common: str | None = None         # the COMMON block a variable belongs to
    members: list = field(default_factory=list)   # COMMON block: member expressions in order
    line: int | None = None

    @property
    def is_constant(self) -> bool:
        return "parameter" in self.attrs and self.kind == "variable"

    @property
    def is_pointer(self) -> bool:
        return self.ptr > 0 or "pointer" in self.attrs

    @property
    def is_storage(self) -> bool:
        """A name with memory of its own: a variable or formal that is not a constant nor a
        procedure."""
        return self.kind in ("variable", "parameter") and not self.is_constant \
            and "external" not in self.attrs

    def __repr__(self):
        return f"Symbol({self.kind} {self.name})"


ACCESS_ATTRS = frozenset(("public", "private"))

_DEFAULT_IMPLICIT = {c: mk("type", "integer" if "i" <= c <= "n" else "real", None, None)
                     for c in "abcdefghijklmnopqrstuvwxyz"}


class Scope:
    def __init__(self, name: str, kind: str, node: Node | None, parent: "Scope | None", lang: str):
        assert kind in SCOPE_KINDS
        self.name, self.kind, self.node, self.parent, self.lang = name, kind, node, parent, lang
        self.symbols: dict[str, Symbol] = {}
        self.uses: list[tuple[str, frozenset | None, dict]] = []  # (module, ONLY names or None, local -> remote)
        self.children: list[Scope] = []
        self.implicit: dict[str, Node] | None = None     # None: inherit from the parent
        self.equivalences: list[tuple] = []               # groups (tuples of IL expressions)
        self.default_access = "public"                    # a module's bare PUBLIC / PRIVATE
        self.access: dict[str, str] = {}                  # name -> "public" | "private"
        self.modules: dict[str, Scope] = parent.modules if parent is not None else {}
        self.filename = parent.filename if parent is not None else "<input>"
        if parent is not None:
            parent.children.append(self)

    def __repr__(self):
        return f"Scope({self.kind} {self.name})"

    # --- lookup -----------------------------------------------------------------------------
    def lookup(self, name: str) -> Symbol | None:
        scope = self
        while scope is not None:
            sym = scope.lookup_here(name)
            if sym is not None:
                return sym
            scope = scope.parent
        return None

    def lookup_here(self, name: str, _seen=None) -> Symbol | None:
        """This scope's own symbols, then what its USEd modules export."""
        sym = self.symbols.get(name)
        if sym is not None:
            return sym
        for module, only, renames in self.uses:
            remote = used_name(only, renames, name)
            mod = self.modules.get(module)
            if remote is None or mod is None:
                continue
            seen = _seen or set()
            if id(mod) in seen:
                continue
            seen.add(id(mod))
            sym = mod.lookup_here(remote, seen)
            if sym is not None:
                return sym
        return None

    def scope_of(self, name: str) -> "Scope | None":
        """The scope (self, a used module or an ancestor) that declares `name`."""
        return self.owner_of(name)[0]

    def owner_of(self, name: str) -> tuple["Scope | None", str]:
        """(the scope that declares `name`, the name there): a USE rename makes them differ."""
        scope = self
        while scope is not None:
            found = scope._owner_here(name, set())
            if found[0] is not None:
                return found
            scope = scope.parent
        return None, name

    def _owner_here(self, name, seen):
        if name in self.symbols:
            return self, name
        seen.add(id(self))
        for module, only, renames in self.uses:
            remote = used_name(only, renames, name)
            mod = self.modules.get(module)
            if remote is not None and mod is not None and id(mod) not in seen:
                found = mod._owner_here(remote, seen)
                if found[0] is not None:
                    return found
        return None, name

    # --- implicit typing ----------------------------------------------------------------------
    def implicit_rules(self) -> dict[str, Node] | None:
        """Letter -> type; empty under IMPLICIT NONE; None in C."""
        scope = self
        while scope is not None:
            if scope.implicit is not None:
                return scope.implicit
            scope = scope.parent
        return _DEFAULT_IMPLICIT if self.lang == "fortran" else None

    def type_of(self, name: str) -> Node | None:
        """The declared type of a name, else its implicit Fortran type; None if neither."""
        sym = self.lookup(name)
        if sym is not None and sym.type is not None:
            return sym.type
        if sym is not None and sym.kind not in ("variable", "parameter"):
            return None
        rules = self.implicit_rules()
        if not rules or not name:
            return None
        return rules.get(name[0])


def used_name(only, renames: dict, name: str) -> str | None:
    """The module entity that a USE statement (ONLY list of local names or None, renames
    local -> remote) makes visible as local `name`; None when it does not. A renamed remote
    name is not visible under its own name (unless ONLY lists it)."""
    if name in renames:
        return renames[name] if only is None or name in only else None
    if only is not None:
        return name if name in only else None
    return None if name in renames.values() else name


def data_names(objects):
    """The variable names a DATA object list initializes (implied DO variables excluded)."""
    for o in objects:
        if o.op == "impliedDo":
            yield from data_names(o.kids[0])
        else:
            while o.op != "ident":
                o = o.kids[0]
            yield o.kids[0]


# ---------------------------------------------------------------------------------------------
# IMPLICIT statements
# ---------------------------------------------------------------------------------------------
_IMPLICIT_TYPES = [
    (r"double\s*precision", ("real", 8)), (r"double\s*complex", ("complex", 8)),
    (r"real\s*\*\s*(\d+)", ("real", None)), (r"real\s*\(\s*(?:kind\s*=\s*)?(\d+)\s*\)", ("real", None)),
    (r"real", ("real", None)),
    (r"integer\s*\*\s*(\d+)", ("integer", None)), (r"integer\s*\(\s*(?:kind\s*=\s*)?(\d+)\s*\)", ("integer", None)),
    (r"integer", ("integer", None)),
    (r"complex\s*\*\s*(\d+)", ("complex*", None)), (r"complex", ("complex", None)),
    (r"logical", ("logical", None)), (r"character(?:\s*\*\s*\d+)?", ("character", None)),
]


def _implicit_rules(text: str, current: dict, filename: str, line) -> dict:
    """Apply one IMPLICIT statement's text ('none', 'double precision (a-h, o-z)', ...)."""
    text = text.strip().lower()
    if text == "none":
        return {}
    rules = dict(current)
    for spec, letters in re.findall(r"([a-z][a-z0-9*\s()=]*?)\s*\(([a-z,\s\-]+)\)", text):
        typ = None
        for pattern, (base, kind) in _IMPLICIT_TYPES:
            m = re.fullmatch(pattern, spec.strip())
            if m:
                if base == "complex*":
                    base, kind = "complex", int(m.group(1)) // 2
                elif m.groups():
                    kind = int(m.group(1))
                typ = mk("type", base, kind, None)
                break
        if typ is None:
            raise UnsupportedError(f"IMPLICIT type {spec.strip()!r}", filename, line)
        for part in letters.split(","):
            part = part.strip()
            lo, _, hi = part.partition("-")
            hi = hi.strip() or lo
            for c in range(ord(lo.strip()), ord(hi) + 1):
                rules[chr(c)] = typ
    return rules


# ---------------------------------------------------------------------------------------------
# CUDA's predeclared names
# ---------------------------------------------------------------------------------------------
def xyz_struct(name: str) -> Node:
    """CUDA's dim3 and uint3: structs of three unsigned ints x, y, z."""
    unsigned = mk("type", "integer", 4, None)
    fields = mk("varDecl", unsigned, (), tuple(mk("declarator", c, None, None, 0) for c in "xyz"))
    return mk("typeDef", name, (fields,), "struct")


def cuda_runtime_names(root: Scope) -> None:
    """What a .cu file uses without declaring it (the CUDA headers declare it): the types dim3
    and uint3 (structs of three unsigned ints x, y, z) and the runtime's named constants
    (cudaMemcpyHostToDevice, ..., engine.intrinsics.CUDA_CONSTANTS). The file's own
    declarations of these names win."""
    for name in ("dim3", "uint3"):
        root.symbols.setdefault(name, Symbol(name, "type", node=xyz_struct(name)))
    for name, value in CUDA_CONSTANTS.items():
        root.symbols.setdefault(name, Symbol(name, "variable", type=mk("type", "integer", 4, None),
                                             attrs=frozenset(("parameter", "cuda")), init=mk("intCst", value, None)))


def cuda_builtin_variables(scope: Scope) -> None:
    """threadIdx, blockIdx, blockDim, gridDim in a `__global__` or `__device__` procedure:
    read-only (named constants for the analyses: no zone, never active, never written) uint3
    values. Elsewhere they stay undeclared."""
    for name in CUDA_BUILTIN_VARIABLES:
        scope.symbols.setdefault(name, Symbol(name, "variable", type=mk("typeRef", "uint3"),
                                              attrs=frozenset(("parameter", "cuda")), line=scope.node.line))


# ---------------------------------------------------------------------------------------------
# Building the scopes
# ---------------------------------------------------------------------------------------------
def build_scopes(files) -> tuple[Scope, dict[int, Scope]]:
    if isinstance(files, Node):
        files = [files]
    files = list(files)
    lang = files[0].ann.get("lang", "fortran") if files else "fortran"
    root = Scope("", "file", None, None, "c" if lang in ("c", "cuda") else "fortran")
    builder = _Builder(root)
    for f in files:
        root.filename = f.ann.get("filename", root.filename)
        builder.file(f)
    builder.finish()
    return root, builder.scopes


class _Builder:
    def __init__(self, root: Scope):
        self.root = root
        self.scopes: dict[int, Scope] = {}
        self.pending_uses: list[tuple[Scope, str, Node]] = []

    def error(self, scope, message, where, cls=SourceError):
        """Raise at `where`: a node (its line) or a line number."""
        raise cls(message, scope.filename, where.line if isinstance(where, Node) else where)

    def file(self, f: Node):
        self.scopes[id(f)] = self.root
        lang = f.ann.get("lang", self.root.lang)
        for unit in f.kids:
            self.unit(unit, self.root, lang)
        if f.ann.get("dialect") == "cuda":
            cuda_runtime_names(self.root)

    def finish(self):
        for scope, module, node in self.pending_uses:
            if module not in scope.modules:
                self.error(scope, f"USE of unknown module {module!r} (give its source file too)", node)

    def unit(self, unit: Node, parent: Scope, lang: str):
        op = unit.op
        if op == "procedure":
            self.procedure(unit, parent, lang)
        elif op == "module":
            scope = Scope(unit.kids[0], "module", unit, parent, "fortran")
            self.scopes[id(unit)] = scope
            parent.modules[unit.kids[0]] = scope
            self.declare(parent, Symbol(unit.kids[0], "module", node=unit, line=unit.line))
            self.decls(scope, unit.kids[1])
            for sub in unit.kids[2]:
                self.unit(sub, scope, lang)
            self.apply_access(scope)
        elif op in ("varDecl", "typeDef", "typeAlias") or op in ENUM_OPS:
            self.decl(parent, unit)     # C file-level declarations

    def procedure(self, node: Node, parent: Scope, lang: str):
        name, kind, params, result, rtype, attrs, decls, body, contains = node.kids
        existing = parent.symbols.get(name)
        if existing is not None and existing.kind == "procedure" and body is None:
            return      # a C prototype after the definition
        sym = Symbol(name, "procedure", type=rtype, attrs=frozenset(attrs), node=node, line=node.line)
        if existing is not None and existing.kind == "procedure" and existing.node.kids[7] is None:
            parent.symbols[name] = sym    # the definition replaces its prototype
        else:
            self.declare(parent, sym)
        if body is None and lang == "c":
            return
        scope = Scope(name, "procedure", node, parent, "c" if lang in ("c", "cuda") else "fortran")
        self.scopes[id(node)] = scope
        for i, p in enumerate(params):
            scope.symbols[p] = Symbol(p, "parameter", formal=i, line=node.line)
        if kind == "function" and scope.lang == "fortran":
            rname = result or name
            scope.symbols[rname] = Symbol(rname, "variable", type=rtype, attrs=frozenset({"result"}),
                                          node=node, line=node.line)
        self.decls(scope, decls)
        if body is not None and scope.lang == "c":
            self.c_body_decls(scope, body)
            if DEVICE_SPACES & set(attrs):
                cuda_builtin_variables(scope)
        for sub in contains:
            self.unit(sub, scope, lang)
        # a Fortran formal or result never given a type gets its implicit one
        if scope.lang == "fortran":
            for sym in scope.symbols.values():
                if sym.kind in ("parameter", "variable") and sym.type is None and "external" not in sym.attrs:
                    sym.type = scope.type_of(sym.name)

    def declare(self, scope: Scope, sym: Symbol):
        old = scope.symbols.get(sym.name)
        if old is not None and "generic" in (old.kind, sym.kind) and "procedure" in (old.kind, sym.kind):
            # a generic name may also be one of its specifics: calls of the name reach the procedure
            scope.symbols[sym.name] = old if old.kind == "procedure" else sym
            return
        if old is not None and old.kind != sym.kind and not (old.kind == "type" and sym.kind == "type"):
            self.error(scope, f"{sym.name!r} is declared twice (as {old.kind} and {sym.kind})", sym.line)
        scope.symbols.setdefault(sym.name, sym)

    # --- declarations -----------------------------------------------------------------------
    def decls(self, scope: Scope, decls):
        for d in decls:
            self.decl(scope, d)

    def decl(self, scope: Scope, d: Node):
        op = d.op
        if op == "varDecl":
            self.var_decl(scope, d)
        elif op == "typeDef":
            self.declare(scope, Symbol(d.kids[0], "type", node=d, line=d.line))
        elif op == "typeAlias":
            self.declare(scope, Symbol(d.kids[0], "type", type=d.kids[1], node=d, line=d.line))
        elif op in ENUM_OPS:
            self.enum(scope, d)
        elif op == "attrDecl":
            self.attr_decl(scope, d)
        elif op == "common":
            self.common(scope, d)
        elif op == "equivalence":
            scope.equivalences.extend(d.kids[0])
        elif op == "use":
            module, only, renames = d.kids[0], d.kids[1], d.kids[2:]
            scope.uses.append((module, None if only is None else frozenset(only),
                               {r.kids[0]: r.kids[1] for r in renames}))
            self.pending_uses.append((scope, module, d))
        elif op == "interface":
            self.interface(scope, d)
        elif op == "data":
            for name in data_names(d.kids[0]):
                sym = self.variable(scope, name, d.line)
                sym.attrs = sym.attrs | {"save", "data"}
        elif op == "implicit":
            base = scope.implicit if scope.implicit is not None else (scope.implicit_rules() or {})
            scope.implicit = _implicit_rules(d.kids[0], base, scope.filename, d.line)

    def enum(self, scope: Scope, d: Node):
        """An enum tag names an int type; each enumerator is a named integer constant."""
        if d.kids[0] is not None:
            self.declare(scope, Symbol(d.kids[0], "type", type=ENUM_TYPE, node=d, line=d.line))

        def known(name):
            sym = scope.lookup(name)
            return sym.init.kids[0] if sym is not None and sym.is_constant and sym.init is not None \
                and sym.init.op == "intCst" else None
        for item, (name, value) in zip(d.kids[1], enumerator_values(d, known)):
            if value is None:
                self.error(scope, f"the value of enumerator {name} is not an integer constant expression",
                           item.line or d.line, UnsupportedError)
            self.declare(scope, Symbol(name, "variable", type=ENUM_TYPE, attrs=frozenset({"parameter", "enumerator"}),
                                       node=item, init=mk("intCst", value, None), line=item.line or d.line))

    def variable(self, scope: Scope, name: str, line) -> Symbol:
        """The symbol of `name` in this very scope, created as a variable if new."""
        sym = scope.symbols.get(name)
        if sym is None:
            sym = scope.symbols[name] = Symbol(name, "variable", line=line)
        return sym

    def var_decl(self, scope: Scope, d: Node):
        typ, attrs, declarators = d.kids
        attrs = frozenset(attrs)
        for decl in declarators:
            if decl.op != "declarator":
                continue
            name, dims, init, ptr = decl.kids
            sym = scope.symbols.get(name)
            if sym is not None and sym.type is not None and scope.lang == "c" and scope.kind == "procedure":
                # C block-scope redeclaration: one flat procedure scope, the first declaration
                # wins, which is only sound when both declare the same thing
                if (sym.type, sym.ptr, _dims_key(sym.dims)) != (typ, ptr, _dims_key(dims)):
                    self.error(scope, f"{name!r} is redeclared with another type in a nested block "
                                      f"(rename one of them)", d, UnsupportedError)
                continue
            if sym is not None and sym.kind not in ("variable", "parameter", "external", "intrinsic"):
                if not (sym.kind == "procedure" and scope.lang == "c"):
                    self.error(scope, f"{name!r} is declared twice", d)
                continue       # C: an extern declaration of a function
            if sym is None:
                sym = scope.symbols[name] = Symbol(name, "variable", line=decl.line or d.line)
            sym.type = typ
            sym.attrs = sym.attrs | attrs
            sym.node = decl
            sym.ptr = ptr
            if dims is not None:
                sym.dims = dims
            if init is not None:
                sym.init = init
            if "external" in attrs and sym.kind == "variable":
                sym.kind = "external"

    def interface(self, scope: Scope, d: Node):
        """INTERFACE [generic]: each body declares an external procedure (its dummies belong to
        the body, not to this scope); a generic name lists its specifics."""
        name, names, bodies = d.kids
        for body in bodies:
            if body.op != "procedure":
                continue
            sym = self.procedure_name(scope, body.kids[0], "external", body.line or d.line)
            if body.kids[1] == "function" and sym.type is None:
                sym.type = _function_type(body)
        if name:
            specifics = list(names) + [b.kids[0] for b in bodies if b.op == "procedure"]
            self.declare(scope, Symbol(name, "generic", node=d, members=specifics, line=d.line))

    def procedure_name(self, scope: Scope, name: str, attr: str, line) -> Symbol:
        """Declare `name` an EXTERNAL or INTRINSIC procedure of the scope (a formal stays a
        formal: a dummy procedure)."""
        sym = self.variable(scope, name, line)
        if sym.kind == "variable":
            sym.kind = attr
        sym.attrs = sym.attrs | {attr}
        return sym

    def attr_decl(self, scope: Scope, d: Node):
        attr, declarators = d.kids
        if attr in ACCESS_ATTRS:
            self.access_decl(scope, attr, declarators)
            return
        for decl in declarators:
            name, dims, init, _ = decl.kids
            if name.startswith("/"):
                continue          # SAVE /c/: the block is global storage anyway
            if attr in ("external", "intrinsic"):
                self.procedure_name(scope, name, attr, decl.line or d.line)
                continue
            sym = self.variable(scope, name, decl.line or d.line)
            sym.attrs = sym.attrs | {attr}
            if dims is not None:
                sym.dims = dims
            if init is not None:
                sym.init = init

    def access_decl(self, scope: Scope, attr: str, declarators):
        """PUBLIC / PRIVATE [:: names] declare nothing: the names may be procedures, types or
        variables declared later, or names a USEd module exports. Recorded, then set on the
        module's symbols by apply_access."""
        if not declarators:
            scope.default_access = attr
        for decl in declarators:
            scope.access[decl.kids[0]] = attr

    def apply_access(self, scope: Scope):
        for name, sym in scope.symbols.items():
            sym.attrs = sym.attrs | {scope.access.get(name, scope.default_access)}

    def common(self, scope: Scope, d: Node):
        block, members = d.kids
        key = f"/{block}/"
        blk = scope.symbols.get(key)
        if blk is None:
            blk = scope.symbols[key] = Symbol(key, "common", node=d, line=d.line)
        for m in members:
            name = m.kids[0].kids[0] if m.op == "arrayAccess" else m.kids[0]
            sym = self.variable(scope, name, d.line)
            if sym.common is not None:
                self.error(scope, f"{name!r} is in two COMMON blocks", d)
            sym.common = block
            if m.op == "arrayAccess":
                sym.dims = tuple(mk("dim", *(b.kids[:2] if b.op == "arrayTriplet" else (None, b)))
                                 for b in m.kids[1])
            blk.members.append(name)

    def c_body_decls(self, scope: Scope, body: Node):
        """Declarations anywhere in a C body (nested blocks, for-init) into the one flat
        procedure scope."""
        stack = [body]
        while stack:
            x = stack.pop()
            if isinstance(x, tuple):
                stack.extend(reversed(x))
            elif isinstance(x, Node):
                if x.op in ("varDecl", "typeDef", "typeAlias") or x.op in ENUM_OPS:
                    self.decl(scope, x)
                elif x.op in ("block", "if", "for", "while", "doWhile", "switch", "case"):
                    stack.extend(reversed(x.kids))


def _function_type(body: Node) -> Node | None:
    """The result type of a function interface body: its prefix type, else its result's
    declaration in the body."""
    name, _, _, result, rtype, _, decls = body.kids[:7]
    if rtype is not None:
        return rtype
    for d in decls:
        if d.op == "varDecl" and any(x.op == "declarator" and x.kids[0] == (result or name) for x in d.kids[2]):
            return d.kids[0]
    return None


def _dims_key(dims):
    return None if dims is None else len(dims)
