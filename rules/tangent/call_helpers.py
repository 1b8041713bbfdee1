"""The tangent context's helpers for procedure calls (paper 5.3, the call rules and fig. 10):
the arguments of a differentiated call (derivatives of active actuals, dummy zeros for passive
ones, temporaries for expressions), function calls split out of expressions into
`resultN = F_D(...)`, a C function's result given through a pointer, and the derivative resets
after passive calls. A mixin of TangentContext (rules/tangent/context.py), whose other helpers
(zeros, types, the facts) these use."""
from __future__ import annotations

from ...engine.il import Node
from .types import is_void


class CallHelpers:
    """Mixed into TangentContext: `self` is the context."""

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
        typ, typ_d = self.temporary_types(self.result_type(callee), stmt)
        self.extra_declarations.extend(((temp, typ, ()), (temp_d, typ_d, ())))
        function_d = self.names.proc(callee.source_name)
        external = (function_d, typ_d, ("external",))
        # a module's or host's procedure has an explicit interface: no EXTERNAL
        explicit = callee.scope.parent is not None and callee.scope.parent.kind in ("module", "procedure")
        if self.lang == "fortran" and not explicit and external not in self.extra_declarations:
            self.extra_declarations.append(external)
        before, actuals = self.call_arguments(call, stmt)
        self.pending.extend(before)
        result_arg = Node("ident", (temp,)) if self.lang == "fortran" else Node("address", (Node("ident", (temp,)),))
        if None in _in_dummy_order(callee, call.kids[1]):  # after an optional argument left out: by keyword
            result_arg = Node("namedArg", (callee.node.kids[3] or callee.source_name, result_arg))
        self.pending.append(Node("assign", (Node("ident", (temp_d,)), Node("call", (function_d, actuals + (result_arg,)))),
                                 self.derivative_ann(stmt)))
        self.replacements[id(call)] = Node("ident", (temp,))
        return Node("ident", (temp_d,))

    def discarded_result(self, call: Node) -> tuple:
        """C: a function called as a statement, its value dropped: F_D still gives the value
        through its last pointer argument, here a temporary nobody reads."""
        try:
            callee = self.program.procedure(call.kids[0]) if self.lang == "c" else None
        except KeyError:  # an external procedure
            callee = None
        if callee is None:
            return ()
        if callee.node.kids[1] != "function" or is_void(callee.node.kids[4]):
            return ()
        temp = self.names.temp("result1")
        self.extra_declarations.append((temp, self.temporary_types(self.result_type(callee), call)[0], ()))
        return (Node("address", (Node("ident", (temp,)),)),)

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

    def result_type(self, callee) -> Node | None:
        """The type of a function's result (Fortran: of its RESULT variable, if declared apart)."""
        if self.lang != "fortran":
            return callee.node.kids[4]
        sym = callee.scope.lookup(callee.node.kids[3] or callee.node.kids[0])
        return sym.type if sym is not None and sym.type is not None else callee.node.kids[4]

    def result_kind(self, callee) -> int:
        typ = self.result_type(callee)
        return (typ.kids[1] if typ is not None and typ.op == "type" else None) or 4

    def temporary_types(self, typ: Node | None, stmt: Node) -> tuple:
        """(type of a temporary holding a value of type typ, type of its derivative), as
        extra_declarations takes them: the real kind of a real (4 when unknown), for both; a
        structure's type and its T_diff (Fortran: T as the procedure being differentiated sees it)."""
        if typ is None or typ.op == "type":
            kind = (typ.kids[1] if typ is not None else None) or 4
            return kind, kind
        if self.lang == "fortran" and (typ.op != "typeRef"
                                       or self.types.type_def(self.procedure.scope, typ.kids[0]) is None):
            self.unsupported(stmt, f"a temporary of a type that {self.procedure.source_name} does not see")
        return typ, self.derivative_type(typ)

    def call_arguments(self, call: Node, stmt: Node | None = None):
        """(statements before the call, actual arguments of the differentiated call). stmt:
        the statement holding the call, when it is a function call inside an expression."""
        stmt = stmt if stmt is not None else call
        name, actuals = call.kids
        try:
            callee = self.program.procedure(name)
        except KeyError:
            return self.external_call_arguments(call, stmt)
        by_formal = _in_dummy_order(callee, actuals)
        before, out, keyword = [], [], False
        for formal, given in zip(callee.formals, by_formal):
            if given is None:  # an OPTIONAL argument left out: its derivative too, and what follows goes by keyword
                if not _is_optional(callee, formal):
                    self.unsupported(call, f"a call that leaves out argument {formal} of {name}, which is not OPTIONAL,")
                keyword = True
                continue
            start = len(out)
            self._append_argument(callee, formal, given, call, stmt, before, out)
            if keyword:  # after an argument left out, the value and derivative go by keyword
                out[start:] = [Node("namedArg", (n, a)) for n, a in zip((formal, self.names.var(formal)), out[start:])]
        return tuple(before), tuple(out)

    def _append_argument(self, callee, formal: str, given: tuple, call: Node, stmt: Node, before: list, out: list):
        """Appends to out the actual of formal and, when the callee takes one, its derivative."""
        name = callee.source_name
        index, actual = given
        out.append(actual)
        if not self.facts.is_diff_formal_arg(callee.name, formal):
            return
        if self.facts.actual_is_active(call, index):
            if actual.op in ("ident", "arrayAccess", "fieldAccess", "address", "deref"):
                derived, _ = self.ruleset.apply("ref", actual, self)
                out.append(derived)
                before.extend(self.zero_fields(actual, derived, self.facts.zero_fields_before_call(call, index),
                                               self.derivative_ann(stmt)))
            else:  # an expression: its value and its derivative go through temporaries
                out[-1], derived = self.expression_argument(actual, callee, formal, before, stmt)
                out.append(derived)
        elif formal in self.facts.memory_formals(callee.name):
            out.append(self.memory_actual(call, index, callee, before, stmt))
        elif self.lang == "c" and _is_pointer_formal(callee, formal):
            self.unsupported(call, f"a pointer argument ({index + 1} of {name}) that is passive or not "
                                   f"recognised as an access path, where {self.names.proc(name)} expects a "
                                   f"derivative pointer,")
        else:  # fig. 8: a dummy derivative, zero, for this call's passive actual
            formal_sym = callee.scope.lookup(formal)
            if formal_sym is not None and formal_sym.dims:  # a scalar zero (v(1)) would be written past
                out.append(self.dummy_zero_array(actual, before, call))
            else:
                out.append(self.dummy_zero(actual, before, call,
                                           formal_sym.type if formal_sym is not None else None, stmt))

    def memory_actual(self, call: Node, index: int, callee, before: list, stmt: Node) -> Node:
        """The derivative memory of a passive actual passed to a memory formal of the callee
        (facts.memory_formals): the derivative of the actual's variable, zeroed whole before
        the call when the callee expects it zeroed and cannot do it itself."""
        actual = call.kids[1][index]
        formal = callee.formals[index]
        if actual.op not in ("ident", "arrayAccess", "fieldAccess", "address", "deref") \
                or not self.facts.has_derivative(actual, stmt):
            self.unsupported(call, f"a derivative buffer for argument {index + 1} of {callee.source_name}, an "
                                   f"expression")
        derived, _ = self.ruleset.apply("ref", actual, self)
        zeroed = [caller_zeroes for f, _, caller_zeroes in self.buffers.get(callee.name, ()) if f == formal]
        if zeroed != [False]:   # unknown (recursion) counts as expected zeroed
            sym = self.symbol_of(actual)
            zeros = self._whole_zero(sym) if actual.op == "ident" and sym is not None else None
            if zeros is None:
                self.unsupported(call, f"zeroing the derivative of argument {index + 1} of {callee.source_name}, "
                                       f"of a size not known here,")
            before.extend(zeros)
        return derived

    def passive_call(self, call: Node) -> Node:
        """call P(ARGS) ; Vd = 0 for the variables it overwrites whose derivative is read later."""
        return Node("block", (call,) + self._stale_resets(call, self.facts.stale_derivatives_after(call)))

    def function_call_resets(self, stmt: Node) -> tuple:
        """Vd = 0 before stmt for the variables the passive function calls in its expressions
        overwrite and whose derivative is read later (the analyses run such a call before
        the statement, as its own instruction). A loop test runs again at each iteration, so
        a reset before the loop would not do: refused there."""
        if stmt.ann.get("sid") is None or stmt.op == "block":
            return ()
        resets = self._stale_resets(stmt, self.facts.stale_derivatives_of_calls_in(stmt), "function call")
        if resets and stmt.op in ("while", "doWhile", "for"):
            self.unsupported(stmt, "a passive function call in a loop control that overwrites a variable whose "
                                   "derivative is read later")
        return resets

    def _stale_resets(self, stmt: Node, stale: tuple, what: str = "call") -> tuple:
        killed, partial = stale
        if partial:
            self.unsupported(stmt, f"a passive {what} that may overwrite part of {sorted(partial)[0]}, whose "
                                   f"derivative is read later")
        return tuple(r for v in sorted(killed) for r in self.zero_assignments(
            Node("ident", (self.names.var(v),)), Node("ident", (v,)), self.derivative_ann(stmt)))

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
        if sym is not None and (sym.dims or (self.lang == "c" and sym.is_pointer)):
            self.unsupported(stmt, "an active array expression as an actual argument")
        typ, typ_d = self.temporary_types(sym.type if sym is not None else None, stmt)
        value_d, _ = self.ruleset.apply("expr", actual, self, stmt)
        temp = self.names.temp("arg1")
        temp_d = self.names.var(temp)
        self.extra_declarations.extend(((temp, typ, ()), (temp_d, typ_d, ())))
        before.append(Node("assign", (Node("ident", (temp,)), self.with_results(actual)),
                           stmt.ann.discard("label").discard("directives")))
        if value_d is None and not isinstance(typ, int):
            self.unsupported(stmt, "a passive structure expression as an active actual argument")
        before.append(Node("assign", (Node("ident", (temp_d,)), value_d if value_d is not None
                                      else Node("realCst", ("0.0", typ))), self.derivative_ann(stmt)))
        return Node("ident", (temp,)), Node("ident", (temp_d,))

    def dummy_zero(self, actual: Node, before: list, call: Node, formal_type: Node | None = None,
                   stmt: Node | None = None) -> Node:
        """A zero derivative for a passive actual: dummyzerod = 0 before the call (for a
        structure, of the derivative type, field by field). formal_type: the callee's formal's;
        stmt: the statement holding the call."""
        sym = self.symbol_of(actual) if actual.op in ("ident", "arrayAccess") else None
        if sym is not None and sym.dims and actual.op == "ident":
            self.unsupported(call, _PASSIVE_ARRAY)
        temp = self.names.temp("dummyzerod", derivative=True)
        if formal_type is not None and formal_type.op != "type":  # a structure (passed by value in C)
            paths = self.facts.structure_fields(call, actual)
            if not paths:
                self.unsupported(stmt or call, "a passive structure expression passed where the callee expects a "
                                               "derivative")
            self.extra_declarations.append((temp, self.temporary_types(formal_type, call)[1], ()))
            before.extend(self.zero_fields(actual, Node("ident", (temp,)), paths, call.ann.discard("label"), call))
            return Node("ident", (temp,))
        if formal_type is not None and formal_type.kids[0] == "real":  # the callee's kind, not the actual's
            zero = Node("realCst", ("0.0", formal_type.kids[1] or 4))
        else:
            zero = self.zero_like(actual) if sym is not None else Node("realCst", ("0.0", 8))
        self.extra_declarations.append((temp, zero.kids[1], ()))
        before.append(Node("assign", (Node("ident", (temp,)), zero), call.ann.discard("label")))
        return Node("ident", (temp,))


    def dummy_zero_array(self, actual: Node, before: list, call: Node) -> Node:
        """A zero derivative for a passive actual passed to an array dummy (Fortran): a zeroed
        array shaped like the actual's whole array, passed as the actual is (dummyzerod for c,
        dummyzerod(2) for c(2): the dummy may reach every element after it by sequence
        association; dummyzerod(2:5) for c(2:5))."""
        base = actual.kids[0] if actual.op == "arrayAccess" else actual
        sym = self.symbol_of(base) if base.op == "ident" else None
        if self.lang != "fortran" or sym is None or not sym.dims or sym.attrs & {"pointer", "allocatable"} \
                or any(d.kids[1] is None or d.kids[1].op == "star" for d in sym.dims):
            self.unsupported(call, _PASSIVE_ARRAY)
        temp = Node("ident", (self.names.temp("dummyzerod", derivative=True),))
        zero = self.zero_like(base)
        self.extra_declarations.append((temp.kids[0], zero.kids[1], (), tuple(sym.dims)))
        before.append(Node("assign", (temp, zero), call.ann.discard("label")))
        return temp if actual.op == "ident" else Node("arrayAccess", (temp, actual.kids[1]))


_PASSIVE_ARRAY = "a passive array passed where the callee expects a derivative"


def _is_pointer_formal(callee, formal: str) -> bool:
    sym = callee.scope.lookup(formal)
    return sym is not None and sym.is_pointer


def _in_dummy_order(callee, actuals: tuple) -> list:
    """(index in the source call, actual value) for each formal of callee, in the dummy order,
    as far as the actuals give them: keyword arguments (g(x, c=y, b=z)) go to their dummy's
    place, so the differentiated call passes every value and derivative by position (the
    analyses number the actuals in the source order: the index is kept for them)."""
    found = {}
    for index, actual in enumerate(actuals):
        if actual.op == "namedArg":
            found[callee.formals.index(actual.kids[0])] = (index, actual.kids[1])
        else:
            found[index] = (index, actual)
    return [found.get(position) for position in range(len(callee.formals))]


def _is_optional(callee, formal: str) -> bool:
    sym = callee.scope.lookup(formal)
    return sym is not None and "optional" in sym.attrs
