"""What the tangent rules need besides the analysis facts: the names of differentiated
symbols, the innermost statement (the expression rules ask the facts about it), typed zeros,
and the assembly of differentiated procedures and call arguments (paper 5.3: the rewrite
predicates the paper does "not detail", DECLS → DECLSd)."""
from __future__ import annotations

from ...analyses.facts import sized_by_caller
from ...analyses.pointers_set import check_pointer_fields_set, check_pointers_set
from ...engine.bitsets import zones_of
from ...engine.errors import SourceError, UnsupportedError
from ...engine.il import EMPTY_ANN, Node, walk, walk_statements
from ...engine.rules import Context
from ..derivatives import derivative
from .globals import global_owner
from .procedures import derivative_declarations, differentiated_arguments
from .call_helpers import CallHelpers
from .structures import CDerivativeTypes
from .types import DIFFERENTIABLE_BASES, DerivativeTypes, is_void


# intrinsics of the derivative table that are not elemental (their rank is not their arguments')
_NOT_ELEMENTAL = frozenset("sum transpose reshape spread pack cshift eoshift".split())


class TangentContext(CallHelpers, Context):
    """Context(ruleset, facts) with: names (rules.naming.Namer), lang, program, filename."""

    def __init__(self, ruleset, facts, *, names, lang, program, filename="<input>"):
        super().__init__(ruleset, facts)
        self.names, self.lang, self.program, self.filename = names, lang, program, filename
        self.procedure = None  # the program's Procedure being differentiated
        self.messages = []  # warnings for the .msg file: "file:line: message"
        self._warned = set()  # the same, to find one fast
        self._kinds = {}  # id(expression) -> (expression, procedure, kind_of)
        self._symbols, self._symbols_scope = {}, None  # name -> its Symbol in _symbols_scope (see symbol_of)
        self.extra_declarations = []  # (name, real kind or IL type, attributes[, dims]) of the temporaries it needs
        self.pending = []  # derivative calls split out of the statement being differentiated
        self.replacements = {}  # id(call expression) -> the temporary holding its result
        self._active_commons = None
        # T -> T_diff (rules/naming.py)
        self.types = DerivativeTypes(names) if lang == "fortran" else CDerivativeTypes(names, program.files)
        self.buffers = {}  # procedure -> ((formal, its derivative, whether the caller zeroes it),) of memory_formals
        self.entry_resets = {}  # procedure -> names whose derivative initial_zeros sets to 0 at its start

    # --- refusals -----------------------------------------------------------------------------
    def unsupported(self, node: Node, what: str):
        raise UnsupportedError(f"{what} is not supported yet", self.filename, node.line)

    def warn(self, stmt: Node, message: str):
        """A warning of the .msg file, once per line and message."""
        number = stmt.line   # (read once: the annotations are a slow mapping)
        line = f"{self.filename}:{number}: {message}" if number else f"{self.filename}: {message}"
        if line not in self._warned:
            self._warned.add(line)
            self.messages.append(line)

    def no_derivative(self, expr: Node, stmt: Node):
        name = expr.kids[0] if expr.op == "intrinsic" else expr.op
        self.unsupported(stmt, f"the derivative of {name} (it is not in the derivative table)")

    def declared_derivative(self, ref: Node) -> str:
        """The name of a variable whose derivative variable the differentiated procedure
        declares; refused otherwise (a variable reached through a pointer or an alias)."""
        name = ref.kids[0]
        if self.procedure is not None and name not in self.facts.diff_variables(self.procedure.name):
            zones = self.procedure.zones
            loc = zones.vars.get(name)
            callees = sorted({zones.returned[t] for t in zones.pts.get(loc.zone, ()) if t in zones.returned}) \
                if loc is not None and loc.pointer else []
            if callees:
                self.unsupported(ref, f"the derivative of {name}, pointing to a structure that {callees[0]} "
                                      f"returns, whose pointer fields reach active memory,")
            self.unsupported(ref, f"the derivative of {name} (reached through a pointer or an alias)")
        return name

    # --- linear intrinsics ---------------------------------------------------------------------
    def linear_intrinsic(self, expr: Node) -> bool:
        """An intrinsic the derivative table marks linear, with no scalar partial to multiply."""
        if expr.op != "intrinsic":
            return False
        entry = derivative(expr.kids[0], self.lang)
        return entry is not None and entry.linear

    def not_linear_intrinsic(self, expr: Node) -> bool:
        return not self.linear_intrinsic(expr)

    def active_operands(self, expr: Node) -> tuple:
        """The arguments of a linear intrinsic that carry a derivative (by position)."""
        entry = derivative(expr.kids[0], self.lang)
        args = expr.kids[1]
        return tuple(args[i].kids[1] if args[i].op == "namedArg" else args[i]
                     for i in entry.active_positions(len(args)))

    def linear_derivative(self, expr: Node, derivatives: tuple, stmt: Node | None = None) -> Node | None:
        """f(A1d..An): each active argument replaced by its derivative (0 when it has none;
        0*A for an argument whose zero must keep its shape, reshape's pad)."""
        if all(d is None for d in derivatives):
            return None
        name, args = expr.kids
        entry = derivative(name, self.lang)
        self.check_intrinsic_arguments(expr, entry, stmt)
        replaced = dict(zip(entry.active_positions(len(args)), derivatives))
        kind = self.kind_of(expr) or 4
        new_args = []
        for i, a in enumerate(args):
            if i in replaced:
                d = replaced[i]
                if d is None:
                    zero = Node("realCst", ("0.0", kind))
                    d = Node("mul", (zero, a.kids[1] if a.op == "namedArg" else a)) if i in entry.shaped else zero
                a = Node("namedArg", (a.kids[0], d)) if a.op == "namedArg" else d
            new_args.append(a)
        return Node("intrinsic", (name, tuple(new_args)))

    def multilinear_terms(self, expr: Node, derivatives: tuple) -> list:
        """f(A1..Aid..An) for each argument with a derivative (the product rule of a function
        linear in each argument apart: dot_product, matmul)."""
        name, args = expr.kids
        terms = []
        for i, d in enumerate(derivatives):
            if d is not None:
                a = args[i]
                new = Node("namedArg", (a.kids[0], d)) if a.op == "namedArg" else d
                terms.append(Node("intrinsic", (name, args[:i] + (new,) + args[i + 1:])))
        return terms

    def check_intrinsic_arguments(self, expr: Node, entry, stmt: Node | None):
        """Refuse what the derivative table's positional partials would get wrong: a keyword
        argument in the place of an argument of another activity (eoshift(a, 1, dim=2): dim is
        not boundary; sum(a, mask=m) is right, dim and mask are both inactive), and a reduction
        with dim= or of an array whose rank is not 1."""
        where = stmt if stmt is not None else expr
        name, args = expr.kids
        active = entry.active_positions(len(args))
        for i, a in enumerate(args):
            dummy = entry.args.index(a.kids[0]) if a.op == "namedArg" and a.kids[0] in entry.args else i
            if (i in active) != (dummy in entry.active_positions(max(len(args), len(entry.args)))):
                self.unsupported(where, f"the derivative of {name} with the keyword argument {a.kids[0]}= "
                                        f"out of its position")
        ordered = entry.dummy_order(args) if entry.reduction else ()
        if entry.reduction and ((len(ordered) > 1 and ordered[1] is not None) or self.array_rank(ordered[0]) != 1):
            self.unsupported(where, f"the derivative of {name} other than of a rank-1 array without dim=")

    def array_rank(self, expr: Node) -> int | None:
        """The rank of an expression of references and operators (None: not known here)."""
        if expr.op == "ident":
            sym = self.symbol_of(expr)
            return None if sym is None else len(sym.dims or ())
        if expr.op == "arrayAccess" and expr.kids[0].op == "ident":
            ranks = [1 if i.op == "arrayTriplet" else self.array_rank(i) for i in expr.kids[1]]
            return None if None in ranks else sum(ranks)
        if expr.op in ("intCst", "realCst", "boolCst"):
            return 0
        elemental = expr.op == "intrinsic" and expr.kids[0] not in _NOT_ELEMENTAL and (
            (entry := derivative(expr.kids[0], self.lang)) is not None and not (entry.reduction or entry.multilinear))
        if elemental or expr.op in ("add", "sub", "mul", "div", "power", "neg", "pos"):
            ranks = [self.array_rank(k) for k in (expr.kids[1] if elemental else expr.kids) if k.op != "namedArg"]
            return None if None in ranks else max(ranks)
        return None

    # --- side conditions of the assignment rules (named: explain prints them) -------------------
    def not_differentiated(self, stmt: Node) -> bool:
        """¬(hasDerivativeInstruction(I) ∧ isActiveExpr(RHS))."""
        return not (self.facts.has_derivative_instruction(stmt) and self.facts.is_active_expr(stmt.kids[1], stmt))

    def active_initial_value(self, decl: Node) -> bool:
        """hasDerivativeInstruction(DECL) ∧ isActiveExpr(INIT) for an initial value INIT of DECL
        (a constant initial value, even of a varied variable, has the zero derivative)."""
        return self.facts.has_derivative_instruction(decl) and any(
            self.facts.is_active_expr(d.kids[2], decl) for d in decl.kids[2] if d.kids[2] is not None)

    def passive_initial_values(self, decl: Node) -> bool:
        """¬(hasDerivativeInstruction(DECL) ∧ isActiveExpr(INIT))."""
        return not self.active_initial_value(decl)

    def derivative_pointer_assignment(self, stmt: Node) -> bool:
        """isDiffPointer(LHS): C `p = E` for a pointer variable p that has a derivative pointer."""
        lhs = stmt.kids[0]
        if self.lang != "c" or lhs.op != "ident" or self.procedure is None:
            return False
        sym = self.procedure.scope.lookup(lhs.kids[0])
        return sym is not None and sym.ptr > 0 and lhs.kids[0] in self.facts.diff_variables(self.procedure.name)

    def not_derivative_pointer_assignment(self, stmt: Node) -> bool:
        return not self.derivative_pointer_assignment(stmt)

    def pointer_value_derivative(self, value: Node, stmt: Node) -> Node:
        """The derivative pointer matching a pointer value: q → qd, &a[k] → &ad[k], p + k → pd + k;
        NULL for NULL."""
        if _is_null(value):
            return value
        if value.op == "cast" and value.kids[0].op == "pointerType":
            return Node("cast", (self.derivative_type(value.kids[0]), self.pointer_value_derivative(value.kids[1], stmt)),
                        value.ann)
        if value.op not in ("ident", "address", "arrayAccess", "fieldAccess", "deref"):
            self.unsupported(stmt, "this value of a pointer to active memory")
        if value.op == "address" and value.kids[0].op == "ident" and not self.facts.has_derivative(value.kids[0], stmt):
            self.unsupported(stmt, f"a pointer to {value.kids[0].kids[0]}, which has no derivative,")
        derived, _ = self.ruleset.apply("ref", value, self)
        return derived

    def derivative_unread(self, stmt: Node) -> bool:
        """¬(isDiff(LHS) ∧ derivativeReadLater(LHS))."""
        lhs = stmt.kids[0]
        return not (self.facts.has_derivative(lhs, stmt) and self.facts.derivative_read_later(lhs, stmt))

    # --- READ statements (T-read) -----------------------------------------------------------------
    def _read_items(self, stmt: Node) -> tuple:
        """(reference, under an implied DO) for each variable a READ statement reads into."""
        if stmt.op != "io" or stmt.kids[0] != "read":
            return ()
        out = []

        def collect(item, implied):
            if item.op == "impliedDo":
                for inner in item.kids[0]:
                    collect(inner, True)
            elif item.op in ("ident", "arrayAccess", "fieldAccess"):
                out.append((item, implied))
        for item in stmt.kids[2]:
            collect(item, False)
        return tuple(out)

    def _read_resets(self, stmt: Node) -> tuple:
        return tuple((ref, implied) for ref, implied in self._read_items(stmt)
                     if self.facts.has_derivative(ref, stmt) and self.facts.derivative_read_later(ref, stmt))

    def _read_cuts(self, stmt: Node) -> tuple:
        return tuple(ref for ref, _ in self._read_items(stmt) if self.facts.derivative_cut(ref, stmt))

    def read_cuts_or_resets(self, stmt: Node) -> bool:
        """A READ that cuts a varied value or whose items' derivatives are read later."""
        return bool(self._read_cuts(stmt) or self._read_resets(stmt))

    def cuts_no_derivative(self, stmt: Node) -> bool:
        return not self.read_cuts_or_resets(stmt)

    def warn_read_cuts(self, stmt: Node):
        """A warning per item of the READ whose varied value it cuts (Tapenade says so too)."""
        from ...backends import source_text
        for ref in self._read_cuts(stmt):
            self.warn(stmt, f"READ overwrites {source_text(ref, 'fortran')}, whose value depends on the independents: "
                            f"the value read is passive, its derivative is zero after the READ")

    def read_then_zeros(self, stmt: Node) -> Node:
        """The READ, a warning per item whose varied value it cuts, then Vd = 0 for each item
        whose derivative is read later."""
        from ...backends import source_text
        self.warn_read_cuts(stmt)
        zeros = ()
        for ref, implied in self._read_resets(stmt):
            if implied:
                self.unsupported(stmt, f"resetting the derivative of {source_text(ref, 'fortran')} read in an implied DO")
            ref_d, _ = self.ruleset.apply("ref", ref, self)
            zeros += self.zero_assignments(ref_d, ref, self.derivative_ann(stmt))
        return Node("block", (stmt,) + zeros)

    # --- types and zeros ------------------------------------------------------------------------
    def derivative_type(self, typ: Node) -> Node:
        """The type of the derivative of a value of type typ: a structure's T_diff, typ else."""
        return self.types.derivative_of(typ, self.procedure.scope if self.procedure is not None else None)

    def symbol_of(self, ref: Node):
        """The Symbol of ref's variable in the procedure being differentiated. Kept per name
        for the procedure's scope: the side conditions ask it of every reference, and a
        lookup goes through the enclosing scopes and the USEd modules."""
        while ref.op in _ACCESS_OPS:
            ref = ref.kids[0]
        if ref.op != "ident" or self.procedure is None:
            return None
        scope, name = self.procedure.scope, ref.kids[0]
        if scope is not self._symbols_scope:
            self._symbols, self._symbols_scope = {}, scope
        sym = self._symbols.get(name)
        if sym is None:
            sym = scope.lookup(name)
            if sym is not None:   # (a name unknown here stays unknown: asked again)
                self._symbols[name] = sym
        return sym

    def kind_of(self, expr: Node) -> int | None:
        """The real kind an expression computes in (8 when it reads a real(8) variable): the
        largest kind of its real(8) constants and real variables (not of array indices).
        Remembered per sub-tree: the chain rule asks it at every level of an expression."""
        kinds, procedure = self._kinds, self.procedure
        known = kinds.get(id(expr))
        if known is not None and known[0] is expr and known[1] is procedure:
            return known[2]
        stack = [(expr, None)]
        while stack:
            node, operands = stack.pop()
            if operands is None:
                operands = _operands(node)
                unknown = []
                for k in operands:
                    known = kinds.get(id(k))
                    if known is None or known[0] is not k or known[1] is not procedure:
                        unknown.append(k)
                if unknown:    # the operands first (the chain rule has asked for them already, mostly)
                    stack.append((node, operands))
                    stack.extend((k, None) for k in unknown)
                    continue
            # a leaf's own kind (an operation has none but its operands')
            kind = self._leaf_kind(node) if not operands else None
            for k in operands:
                operand_kind = kinds[id(k)][2]
                if operand_kind and (kind is None or operand_kind > kind):
                    kind = operand_kind
            kinds[id(node)] = (node, procedure, kind or None)
        return kinds[id(expr)][2]

    def _leaf_kind(self, node: Node) -> int | None:
        if node.op == "realCst":
            return 8 if node.kids[1] == 8 else None
        if _real_cast(node):
            return node.kids[0].kids[1]
        sym = self.symbol_of(node) if node.op == "ident" else None
        if sym is not None and sym.type is not None and sym.type.op == "type" and sym.type.kids[0] == "real":
            return sym.type.kids[1] or 4
        return None

    def element_type(self, ref: Node) -> Node | None:
        """The elementary type of the reference's variable (what a C pointer points to)."""
        sym = self.symbol_of(ref)
        typ = sym.type if sym is not None else None
        while typ is not None and typ.op == "pointerType":
            typ = typ.kids[0]
        return typ if typ is not None and typ.op == "type" else None

    def zero_like(self, ref: Node) -> Node:
        """0.0 of the kind of the reference's variable (of its field, for a structure)."""
        typ = self.element_type(ref)
        if ref.op != "ident" and self.procedure is not None:   # a field, or memory a pointer field reaches
            try:
                zones = self.procedure.zones.ref(ref).zones
            except SourceError:  # a reference the zones do not resolve: keep the variable's type
                zones = 0
            types = {self.procedure.zones.zones[z].type for z in zones_of(zones)}
            if len(types) == 1:
                typ = types.pop()
        kind = typ.kids[1] if typ is not None and typ.op == "type" else None
        return Node("realCst", ("0.0", kind or 4))

    def refuse_unions(self, decls, diff_names):
        """C: a union variable with a derivative whose members of another type than real are
        used is refused: they may write the real member's storage (type punning), and no
        derivative says what that does."""
        unions = {u.kids[0]: {d.kids[0] for f in u.kids[1] if f.op == "varDecl" and not (f.kids[0].op == "type" and f.kids[0].kids[0] in DIFFERENTIABLE_BASES)
                              for d in f.kids[2]}
                  for f in self.program.files for u in walk(f)
                  if u.op == "typeDef" and u.kids[2] in ("union", "typedefUnion")}
        for decl in decls:
            typ = decl.kids[0] if decl.op == "varDecl" else None
            if typ is None or typ.op != "typeRef" or typ.kids[0] not in unions:
                continue
            names = {d.kids[0] for d in decl.kids[2]} & set(diff_names)
            if any(n.op == "fieldAccess" and n.kids[0] == Node("ident", (v,)) and n.kids[1] in unions[typ.kids[0]]
                   for n in walk(self.procedure.node.kids[7]) for v in names):
                self.unsupported(decl, f"the derivative of a union ({typ.kids[0]}) whose members of other types "
                                       "share its storage")

    def local_declaration(self, decl: Node) -> Node:
        """A C declaration in a block, followed by that of the derivatives of its variables."""
        if self.procedure is None:
            return Node("block", (decl,))
        self.refuse_unions((decl,), self.facts.diff_variables(self.procedure.name))
        derived = derivative_declarations((decl,), self.facts.diff_variables(self.procedure.name), self.names.var,
                                          derivative_type=self.derivative_type)
        if len(derived) == 1:
            return Node("block", derived)
        # a passive initial value has the zero derivative; a pointer's, the matching derivative pointer
        initial = {self.names.var(d.kids[0]): d for d in decl.kids[2] if d.kids[2] is not None}

        def initial_d(d):
            source = initial.get(d.kids[0])
            if source is None:
                return None
            return self.pointer_value_derivative(source.kids[2], decl) if source.kids[3] else \
                self.initial_zero(decl.kids[0], source)
        typ, attrs, declarators = derived[1].kids
        declarators = tuple(d.with_kids(d.kids[0], d.kids[1], initial_d(d), d.kids[3]) for d in declarators)
        return Node("block", (decl, Node("varDecl", (typ, attrs, declarators), derived[1].ann)))

    def initial_zero(self, typ: Node, declarator: Node) -> Node:
        """C: the zero initial value of the derivative of a declared variable of type typ: 0.0
        of its kind, `{0}` (every component, every element) for a struct or an array."""
        # a struct (its derivative typed T_diff), not a typedef of a real type
        if declarator.kids[1] or (typ.op == "typeRef" and self.derivative_type(typ) != typ and not declarator.kids[3]):
            return Node("arrayConstructor", ((Node("intCst", (0, None)),),))
        return self.zero_like(Node("ident", (declarator.kids[0],)))

    def initial_values(self, decl: Node) -> tuple:
        """The initial values of the declaration's variables that have a derivative."""
        diff = self.facts.diff_variables(self.procedure.name)
        inits = []
        for name, dims, init, _ in (d.kids for d in decl.kids[2]):
            if name in diff and init is not None:
                if dims or init.op in ("arrayConstructor", "InitList"):
                    self.unsupported(decl, f"an active initial value of the array {name}")
                inits.append(init)
        return tuple(inits)

    def active_local_declaration(self, decl: Node, inits_d: tuple) -> Node:
        """T V1 = INIT1, V2 = INIT2 → the derivative calls split out of the INITi, then per
        variable T Vi = INITi ; T Vid = INITid (a zero INITid for a passive INITi). No INITi
        reads an earlier Vj of the same declaration: the C reader splits such declarations."""
        inits_d = iter(tuple(self.with_results(d) if d is not None else None for d in inits_d))
        *pending, copy = self.primal(decl)
        typ, attrs, declarators = copy.kids
        diff = self.facts.diff_variables(self.procedure.name)
        out = []
        for d in declarators:
            name, dims, init, ptr = d.kids
            out.append(Node("varDecl", (typ, attrs, (d,)), decl.ann))
            if name not in diff:
                continue
            init_d = next(inits_d) if init is not None else None
            if init is not None and init_d is None:
                init_d = self.initial_zero(typ, d)
            declarator = Node("declarator", (self.names.var(name), dims, init_d, ptr), d.ann)
            out.append(Node("varDecl", (self.derivative_type(typ), attrs, (declarator,)), self.derivative_ann(decl)))
        return Node("block", tuple(pending) + tuple(out))

    def derivative_ann(self, stmt: Node):
        """Annotations of a derivative statement: the source line of the statement it comes from."""
        ann = stmt.ann
        for key in _NOT_ON_DERIVATIVES:
            if key in ann:    # pyrsistent's discard of an absent key raises and catches inside
                ann = ann.remove(key)
        return ann.set("derivative", True)

    # --- procedures and calls --------------------------------------------------------------------
    def differentiated_procedure(self, proc: Node, body_d: Node) -> Node:
        """procedure Pd, checked: no local derivative pointer of it is used before it is set
        (analyses/pointers_set.py), else refused."""
        assembled = self._assembled_procedure(proc, body_d)
        scope = self.program.procedure(proc.kids[0]).scope
        pointers = {self.names.var(v) for v in self.facts.diff_variables(proc.kids[0])
                    if scope.lookup(v) is not None and scope.lookup(v).is_pointer} - set(assembled.kids[2])
        if self.lang == "c":
            assembled = _without_unread(assembled, pointers)
        check_pointers_set(assembled, pointers, self.filename)
        allocators = {self.names.proc(name) for name in self.facts.allocating_procedures()}
        check_pointer_fields_set(assembled, self._derivative_pointer_fields(proc.kids[0]), allocators, self.filename)
        return assembled

    def _derivative_pointer_fields(self, proc_name: str) -> dict:
        """derivative name -> pointer field names, of the local structures with a derivative."""
        zones = self.program.procedure(proc_name).zones
        out = {}
        for v in self.facts.diff_variables(proc_name):
            loc = zones.vars.get(v)
            if loc is None or loc.fields is None or loc.zone is not None:
                continue
            leaves = {name for name, sub in loc.fields.items() if sub.pointer}
            if leaves and zones.zones[zones.vars[v].fields[next(iter(leaves))].zone].kind == "local":
                out[self.names.var(v)] = leaves
        return out

    def _assembled_procedure(self, proc: Node, body_d: Node) -> Node:
        name, kind, params, result, rtype, attrs, decls, _, contains = proc.kids
        if contains and self.lang != "fortran":
            self.unsupported(proc, "differentiating a procedure with internal procedures")
        diff_names = self.facts.diff_variables(name)
        declared = {d.kids[0] for decl in proc.kids[6] + tuple(walk_statements(proc.kids[7]))
                    if isinstance(decl, Node) and decl.op == "varDecl" for d in decl.kids[2]}
        scope = self.program.procedure(name).scope
        for other in sorted(diff_names - set(params) - declared - {result or name}):
            sym = scope.lookup(other)
            if sym is None or sym.kind != "variable":
                continue
            if scope.owner_of(other)[0] is scope:  # implicitly typed: its derivative is declared
                self.extra_declarations.append((self.names.var(other), sym.type, ()))
                continue
            owner, remote = global_owner(scope, other)
            if owner is None:
                self._host_derivative(proc, other)
                continue
            if remote != other:
                self.unsupported(proc, f"an active module variable renamed by USE ({other} => {remote})")
        args = differentiated_arguments(params, lambda f: self.facts.is_diff_formal_arg(name, f), self.names.var)
        for formal in sorted(diff_names & set(params) - set(self.facts.diff_formals(name))):
            sym = scope.lookup(formal)  # its derivative is local: it needs a size of its own
            if sym is not None and sym.dims and sized_by_caller(sym):
                self.unsupported(proc, f"a local derivative of the array argument {formal}, whose size only the "
                                       f"caller knows,")
        body_d = Node("block", self.memory_argument_zeros(proc) + self.initial_zeros(name, decls) + body_d.kids)
        temps = tuple(Node("varDecl", (kind if isinstance(kind, Node) else Node("type", ("real", kind, None)), attrs,
                                       (Node("declarator", (temp, dims[0] if dims else None, None, 0)),)))
                      for temp, kind, attrs, *dims in self.extra_declarations)
        if kind == "function" and not is_void(rtype) and self.lang != "fortran":
            # C (fig. 8): F_D returns the derivative; the value goes out through a last pointer argument
            result_name = self.c_result_name(proc)
            pointer = Node("varDecl", (rtype, (), (Node("declarator", (result_name, None, None, 1)),)))
            decls_d = self.derivative_declarations(decls, diff_names) + (pointer,) + temps
            return Node("procedure", (self.names.proc(name), kind, args + (result_name,), None,
                                      self.derivative_type(rtype), attrs, decls_d, body_d, ()), proc.ann)
        if kind == "function" and not is_void(rtype):
            # fig. 5, 8: F_D returns the derivative of the result; the result is an extra last argument
            result_name = result or name
            args = args + (result_name,)
            result_d = self.names.var(result_name)
            if result_name not in diff_names:  # a value with no derivative (an integer): F_D returns 0, as in C
                value_type = rtype or next((d.kids[0] for d in decls if d.op == "varDecl"
                                            for x in d.kids[2] if x.kids[0] == result_name), None)
                zero = Node("intCst", (0, None)) if value_type is not None and value_type.op == "type" and \
                    value_type.kids[0] == "integer" else Node("realCst", ("0.0", 8))
                body_d = Node("block", (Node("assign", (Node("ident", (result_d,)), zero)),) + body_d.kids)
            decls_d = self.derivative_declarations(decls, diff_names | {result_name}) + temps
            if rtype is not None:  # the header's type now types the derivative; the result is declared
                # after USE and IMPLICIT, which must come first
                k = next((i for i, d in enumerate(decls_d) if d.op not in ("use", "implicit")), len(decls_d))
                result_decl = Node("varDecl", (rtype, (), (Node("declarator", (result_name, None, None, 0)),)))
                decls_d = decls_d[:k] + (result_decl,) + decls_d[k:]
            return Node("procedure", (self.names.proc(name), kind, args, result_d, rtype, attrs, decls_d, body_d, ()),
                        proc.ann)
        decls_d = self.derivative_declarations(decls, diff_names) + temps
        return Node("procedure", (self.names.proc(name), kind, args, result, rtype, attrs, decls_d, body_d, ()),
                    proc.ann)

    def _host_derivative(self, proc: Node, variable: str):
        """An internal procedure's active host variable: its derivative is the host's, which
        the differentiated internal procedure reaches by host association (the pipeline puts
        it in the contains of the host's derivative); refused when the host has none."""
        host = self.procedure.host
        if host is None or variable not in self.facts.diff_variables(host.name):
            self.unsupported(proc, f"an active variable of a host procedure ({variable}) that has no derivative "
                                   f"in the host")

    def active_commons(self) -> dict:
        """{COMMON block: its derivative block /c_d/} for the blocks with a variable that has
        a derivative in some differentiated procedure (activity is a whole-program fact: a
        block active anywhere gets /c_d/ in every differentiated procedure declaring it)."""
        if self._active_commons is None:
            blocks = set()
            for proc_name in self.facts.diff_procedures():
                scope = self.program.procedure(proc_name).scope
                for var_name in self.facts.diff_variables(proc_name):
                    sym = scope.lookup(var_name)
                    if sym is not None and sym.common is not None:
                        blocks.add(sym.common)
            self._active_commons = {b: self.names.common(b) for b in sorted(blocks)}
        return self._active_commons

    def derivative_declarations(self, decls, diff_names) -> tuple:
        """DECLS → DECLSd: decls, each followed by the declarations of the derivatives
        (procedures.derivative_declarations), a structure's typed with its T_diff; COMMON /c/ →
        /c_d/; in Fortran, the T_diff of the procedure's own types after its type definitions."""
        if self.lang != "fortran":
            self.refuse_unions(decls, diff_names)
            return derivative_declarations(decls, diff_names, self.names.var, derivative_type=self.derivative_type)
        node = self.procedure.node   # its dummies and function result: a bare SAVE leaves them
        dummies = self.procedure.formals + ((node.kids[3] or node.kids[0],) if node.kids[1] == "function" else ())
        out = derivative_declarations(decls, diff_names, self.names.var, self.active_commons(), self.derivative_type,
                                      dummies)
        local_types = self.types.definitions_of(self.procedure.scope)
        if local_types:
            last = max(i for i, d in enumerate(out) if d.op == "typeDef")
            out = out[:last + 1] + local_types + out[last + 1:]
        return out

    def type_of_ref(self, ref: Node):
        """(the type of reference ref, how many of its parts have a rank): `c%p(2)` is a
        scalar type(point), `c%p%x` a rank-1 real."""
        if ref.op == "ident":
            sym = self.symbol_of(ref)
            if sym is None:
                return None, 0
            return sym.type, int(sym.dims is not None)
        if ref.op == "arrayAccess":
            typ, ranked = self.type_of_ref(ref.kids[0])
            sectioned = any(isinstance(i, Node) and i.op == "arrayTriplet" for i in ref.kids[1])
            return typ, max(0, ranked - 1) + int(sectioned)  # indexed: no rank left, unless a section
        if ref.op == "fieldAccess":
            typ, ranked = self.type_of_ref(ref.kids[0])
            is_structure = typ is not None and typ.op == "typeRef"
            found = self.types.type_def(self.procedure.scope, typ.kids[0]) if is_structure else None
            if found is not None:
                for field in found[1].kids[1]:
                    for d in field.kids[2] if field.op == "varDecl" else ():
                        if d.kids[0] == ref.kids[1]:
                            return field.kids[0], ranked + int(d.kids[1] is not None)
        return None, 0

    def _c_structure_zeros(self, ref_d: Node, typ: Node, ann, ref: Node) -> tuple:
        """REFd.f = 0 for each real component f of a C struct (nested structs recursively)."""
        structures, out = self.types.structures, []
        for field in structures.table.definition(typ).kids[1]:
            if field.op != "varDecl" or not structures.differentiable(field.kids[0]):
                continue
            for declarator in field.kids[2]:
                part = Node("fieldAccess", (ref_d, declarator.kids[0]))
                if declarator.kids[1] or declarator.kids[3]:
                    self.unsupported(ref, "a zero derivative of a struct with array or pointer components")
                if structures.of(field.kids[0]) is not None:
                    out.extend(self._c_structure_zeros(part, field.kids[0], ann, ref))
                else:
                    real = structures.table.resolve(field.kids[0])
                    out.append(Node("assign", (part, Node("realCst", ("0.0", real.kids[1] or 8))), ann))
        return tuple(out)

    def zero_assignments(self, ref_d: Node, ref: Node, ann) -> tuple:
        """REFd = 0 for REFd the derivative of ref; component by component for a structure
        (rules/tangent/types.py)."""
        typ, ranked = self.type_of_ref(ref) if self.lang == "fortran" and self.procedure is not None else (None, 0)
        if self.lang == "c" and ref.op == "ident" and (sym := self.symbol_of(ref)) is not None and not sym.ptr \
                and not sym.dims and self.types.structures.of(sym.type) is not None:
            return self._c_structure_zeros(ref_d, sym.type, ann, ref)   # C has no zero of a struct

        def zero_of(t):
            return Node("realCst", ("0.0", (t.kids[1] if t is not None and t.op == "type" else None) or 4))
        if typ is None:
            return (Node("assign", (ref_d, self.zero_like(ref)), ann),)
        if typ.op != "typeRef" and ranked <= 1:
            return (Node("assign", (ref_d, zero_of(typ)), ann),)
        if typ.op == "typeRef":
            found = self.types.zero_assignments(ref_d, typ, self.procedure.scope, ranked, zero_of, ann)
            if found is not None:
                return found
        # Fortran allows one part with a rank: a loop over the structures of the array at the root
        fields, root, root_d = [], ref, ref_d
        while root.op == "fieldAccess" and root_d.op == "fieldAccess":
            fields.append(root.kids[1])
            root, root_d = root.kids[0], root_d.kids[0]
        sym = self.symbol_of(root)
        if root.op != "ident" or root_d.op != "ident" or sym is None or sym.dims is None or len(sym.dims) != 1:
            self.unsupported(ref, "a zero derivative of an array of structures with array components")
        index = self.names.temp("ii1")
        self.extra_declarations.append((index, Node("type", ("integer", None, None)), ()))
        i = Node("ident", (index,))
        part, part_d = Node("arrayAccess", (root, (i,))), Node("arrayAccess", (root_d, (i,)))
        for field in reversed(fields):
            part, part_d = Node("fieldAccess", (part, field)), Node("fieldAccess", (part_d, field))
        bound = lambda which: Node("intrinsic", (which, (root_d, Node("intCst", (1, None)))))  # noqa: E731
        body = self.zero_assignments(part_d, part, ann)
        return (Node("do", (i, bound("lbound"), bound("ubound"), None, Node("block", body)), ann),)

    # --- function calls inside expressions (split out first, fig. 10: result1, result1d) -------

    def with_results(self, expr: Node) -> Node:
        """expr (a derivative expression, whose partials may hold the calls split out) reading
        the calls' results instead of calling again."""
        return _replaced(expr, self.replacements) if self.replacements else expr

    def shared_calls(self, value: Node, copy: Node, stmt: Node) -> tuple:
        """C: the math calls that the derivative value and the copy of the assignment both
        make (exp(q) in `sd = sd + exp(q)*qd; s = s + exp(q)`) are made once, into temporaries
        assigned before both. C's math functions may set errno, so the compiler has to call
        them twice; Fortran's intrinsics have no effect and the compiler shares them itself.
        The derivative statement writes no original variable, so a call has the same value
        before it as in the copy. Returns (the temporaries' assignments, value, copy)."""
        if self.lang not in ("c", "cuda") or copy.op != "assign":
            return (), value, copy
        in_copy = {n for n in walk(copy.kids[1]) if n.op == "intrinsic"}
        shared: dict = {}
        assignments = []

        def share(node):
            if isinstance(node, tuple):
                return tuple(share(k) for k in node)
            if not isinstance(node, Node):
                return node
            if node.op == "intrinsic" and node in in_copy and node.kids[0].rstrip("f") not in _INLINE_C_MATH:
                kind = self.kind_of(node)
                if kind is not None:
                    if node not in shared:
                        temp = self.names.temp("temp")
                        self.extra_declarations.append((temp, kind, ()))
                        assignments.append(Node("assign", (Node("ident", (temp,)), node),
                                                stmt.ann.discard("label").discard("directives")))
                        shared[node] = Node("ident", (temp,))
                    return shared[node]
            return Node(node.op, share(node.kids), node.ann)

        value = share(value)
        if not shared:
            return (), value, copy
        return tuple(assignments), value, _replaced_equal(copy, shared)

    def take_pending(self) -> tuple:
        """The differentiated calls split out of the statement so far (and forget them)."""
        pending, self.pending, self.replacements = tuple(self.pending), [], {}
        return pending

    def primal(self, stmt: Node) -> tuple:
        """The statements for stmt's copy: the derivative calls split out of it, then stmt with
        the calls they replace read from their results."""
        copy = self.with_results(stmt)
        return self.take_pending() + (copy,)

    def memory_argument_zeros(self, proc: Node) -> tuple:
        """The derivative arguments of the active arrays and pointers that no independent,
        dependent nor active actual gives one (facts.memory_formals; docs/rules.md#t-proc): what the
        caller must pass for each goes to self.buffers (the header comment and the .msg);
        the zeroing of those whose derivative may be read while zero, when their size is
        known. Where it is not (a C pointer, a Fortran assumed-size array), nothing is
        zeroed and the caller must pass a zeroed buffer: no partial zeroing."""
        name = proc.kids[0]
        out, buffers = [], []
        for formal in self.facts.memory_formals(name):
            sym = self.procedure.scope.lookup(formal)
            formal_d = self.names.var(formal)
            read = self.facts.memory_read_at_entry(name, formal)
            zeros = self._whole_zero(sym) if read else ()
            buffers.append((formal, formal_d, zeros is None))
            out.extend(zeros or ())
        self.buffers[self.procedure.name] = tuple(buffers)
        return tuple(out)

    def _whole_zero(self, sym) -> tuple | None:
        """The statements that zero the whole derivative of the array argument sym, None when
        its size is not known here (a C pointer or unsized array, a Fortran assumed-size
        array, pointer or allocatable, an array of C structures)."""
        ref, ref_d = Node("ident", (sym.name,)), Node("ident", (self.names.var(sym.name),))
        if sym.dims is None:
            return None
        if self.lang == "fortran":  # assumed shape (:) has the actual's size, assumed size (*) none
            if sym.attrs & {"pointer", "allocatable"} or any(d.kids[1] is not None and d.kids[1].op == "star"
                                                            for d in sym.dims):
                return None
            return self.zero_assignments(ref_d, ref, EMPTY_ANN)
        if sym.ptr or any(d.kids[1] is None for d in sym.dims) or sym.type is None or sym.type.op != "type" \
                or sym.type.kids[0] != "real":
            return None
        indices = []
        for _ in sym.dims:
            indices.append(Node("ident", (self.names.temp("ii1"),)))
            self.extra_declarations.append((indices[-1].kids[0], Node("type", ("integer", 4, None)), ()))
        loop = Node("assign", (Node("arrayAccess", (ref_d, tuple(indices))), self.zero_like(ref)))
        for index, dim in reversed(tuple(zip(indices, sym.dims))):
            loop = Node("for", (Node("assign", (index, Node("intCst", (0, None)))),
                                Node("lt", (index, dim.kids[1])),
                                Node("assign", (index, Node("add", (index, Node("intCst", (1, None)))))),
                                Node("block", (loop,))))
        return (loop,)

    def initial_zeros(self, name: str, decls) -> tuple:
        """vd = 0 at the start for the derivatives that are zero there but may be read (4.6);
        the memory arguments apart (memory_argument_zeros), and the buffers of the callees'
        (CallHelpers.memory_actual zeroes them at each call)."""
        reset = self.facts.diff_variables(name) & self.facts.zero_at_entry(name) - set(self.facts.memory_formals(name)) \
            - self.facts.buffer_variables(name)
        out = []
        for decl in decls:
            if decl.op != "varDecl" or "parameter" in decl.kids[1]:
                continue
            for d in decl.kids[2]:
                if d.kids[0] not in reset:
                    continue
                if self.lang == "c" and d.kids[1]:   # a C array: a loop over its dimensions, when known
                    zeros = self._whole_zero(self.procedure.scope.lookup(d.kids[0]))
                    if zeros is None:
                        self.unsupported(decl, f"a derivative array ({d.kids[0]}) to reset at the entry")
                    out.extend(zeros)
                    continue
                ref, ref_d = Node("ident", (d.kids[0],)), Node("ident", (self.names.var(d.kids[0]),))
                paths = self.facts.zero_at_entry_fields(name, d.kids[0])
                out.extend(self.zero_fields(ref, ref_d, paths, EMPTY_ANN, decl))
                if paths == ((),):   # the whole derivative: its entry value is never read (header: out)
                    self.entry_resets.setdefault(name, set()).add(d.kids[0])
        return tuple(out)

    def zero_fields(self, ref: Node, ref_d: Node, paths: tuple, ann, stmt: Node | None = None) -> tuple:
        """REF%F1..%Fkd = 0 for each field path (F1..Fk) of the structure ref, whose
        derivative is ref_d (() for ref itself): only the parts of a structure whose
        derivative is zero there, not the others (a varied component keeps its derivative).
        ref may be C's &v, ref_d &vd (v's fields)."""
        out = []
        for path in paths:
            part, part_d = (ref.kids[0], ref_d.kids[0]) if ref.op == "address" else (ref, ref_d)
            for field in path:
                part, part_d = Node("fieldAccess", (part, field)), Node("fieldAccess", (part_d, field))
            if self.lang == "fortran":
                out.extend(self.zero_assignments(part_d, part, ann))
                continue
            if self._is_array(part):  # C assigns no zero to a whole structure or array
                self.unsupported(stmt if stmt is not None else ref, f"a derivative array ({_root(part)}) to reset")
            out.append(Node("assign", (part_d, self.zero_like(part)), ann))
        return tuple(out)

    def _is_array(self, ref: Node) -> bool:
        zones = self.procedure.zones.ref(ref).zones
        return any(self.procedure.zones.zones[z].is_array for z in zones_of(zones))










