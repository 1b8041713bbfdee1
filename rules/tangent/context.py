"""What the tangent rules need besides the analysis facts: the names of differentiated
symbols, the innermost statement (the expression rules ask the facts about it), typed zeros,
and the assembly of differentiated procedures and call arguments (paper 5.3: the rewrite
predicates the paper does "not detail", DECLS → DECLSd)."""
from __future__ import annotations

from ...engine.errors import UnsupportedError
from ...engine.il import Node, walk
from ...engine.rules import Context
from ..derivatives import derivative
from .procedures import derivative_declarations, differentiated_arguments


class TangentContext(Context):
    """Context(ruleset, facts) with: names (rules.naming.Namer), lang, program, filename."""

    def __init__(self, ruleset, facts, *, names, lang, program, filename="<input>"):
        super().__init__(ruleset, facts)
        self.names, self.lang, self.program, self.filename = names, lang, program, filename
        self.procedure = None  # the program's Procedure being differentiated
        self.messages = []  # warnings for the .msg file: "file:line: message"
        self._warned = set()  # the same, to find one fast
        self._kinds = {}  # id(expression) -> (expression, procedure, kind_of)
        self.extra_declarations = []  # (name, real kind, attributes) of the temporaries it needs
        self.pending = []  # derivative calls split out of the statement being differentiated
        self.replacements = {}  # id(call expression) -> the temporary holding its result

    # --- refusals -----------------------------------------------------------------------------
    def unsupported(self, node: Node, what: str):
        raise UnsupportedError(f"{what} is not supported yet", self.filename, node.line)

    def warn(self, stmt: Node, message: str):
        """A warning of the .msg file, once per line and message."""
        line = f"{self.filename}:{stmt.line}: {message}" if stmt.line else f"{self.filename}: {message}"
        if line not in self._warned:
            self._warned.add(line)
            self.messages.append(line)

    def no_derivative(self, expr: Node, stmt: Node):
        name = expr.kids[0] if expr.op == "intrinsic" else expr.op
        self.unsupported(stmt, f"the derivative of {name} (it is not in the derivative table)")

    def no_derivative_through(self, stmt: Node) -> bool:
        """Neither the pointer nor its target of `P => TARGET` has a derivative."""
        return not any(self.facts.has_derivative(ref, stmt) for ref in stmt.kids
                       if ref.op in ("ident", "arrayAccess", "fieldAccess"))

    def declared_derivative(self, ref: Node) -> str:
        """The name of a variable whose derivative variable the differentiated procedure
        declares; refused otherwise (a variable reached through a pointer or an alias)."""
        name = ref.kids[0]
        if self.procedure is not None and name not in self.facts.diff_variables(self.procedure.name):
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

    def linear_derivative(self, expr: Node, derivatives: tuple) -> Node | None:
        """f(A1d..An): each active argument replaced by its derivative (0 when it has none)."""
        if all(d is None for d in derivatives):
            return None
        name, args = expr.kids
        entry = derivative(name, self.lang)
        replaced = dict(zip(entry.active_positions(len(args)), derivatives))
        kind = self.kind_of(expr) or 4
        new_args = []
        for i, a in enumerate(args):
            if i in replaced:
                d = replaced[i] if replaced[i] is not None else Node("realCst", ("0.0", kind))
                a = Node("namedArg", (a.kids[0], d)) if a.op == "namedArg" else d
            new_args.append(a)
        return Node("intrinsic", (name, tuple(new_args)))

    # --- side conditions of the assignment rules (named: explain prints them) -------------------
    def not_differentiated(self, stmt: Node) -> bool:
        """¬(hasDerivativeInstruction(I) ∧ isActiveExpr(RHS))."""
        return not (self.facts.has_derivative_instruction(stmt) and self.facts.is_active_expr(stmt.kids[1], stmt))

    def derivative_unread(self, stmt: Node) -> bool:
        """¬(isDiff(LHS) ∧ derivativeReadLater(LHS))."""
        lhs = stmt.kids[0]
        return not (self.facts.has_derivative(lhs, stmt) and self.facts.derivative_read_later(lhs, stmt))

    # --- types and zeros ------------------------------------------------------------------------
    def symbol_of(self, ref: Node):
        while ref.op in ("arrayAccess", "fieldAccess", "deref"):
            ref = ref.kids[0]
        if ref.op != "ident" or self.procedure is None:
            return None
        return self.procedure.scope.lookup(ref.kids[0])

    def kind_of(self, expr: Node) -> int | None:
        """The real kind an expression computes in (8 when it reads a real(8) variable): the
        largest kind of its real(8) constants and real variables (not of array indices).
        Remembered per sub-tree: the chain rule asks it at every level of an expression."""
        stack = [(expr, False)]
        while stack:
            node, operands_known = stack.pop()
            if operands_known:
                kinds = [self._kinds[id(k)][2] for k in _operands(node)]
                kinds.append(self._leaf_kind(node))
                found = [k for k in kinds if k]
                self._kinds[id(node)] = (node, self.procedure, max(found) if found else None)
            elif not self._kind_known(node):
                stack.append((node, True))
                stack.extend((k, False) for k in _operands(node))
        return self._kinds[id(expr)][2]

    def _kind_known(self, node: Node) -> bool:
        known = self._kinds.get(id(node))
        return known is not None and known[0] is node and known[1] is self.procedure

    def _leaf_kind(self, node: Node) -> int | None:
        if node.op == "realCst":
            return 8 if node.kids[1] == 8 else None
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
        """0.0 of the kind of the reference's variable."""
        typ = self.element_type(ref)
        return Node("realCst", ("0.0", (typ.kids[1] if typ is not None else None) or 4))

    def local_declaration(self, decl: Node) -> Node:
        """A C declaration in a block, followed by that of the derivatives of its variables."""
        if self.procedure is None:
            return Node("block", (decl,))
        derived = derivative_declarations((decl,), self.facts.diff_variables(self.procedure.name), self.names.var)
        if len(derived) == 1:
            return Node("block", derived)
        # a passive initial value has the zero derivative
        initialized = {self.names.var(d.kids[0]) for d in decl.kids[2] if d.kids[2] is not None}
        zero = self.zero_like(Node("ident", (decl.kids[2][0].kids[0],)))
        typ, attrs, declarators = derived[1].kids
        declarators = tuple(d.with_kids(d.kids[0], d.kids[1], zero if d.kids[0] in initialized else None, d.kids[3])
                            for d in declarators)
        return Node("block", (decl, Node("varDecl", (typ, attrs, declarators), derived[1].ann)))

    def derivative_ann(self, stmt: Node):
        """Annotations of a derivative statement: the source line of the statement it comes from."""
        return stmt.ann.discard("label").discard("directives").set("derivative", True)

    # --- procedures and calls --------------------------------------------------------------------
    def differentiated_procedure(self, proc: Node, body_d: Node) -> Node:
        name, kind, params, result, rtype, attrs, decls, _, contains = proc.kids
        if contains:
            self.unsupported(proc, "differentiating a procedure with internal procedures")
        diff_names = self.facts.diff_variables(name)
        declared = {d.kids[0] for decl in proc.kids[6] + tuple(walk(proc.kids[7]))
                    if isinstance(decl, Node) and decl.op == "varDecl" for d in decl.kids[2]}
        scope = self.program.procedure(name).scope
        for other in sorted(diff_names - set(params)):
            sym = scope.lookup(other)
            if sym is not None and sym.common is not None:
                self.unsupported(proc, f"an active COMMON variable ({other})")
        for other in sorted(diff_names - set(params) - declared - {result or name}):
            sym = scope.lookup(other)
            if sym is not None and sym.kind == "variable":
                self.unsupported(proc, f"an active global variable ({other}: its derivative would live in "
                                       f"the differentiated module or file)")
        args = differentiated_arguments(params, lambda f: self.facts.is_diff_formal_arg(name, f), self.names.var)
        body_d = Node("block", self.initial_zeros(name, decls) + body_d.kids)
        temps = tuple(Node("varDecl", (Node("type", ("real", kind, None)), attrs, (Node("declarator", (temp, None, None, 0)),)))
                      for temp, kind, attrs in self.extra_declarations)
        if kind == "function" and not _is_void(rtype) and self.lang != "fortran":
            # C (fig. 8): F_D returns the derivative; the value goes out through a last pointer argument
            result_name = self.c_result_name(proc)
            pointer = Node("varDecl", (rtype, (), (Node("declarator", (result_name, None, None, 1)),)))
            decls_d = derivative_declarations(decls, diff_names, self.names.var) + (pointer,) + temps
            return Node("procedure", (self.names.proc(name), kind, args + (result_name,), None, rtype, attrs,
                                      decls_d, body_d, ()), proc.ann)
        if kind == "function" and not _is_void(rtype):
            # fig. 5, 8: F_D returns the derivative of the result; the result is an extra last argument
            result_name = result or name
            args = args + (result_name,)
            result_d = self.names.var(result_name)
            decls_d = derivative_declarations(decls, diff_names | {result_name}, self.names.var) + temps
            if rtype is not None:  # the header's type now types the derivative; the result is declared
                decls_d = (Node("varDecl", (rtype, (), (Node("declarator", (result_name, None, None, 0)),))),) + decls_d
            return Node("procedure", (self.names.proc(name), kind, args, result_d, rtype, attrs, decls_d, body_d, ()),
                        proc.ann)
        decls_d = derivative_declarations(decls, diff_names, self.names.var) + temps
        return Node("procedure", (self.names.proc(name), kind, args, result, rtype, attrs, decls_d, body_d, ()),
                    proc.ann)

    # --- function calls inside expressions (split out first, fig. 10: result1, result1d) -------
    def function_call_derivative(self, call: Node, stmt: Node) -> Node:
        """The derivative of an active function call inside stmt's expressions: a statement
        `resultNd = F_D(args and derivatives, resultN)` goes before stmt, which then reads
        resultN instead of calling F again; the derivative is resultNd."""
        name = call.kids[0]
        try:
            callee = self.program.procedure(name)
        except KeyError:
            self.unsupported(stmt, f"an active call of the external function {name}")
        temp = self.names.temp("result1")
        temp_d = self.names.var(temp)
        kind = self.result_kind(callee)
        self.extra_declarations.extend(((temp, kind, ()), (temp_d, kind, ())))
        function_d = self.names.proc(callee.source_name)
        if self.lang == "fortran" and (function_d, kind, ("external",)) not in self.extra_declarations:
            self.extra_declarations.append((function_d, kind, ("external",)))
        before, actuals = self.call_arguments(call, stmt)
        self.pending.extend(before)
        result_arg = Node("ident", (temp,)) if self.lang == "fortran" else Node("address", (Node("ident", (temp,)),))
        self.pending.append(Node("assign", (Node("ident", (temp_d,)), Node("call", (function_d, actuals + (result_arg,)))),
                                 self.derivative_ann(stmt)))
        self.replacements[id(call)] = Node("ident", (temp,))
        return Node("ident", (temp_d,))

    def c_result_name(self, proc: Node) -> str:
        """The pointer argument through which a differentiated C function gives its value."""
        return self.names.result_pointer(proc.kids[0])

    def return_value(self, stmt: Node, value_d) -> Node:
        """*RESULT = E ; return Ed (after the differentiated calls split out of E)."""
        proc = self.procedure.node
        result = Node("deref", (Node("ident", (self.c_result_name(proc),)),))
        kind = self.result_kind(self.procedure)
        value_d = self.with_results(value_d) if value_d is not None else Node("realCst", ("0.0", kind))
        primal = self.primal(stmt)
        value = primal[-1].kids[0]
        give = Node("assign", (result, value), stmt.ann.discard("label"))
        return Node("block", primal[:-1] + (give, Node("return", (value_d,), stmt.ann.discard("label"))))

    def result_kind(self, callee) -> int:
        result = callee.node.kids[3] or callee.node.kids[0]
        sym = callee.scope.lookup(result)
        typ = sym.type if sym is not None and sym.type is not None else callee.node.kids[4]
        return (typ.kids[1] if typ is not None and typ.op == "type" else None) or 4

    def with_results(self, expr: Node) -> Node:
        """expr (a derivative expression, whose partials may hold the calls split out) reading
        the calls' results instead of calling again."""
        return _replaced(expr, self.replacements) if self.replacements else expr

    def take_pending(self) -> tuple:
        """The differentiated calls split out of the statement so far (and forget them)."""
        pending, self.pending, self.replacements = tuple(self.pending), [], {}
        return pending

    def primal(self, stmt: Node) -> tuple:
        """The statements for stmt's copy: the derivative calls split out of it, then stmt with
        the calls they replace read from their results."""
        copy = self.with_results(stmt)
        return self.take_pending() + (copy,)

    def initial_zeros(self, name: str, decls) -> tuple:
        """vd = 0 at the start for the derivatives that are zero there but may be read (4.6)."""
        reset = self.facts.diff_variables(name) & self.facts.zero_at_entry(name)
        out = []
        for decl in decls:
            if decl.op != "varDecl" or "parameter" in decl.kids[1]:
                continue
            for d in decl.kids[2]:
                if d.kids[0] in reset:
                    ref = Node("ident", (d.kids[0],))
                    out.append(Node("assign", (Node("ident", (self.names.var(d.kids[0]),)), self.zero_like(ref))))
        return tuple(out)

    def call_arguments(self, call: Node, stmt: Node | None = None):
        """(statements before the call, actual arguments of the differentiated call). stmt:
        the statement holding the call, when it is a function call inside an expression."""
        stmt = stmt if stmt is not None else call
        name, actuals = call.kids
        try:
            callee = self.program.procedure(name)
        except KeyError:
            return self.external_call_arguments(call, stmt)
        if any(a.op == "namedArg" for a in actuals):
            self.unsupported(call, "an active call with keyword arguments")
        before, out = [], []
        for index, (formal, actual) in enumerate(zip(callee.formals, actuals)):
            out.append(actual)
            if not self.facts.is_diff_formal_arg(callee.name, formal):
                continue
            if self.facts.actual_is_active(call, index):
                if actual.op in ("ident", "arrayAccess", "fieldAccess", "address", "deref"):
                    derived, _ = self.ruleset.apply("ref", actual, self)
                    out.append(derived)
                else:  # an expression: its value and its derivative go through temporaries
                    out[-1], derived = self.expression_argument(actual, callee, formal, before, stmt)
                    out.append(derived)
            else:  # fig. 8: a dummy derivative, zero, for this call's passive actual
                out.append(self.dummy_zero(actual, before, call))
        if len(actuals) != len(callee.formals):
            self.unsupported(call, "a call with optional arguments left out")
        return tuple(before), tuple(out)

    def external_call_arguments(self, call: Node, stmt: Node):
        """A procedure with no source (Tapenade's behaviour): its differentiated version is
        called with each real reference argument followed by its derivative (zero when the
        actual is passive), and the user must provide it (a warning in the .msg file)."""
        name, actuals = call.kids
        before, out = [], []
        for index, actual in enumerate(actuals):
            out.append(actual)
            if not self.is_real_reference(actual):
                continue
            if self.facts.actual_is_active(call, index):
                derived, _ = self.ruleset.apply("ref", actual, self)
                out.append(derived)
            else:
                out.append(self.dummy_zero(actual, before, call))
        self.warn(stmt, f"{name} has no source: {self.names.proc(name)} must be provided, taking each real "
                        f"argument followed by its derivative")
        return tuple(before), tuple(out)

    def is_real_reference(self, actual: Node) -> bool:
        if actual.op not in ("ident", "arrayAccess", "fieldAccess", "deref", "address"):
            return False
        typ = self.element_type(actual.kids[0] if actual.op == "address" else actual)
        return typ is not None and typ.kids[0] in ("real", "complex")

    def expression_argument(self, actual: Node, callee, formal: str, before: list, stmt: Node):
        """argN = EXPR ; argNd = EXPRd before the call, which passes argN, argNd."""
        sym = callee.scope.lookup(formal)
        if sym is not None and sym.dims:
            self.unsupported(stmt, "an active array expression as an actual argument")
        kind = (sym.type.kids[1] if sym is not None and sym.type is not None and sym.type.op == "type" else None) or 4
        value_d, _ = self.ruleset.apply("expr", actual, self, stmt)
        temp = self.names.temp("arg1")
        temp_d = self.names.var(temp)
        self.extra_declarations.extend(((temp, kind, ()), (temp_d, kind, ())))
        before.append(Node("assign", (Node("ident", (temp,)), self.with_results(actual)),
                           stmt.ann.discard("label").discard("directives")))
        before.append(Node("assign", (Node("ident", (temp_d,)), value_d if value_d is not None
                                      else Node("realCst", ("0.0", kind))), self.derivative_ann(stmt)))
        return Node("ident", (temp,)), Node("ident", (temp_d,))

    def dummy_zero(self, actual: Node, before: list, call: Node) -> Node:
        sym = self.symbol_of(actual) if actual.op in ("ident", "arrayAccess") else None
        if sym is not None and sym.dims and actual.op == "ident":
            self.unsupported(call, "a passive array passed where the callee expects a derivative")
        temp = self.names.temp("dummyzerod", derivative=True)
        zero = self.zero_like(actual) if sym is not None else Node("realCst", ("0.0", 8))
        self.extra_declarations.append((temp, zero.kids[1], ()))
        before.append(Node("assign", (Node("ident", (temp,)), zero), call.ann.discard("label")))
        return Node("ident", (temp,))


def _operands(node: Node) -> list:
    """The sub-trees whose kinds make node's kind: none for a name or a constant, the array
    of an array element (not its indices), every child node otherwise."""
    if node.op in ("ident", "realCst"):
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


def _is_void(rtype) -> bool:
    return rtype is not None and rtype.op == "type" and rtype.kids[0] == "void"