def buffer_text(formal: str, caller_zeroes: bool, directions: str | None = None) -> str:
    """What the caller passes as the derivative of a memory argument (memory_argument_zeros);
    directions: vector mode's number of directions (nbdirsmax), a factor of the size."""
    times = f" times {directions}" if directions else ""
    return f"{'a zeroed buffer' if caller_zeroes else 'a buffer'} of the size of {formal}{times}"


def _without_unread(proc: Node, candidates: set) -> Node:
    """proc without the derivative pointers among `candidates` that nothing reads but their
    own moves (an end pointer only compared, `pe = p + m`): declarations and assignments dropped."""
    def uses(node, name) -> bool:  # walk skipping the lhs of assignments to it and its declarator
        if not isinstance(node, Node):
            return any(uses(k, name) for k in node) if isinstance(node, tuple) else False
        if node.op == "assign" and node.kids[0] == Node("ident", (name,)):
            return False
        if node.op == "declarator":
            return node.kids[0] != name and node.kids[2] is not None and uses(node.kids[2], name)
        if node.op == "ident":
            return node.kids[0] == name
        return any(uses(k, name) for k in node.kids)

    unread = {name for name in candidates if not uses(proc.kids[6], name) and not uses(proc.kids[7], name)}
    if not unread:
        return proc

    def prune(node):
        if isinstance(node, tuple):
            return tuple(k for k in (prune(k) for k in node) if k is not None)
        if not isinstance(node, Node):
            return node
        if node.op == "assign" and node.kids[0].op == "ident" and node.kids[0].kids[0] in unread:
            return Node("nop", (), node.ann) if "label" in node.ann else None  # a jump target stays
        if node.op == "varDecl":
            kept = tuple(d for d in node.kids[2] if d.kids[0] not in unread)
            return Node("varDecl", (node.kids[0], node.kids[1], kept), node.ann) if kept else None
        kids = tuple(prune(k) for k in node.kids)
        return Node(node.op, tuple(k for k in kids if k is not None) if node.op == "block" else kids, node.ann)
    kids = list(proc.kids)
    kids[6], kids[7] = prune(kids[6]), prune(kids[7])
    return Node("procedure", tuple(kids), proc.ann)


def _root(ref: Node) -> str:
    while ref.op in ("fieldAccess", "arrayAccess", "deref"):
        ref = ref.kids[0]
    return ref.kids[0]


def _is_null(value: Node) -> bool:
    """C's null pointer constant: 0 or (void *)0 (NULL)."""
    while value.op == "cast":
        value = value.kids[1]
    return value.op == "intCst" and value.kids[0] == 0




_ACCESS_OPS = frozenset(("arrayAccess", "fieldAccess", "deref"))


def _operands(node: Node) -> list:
    """The sub-trees whose kinds make node's kind: none for a name or a constant, the array
    of an array element (not its indices), every child node otherwise."""
    if node.op in ("ident", "realCst") or _real_cast(node):
        return []
    if node.op == "arrayAccess":
        return [node.kids[0]]
    out, stack = [], list(node.kids)
    while stack:
        k = stack.pop()
        if isinstance(k, Node):
            out.append(k)
        elif isinstance(k, tuple):
            stack.extend(k)
    return out


def _real_cast(node: Node) -> bool:
    """(float)x computes in float, whatever x is."""
    return node.op == "cast" and node.kids[0].op == "type" and node.kids[0].kids[0] == "real"


def _replaced(node, replacements: dict):
    """node with the sub-trees whose id is in `replacements` replaced."""
    if isinstance(node, tuple):
        return tuple(_replaced(k, replacements) for k in node)
    if not isinstance(node, Node):
        return node
    hit = replacements.get(id(node))
    if hit is not None:
        return hit
    return Node(node.op, tuple(_replaced(k, replacements) for k in node.kids), node.ann)


# C math functions the compiler expands inline, with no errno: not worth a temporary
_INLINE_C_MATH = frozenset({"fabs", "fmax", "fmin", "copysign"})


def _replaced_equal(node, replacements: dict):
    """node with the sub-trees equal to a key of `replacements` replaced."""
    if isinstance(node, tuple):
        return tuple(_replaced_equal(k, replacements) for k in node)
    if not isinstance(node, Node):
        return node
    hit = replacements.get(node)
    if hit is not None:
        return hit
    return Node(node.op, tuple(_replaced_equal(k, replacements) for k in node.kids), node.ann)
_NOT_ON_DERIVATIVES = ("label", "directives", "generic")   # annotations a derivative statement does not take
