"""The adjoint context's helpers for procedure calls (paper 5.4, the call rules; 4.5, 4.10,
fig. 8 and 13): the snapshot of a checkpointed call pushed whole (arrays with their size,
never their first element only), the actual arguments of P_b with their INITS and POSTS,
the function calls taken out of expressions into temporaries, and the adjoint arguments of
a procedure that is called (they go in and out as the caller's). A mixin of AdjointContext
(rules/adjoint/context.py): `self` is the context."""
from __future__ import annotations

from ...analyses.common import saved_locals
from ...engine.il import EMPTY_ANN, Node, walk, walk_statements
from ..tangent.call_helpers import _in_dummy_order, _is_optional
from ..tangent.context import _replaced
from ..tangent.types import is_void
from .array_support import _root
from .c_data import pointer_key
from .dummy_arrays import DummyArrays
from .call_sections import SectionSupport

REFERENCES = ("ident", "arrayAccess", "deref")
_NO_RECORD = Node("block", (Node("block", ()), Node("block", ())))   # no push, no pop, no reset


class CallSupport(SectionSupport, DummyArrays):
    """Mixed into AdjointContext."""

    # --- saving whole variables (snapshots, RVARS of calls) ---------------------------------
    def saved(self, names, node: Node) -> Node:
        """[push(V1..Vn) ; pop(Vn..V1)] of the named variables, each whole: a scalar by
        push(V), an array by pushReal8Array(A, size) / PUSHREAL8ARRAY(A, size)."""
        pushes, pops = [], []
        scalars = frozenset(n for n in names if (s := self.procedure.scope.lookup(n)) is not None
                            and not s.dims and not s.ptr)
        blocks = {}   # the blocks reached through pointer components of local structures, once each
        for name in sorted(names, key=lambda n: (n in scalars, n)):  # sections first: their bounds
            # may read the scalars, popped before them
            sym = self.procedure.scope.lookup(name)
            component = self.component_of_block(name) if sym is None and self.c and node.op == "call" else None
            if component is not None:
                if pointer_key(component) not in blocks:
                    blocks[pointer_key(component)] = True
                    forward, backward = self.component_block_saved(component, node, scalars)
                    pushes.extend(forward)
                    pops.extend(backward)
                continue
            if sym is None and self.c and name.startswith("heap@"):   # a block this procedure allocates
                forward, backward = self.heap_saved(name, node, scalars)
                pushes.extend(forward)
                pops.extend(backward)
                continue
            if sym is None or "parameter" in sym.attrs:
                self.refuse(node, f"saving {name} around a call (it is not a variable of "
                                  f"{self.procedure.source_name})")
            ref = Node("ident", (name,))
            if not sym.dims and not sym.ptr:
                pushes.append(self.push(ref, sym.type))
                pops.append(self.pop(ref, sym.type))
                continue
            if self.c and sym.ptr == 1 and not sym.dims and self.c_structure(Node("deref", (ref,))):
                forward, backward = self.structure_saved(name, node)
                pushes.append(forward)
                pops.append(backward)
                continue
            size = self.array_size(sym)
            word = self._kind_word(ref, sym.type) + "Array"
            if size is None:
                forward, backward = self.sections_saved(name, node, word, scalars)
                pushes.extend(forward)
                pops.extend(backward)
                continue
            first = ref if not self.c else _first_element(ref, len(sym.dims or ()))
            pushes.append(Node("call", (self._stack_name("push", word), (first, size))))
            pops.append(Node("call", (self._stack_name("pop", word), (first, size))))
        return Node("block", (Node("block", tuple(pushes)), Node("block", tuple(reversed(pops)))))

    def array_size(self, sym) -> Node | None:
        """The number of elements of the array sym as an expression of the procedure, None
        when only the caller knows it (pointers, assumed size or shape, allocatable) or when
        it reads a variable the procedure assigns."""
        if sym.dims is None or (self.c and sym.ptr) or sym.attrs & {"pointer", "allocatable"}:
            return None
        size = None
        for dim in sym.dims:
            low, high = dim.kids[0], dim.kids[1]
            if high is None or high.op == "star":
                return None
            extent = high if self.c or low is None or low == Node("intCst", (1, None)) else \
                Node("add", (Node("sub", (high, low)), Node("intCst", (1, None))))
            size = extent if size is None else Node("mul", (size, extent))
        assigned = {n.kids[0].kids[0] for n in walk_statements(self.procedure.node.kids[7])
                    if n.op == "assign" and n.kids[0].op == "ident"}
        if any(n.op == "ident" and n.kids[0] in assigned for n in walk(size)):
            return None
        return size

    # --- the snapshot of a call --------------------------------------------------------------
    def snapshot(self, call: Node) -> Node:
        """[push(SNP) ; pop(SNP)] (the snapshot predicate of 5.4): SNP of the analyses, plus
        the scalars the actual arguments read besides the memory they pass (the indices of
        `a(k)`, the variables of an expression argument), which P_b needs as the call saw them."""
        return self.saved(self.facts.snapshot_names(call) | self._argument_reads(call), call)

    def call_record(self, call: Node) -> Node:
        """[push(RVARS) ; pop(RVARS)] of a call that is not differentiated."""
        return self.saved(self.facts.call_record_names(call), call)

    def _argument_reads(self, call: Node) -> frozenset:
        out = set()
        hoisted = tuple(n for n in walk(call.kids[1]) if n.op == "call" and self.is_hoisted(n))
        for actual in self.without_calls(call.kids[1], hoisted):
            actual = actual.kids[1] if actual.op == "namedArg" else actual
            inner = actual.kids[0] if actual.op == "address" else actual
            if inner.op in REFERENCES:
                read = [i for n in walk(inner) if n.op == "arrayAccess" for i in walk(n.kids[1])]
            else:
                read = list(walk(actual))
            for n in read:  # a constant or an INTENT(IN) formal keeps its value: nothing to restore
                sym = self.procedure.scope.lookup(n.kids[0]) if isinstance(n, Node) and n.op == "ident" else None
                if sym is not None and not sym.attrs & {"parameter", "intent(in)"}:
                    out.add(n.kids[0])
        kept = self._kept_pointers(call, out)
        return frozenset(out - kept)

    def _kept_pointers(self, call: Node, names: set) -> set:
        """The C pointers to structures among names (`a` of `a->nrows`) whose value and memory
        neither the call nor the sequel's sweeps change (Adj-out⁺(C)): the actual reads the
        same there (the structures themselves, of a number not known here, could not be saved)."""
        pointers = {n for n in names if self.c and (sym := self.procedure.scope.lookup(n)) is not None
                    and sym.ptr == 1 and not sym.dims and self.c_structure(Node("deref", (Node("ident", (n,)),)))}
        if not pointers:
            return set()
        return pointers - self.facts.modified_after_names(call) - self.facts.call_written_names(call)

    def call_matters(self, call: Node) -> bool:
        """A call that is not differentiated stays: it is diff-live, or it overwrites a
        variable whose adjoint is read later (which must be reset)."""
        return self.facts.is_live_call(call) or bool(self.facts.stale_derivatives_after(call)[0])

    def call_unneeded(self, call: Node) -> bool:
        return not self.call_matters(call)

    def adjoint_resets(self, call: Node, stale: tuple | None = None) -> Node:
        """Vb = 0 for what the call overwrites whose adjoint may be read later: the value V
        had before the call does not reach the results. A variable it may overwrite only in
        part is refused. `stale`: (killed, partial) when not the call's own."""
        killed, partial = self.facts.stale_derivatives_after(call) if stale is None else stale
        if partial:
            self.refuse(call, f"a call that may overwrite part of {sorted(partial)[0]}, whose adjoint is read later")
        return Node("block", tuple(r for v in sorted(killed) for r in self.zero_assignments(
            self._adjoint_of(Node("ident", (v,))), Node("ident", (v,)), EMPTY_ANN)))

    # --- function calls taken out of expressions --------------------------------------------
    def passive_calls_record(self, stmt: Node) -> Node:
        """[push(RVARS) ; pop(RVARS); Vb = 0] of the function calls in stmt's expressions that
        are not active: like a passive call statement, such a call may overwrite a global
        that a derivative instruction before it reads (RVARS) or whose adjoint is read later
        (reset). They run inside stmt: the pushes go before it, the pops and resets after its
        backward sweep. In a loop's control they would run at every iteration: refused there."""
        calls = self.facts.passive_function_calls(stmt) if stmt.ann.get("sid") is not None \
            and stmt.op != "block" else ()
        if not calls:   # most statements: one answer for all (as A-call-dead's empty pair)
            return _NO_RECORD
        records = [self.call_record(c) for c in calls]
        resets = self.adjoint_resets(stmt, self.facts.stale_derivatives_of_calls_in(stmt)) if calls else Node("block", ())
        pushes = tuple(r.kids[0] for r in records if r.kids[0].kids)
        if (pushes or resets.kids) and stmt.op in ("for", "while", "doWhile"):
            self.refuse(stmt, "a passive function call in a loop's control that overwrites an active variable")
        pops = tuple(r.kids[1] for r in reversed(records) if r.kids[1].kids)
        return Node("block", (Node("block", pushes), Node("block", pops + resets.kids)))

    def hoisted_calls(self, stmt: Node) -> tuple:
        """The active function calls of the source in stmt's own expressions, innermost first
        (refused in a loop's test or step, which runs them at every iteration). Kept per
        statement: three guards and the sequence rule ask it of each statement."""
        return self._kept(self._hoisted_calls, stmt, self._hoisted_calls_of)

    def _hoisted_calls_of(self, stmt: Node) -> tuple:
        if stmt.ann.get("sid") is None:
            return ()
        calls = tuple(c for c in self.facts.active_function_calls(stmt) if self.is_hoisted(c))
        if calls and stmt.op in ("for", "while", "doWhile"):
            self.refuse(stmt, "an active function call in a loop's control")
        return calls

    def has_hoisted_calls(self, stmt: Node) -> bool:
        return bool(self.hoisted_calls(stmt))

    def no_hoisted_calls(self, stmt: Node) -> bool:
        return not self.hoisted_calls(stmt)

    def not_hoisted(self, call: Node) -> bool:
        return not self.is_hoisted(call)

    def is_hoisted(self, call: Node) -> bool:
        """An active call of a function of the source, inside an expression: it runs before
        the statement, its value in a temporary (the flow graph's split call)."""
        if call.ann.get("sid") is not None:
            return False
        try:
            return self.facts.is_source_call(call) and self.facts.is_active_call(call)
        except ValueError:  # a call the flow graph did not split out (none of the analysed program's)
            return False

    def result_temp(self, call: Node) -> Node:
        """The temporary holding the value of the hoisted call (one per call expression); a
        structure's adjoint temporary is of its T_DIFF type (rules/tangent/types.py)."""
        known = self._result_temps.get(id(call))
        if known is None:
            callee = self.program.procedure(call.kids[0])
            typ, typ_b = self.temporary_types(self.result_type(callee), call)
            name = self.names.temp(f"{callee.source_name}_result")
            self.extra_declarations.append((name, typ, ()))
            self.extra_declarations.append((self.names.var(name), typ_b, ()))
            known = self._result_temps[id(call)] = (call, Node("ident", (name,)), typ)
        return known[1]

    def result_structure(self, name: str) -> Node | None:
        """The struct type of the temporary `name` of a hoisted call, None for any other name."""
        kinds = [k for _, temp, k in self._result_temps.values() if temp.kids[0] == name]
        return kinds[0] if kinds and isinstance(kinds[0], Node) else None

    def temp_resets(self, call: Node) -> tuple:
        """TEMPb = 0 before the statement's backward sweep increments it (each real component
        of a structure)."""
        self.result_temp(call)
        temp_b, typ = self.temp_adjoint(call), self._result_temps[id(call)][2]
        if isinstance(typ, Node):
            return self.zero_structure(temp_b, typ)
        return (Node("assign", (temp_b, Node("realCst", ("0.0", typ)))),)

    def zero_structure(self, adjoint: Node, typ: Node) -> tuple:
        """The adjoint of a structure of type typ zeroed whole, component by component."""
        if self.c:
            return tuple(self.whole_zero(adjoint, typ))
        return self.types.zero_assignments(adjoint, typ, self.procedure.scope, 0, _typed_zero, EMPTY_ANN)

    def temp_adjoint(self, call: Node) -> Node:
        return Node("ident", (self.names.var(self.result_temp(call).kids[0]),))

    def without_calls(self, node, calls) -> Node:
        """node with each hoisted call replaced by its temporary."""
        return _replaced(node, {id(c): self.result_temp(c) for c in calls})

    def function_primal(self, call: Node, name: str) -> Node:
        """TEMP = NAME(ARGS) (NAME: F, or F_fwd in split mode), the arguments' own hoisted
        calls read from their temporaries."""
        inner = tuple(n for n in walk(call.kids[1]) if n.op == "call" and self.is_hoisted(n))
        args = self.without_calls(call.kids[1], inner)
        return Node("assign", (self.result_temp(call), Node("call", (name, args), call.ann)))

    def result_record(self, call: Node) -> Node:
        """[push(TEMP) ; pop(TEMP)] when a derivative instruction of an earlier run of the
        statement still reads the temporary, else nothing."""
        if not self.facts.result_restored(call):
            return Node("block", (Node("block", ()), Node("block", ())))
        temp, kind = self.result_temp(call), self._result_temps[id(call)][2]
        typ = None if isinstance(kind, Node) else Node("type", ("real", kind, None))
        return Node("block", (Node("block", (self.push(temp, typ),)), Node("block", (self.pop(temp, typ),))))

    def sequence(self, stmts: tuple, pairs: tuple, hoists: tuple) -> Node:
        """The sequence rule's conclusion: each statement's pair with its hoisted calls
        (with_hoisted_calls), the forward sweeps in order, the backward sweeps reversed."""
        pairs = self.with_hoisted_calls(stmts, pairs, hoists)
        return Node("block", (Node("block", tuple(p.kids[0] for p in pairs)),
                              Node("block", tuple(p.kids[1] for p in reversed(pairs)))))

    def with_hoisted_calls(self, stmts: tuple, pairs: tuple, hoists: tuple) -> tuple:
        """Each statement's pair with the calls hoisted out of its expressions: their forward
        sweeps first, then the statement's (reading the temporaries); backward, the
        temporaries' adjoints zeroed, the statement's backward sweep (which increments them),
        then the calls' adjoints in reverse order."""
        out = []
        for stmt, pair, hoist in zip(stmts, pairs, hoists):
            calls = self.hoisted_calls(stmt)
            if not calls:
                out.append(Node("block", (Node("block", (hoist.kids[0], pair.kids[0])),
                                          Node("block", (pair.kids[1], hoist.kids[1])))))
                continue
            if any(self.passive_calls_record(stmt).kids[i].kids for i in (0, 1)):
                self.refuse(stmt, "active and passive function calls in one statement, the passive ones "
                                  "overwriting active variables")
            mine = self.without_calls(pair, calls)
            left = [n for n in walk(mine) if n.op == "call" and any(n == c for c in calls)]
            if left:
                self.refuse(stmt, f"the call of {left[0].kids[0]} inside this expression")
            zeros = tuple(z for c in calls for z in self.temp_resets(c))
            out.append(Node("block", (Node("block", (hoist.kids[0], mine.kids[0])),
                                      Node("block", zeros + (mine.kids[1], hoist.kids[1])))))
        return tuple(out)

    # --- the actual arguments of P_b (actualArgs of 5.4) ------------------------------------
    def adjoint_arguments(self, call: Node, stmt: Node) -> Node:
        """block(INITS, ARGSb, POSTS): each formal's actual, followed, when P_b has an adjoint
        for that formal, by the actual's adjoint (C: its address for a by-value formal); an
        expression gets a temporary adjoint, zero before and propagated into the expression
        after; a passive actual a dummy zero (fig. 8's dummb). A function's result adjoint
        comes last."""
        name, actuals = call.kids
        callee = self.program.procedure(name)
        by_formal = _in_dummy_order(callee, actuals)
        inits, args, posts = [], [], []
        hoisted = tuple(n for n in walk(actuals) if n.op == "call" and self.is_hoisted(n))
        passed = set()   # Fortran: roots of the adjoints passed so far, which a later one may alias
        keyword = None   # True after an OPTIONAL argument left out: the others go by keyword
        for position, (formal, given) in enumerate(zip(callee.formals, by_formal)):
            if given is None:
                if not _is_optional(callee, formal):
                    self.refuse(call, f"a call that leaves out argument {formal}, which is not OPTIONAL,")
                keyword = True
                continue
            index, actual = given
            args.append(_keyword(formal, self.without_calls(actual, hoisted), keyword))
            if not self.facts.is_diff_formal_arg(callee.name, formal):
                continue
            sym = callee.scope.lookup(formal)
            by_value = self.c and sym is not None and not sym.ptr and not sym.dims
            if self.facts.actual_is_active(call, index):
                adjoint = self._actual_adjoint(actual, sym, call, stmt, inits, posts)
                if not self.c:
                    adjoint = self._unaliased(adjoint, actual, callee, position, sym, call, passed, inits, posts)
            else:
                scalar_address = actual.op == "address" and actual.kids[0].op == "ident"   # C: &s
                if sym is not None and (sym.dims or (self.c and sym.ptr and not scalar_address)):
                    adjoint = self.dummy_array_adjoint(actual, call, inits)
                else:
                    adjoint = self._dummy_adjoint(sym, call, inits)
                    by_value = by_value or (self.c and sym is not None and sym.ptr == 1)  # C: a scalar's address
            args.append(_keyword(self.names.var(formal), _address(adjoint) if by_value else adjoint, keyword))
        if self.takes_result_adjoint(callee):
            result_b = self.names.var(callee.node.kids[3] or callee.source_name)
            args.append(_keyword(result_b, self.temp_adjoint(call) if call.ann.get("sid") is None
                                 else Node("realCst", ("0.0", 8)), keyword))
        return Node("block", (Node("block", tuple(inits)), tuple(args), Node("block", tuple(posts))))

    def takes_result_adjoint(self, proc) -> bool:
        """P_b takes the adjoint of P's value as its last argument: P is a function with a
        differentiable value that a head lists among its dependents, or that an active call
        reads. An integer value has none, nor has a head's value left out of its dependents."""
        kind, rtype = proc.node.kids[1], proc.node.kids[4]
        zones = proc.zones
        if kind != "function" or is_void(rtype) or not zones.result_zones & zones.differentiable_mask:
            return False
        head = self.facts.results.heads.get(proc.name)
        return head is None or bool(head[1] & zones.result_zones) or self.facts.is_called(proc.name)

    def _unaliased(self, adjoint: Node, actual: Node, callee, position: int, sym, call: Node, passed: set,
                   inits: list, posts: list) -> Node:
        """`call g(x, x, t)`: P_b increments both dummies' adjoints, which would be one
        variable under two names (Fortran forbids it, and gfortran -O2 then keeps one update
        only). The second gets a temporary, zero before and added to xb after: a scalar, or
        an array declared as the caller's whole array x. The primal may alias the two only
        because it writes neither: their adjoints are both `incr`."""
        root = _root(adjoint)
        if root not in passed:
            passed.add(root)
            return adjoint
        zones = callee.zones.formal_zones[position]
        if zones & self.facts.results.inout.may_written(callee):
            self.refuse(call, f"the same variable ({root}) passed to two arguments whose adjoints both change")
        if sym is not None and sym.dims:
            whole = self.symbol_of(actual) if actual.op == "ident" else None
            if whole is None or not whole.dims or any(d.kids[1] is None or d.kids[1].op == "star" for d in whole.dims):
                self.refuse(call, f"the same array ({root}) passed to two arguments, other than whole and of a "
                                  f"size known here")
            temp = Node("ident", (self.names.temp(root, derivative=True),))
            self.extra_declarations.append((temp.kids[0], _real_type(whole), tuple(whole.dims)))
        else:
            temp = self.fresh(root, _real_type(sym))
        inits.append(Node("assign", (temp, _zero(_real_type(sym)))))
        posts.append(Node("assign", (adjoint, Node("add", (adjoint, temp)))))
        return temp

    def _dummy_adjoint(self, formal, call: Node, inits: list) -> Node:
        """fig. 8's dummb, zero, for a passive actual; of the formal's T_diff type for a
        structure, zeroed whole."""
        typ = formal.type if formal is not None else None
        if typ is not None and (typ.op == "typeRef" or (self.c and self.structure_type(typ))):
            adjoint = self.fresh("dummyb", self.temporary_types(typ, call)[1])
            inits.extend(self.zero_structure(adjoint, typ))
            return adjoint
        adjoint = self.fresh("dummyb", _real_type(formal))
        inits.append(Node("assign", (adjoint, _zero(_real_type(formal)))))
        return adjoint

    def _actual_adjoint(self, actual: Node, formal, call: Node, stmt: Node, inits: list, posts: list) -> Node:
        if actual.op == "call" and self.is_hoisted(actual):
            return self.temp_adjoint(actual)
        if actual.op == "address" and actual.kids[0].op in REFERENCES:
            derived, _ = self.ruleset.apply("ref", actual.kids[0], self)
            return _address(derived)
        if actual.op in REFERENCES:
            derived, _ = self.ruleset.apply("ref", actual, self)
            return derived
        if formal is not None and (formal.dims or (self.c and formal.ptr)):
            self.refuse(call, "an active array expression as an actual argument")
        temp = self.fresh("argb", _real_type(formal))
        inits.append(Node("assign", (temp, _zero(_real_type(formal)))))
        derived, _ = self.ruleset.apply("adjexpr", actual, self, temp, stmt)
        posts.append(derived)
        return temp

    # --- a procedure that is called: its adjoint arguments are the caller's -------------------
    def called_statuses(self, name: str, formals) -> tuple:
        """((), statuses) for a procedure that an active call reaches: nothing is zeroed (the
        caller's adjoints go in and come out incremented or replaced); `incr` for what P does
        not write (C: every by-value formal), `in-zero` for what it overwrites wholly before
        reading, `in-out` otherwise."""
        proc = self.procedure
        saved = saved_locals(proc)   # what rules/adjoint/saved_locals.py did not move to global state
        if saved:  # P_b reruns P: the value it kept from the last call is gone, its adjoint would be too
            self.refuse(proc.node, f"SAVE or static local variables ({', '.join(saved)}) in a procedure whose "
                                   f"adjoint is called")
        written = self.facts.results.inout.may_written(proc)
        statuses = []
        for position, formal in enumerate(proc.formals):
            if formal not in formals:
                continue
            zones = proc.zones.formal_zones[position] & proc.zones.differentiable_mask
            if self.by_value_formal(Node("ident", (formal,))) or formal in self.copied_formals() \
                    or not zones & written:
                statuses.append(f"{formal}:incr")
            else:
                statuses.append(f"{formal}:{self._consumed(zones)}")
        return (), statuses

    # --- split mode: P_fwd and P_bwd ------------------------------------------------------
    def joint_wanted(self, name: str) -> bool:
        """P_b is needed: P is a head, or a checkpointed call reaches it, or no split one does."""
        return name in self.facts.results.heads or self.facts.is_called_joint(name) \
            or not self.facts.is_called_split(name)

    def joint_unwanted(self, name: str) -> bool:
        return not self.joint_wanted(name)

    def split_procedures(self, proc: Node, forward: Node, backward: Node) -> Node:
        """block(P_fwd, P_bwd): P_fwd(ARGS) runs the forward sweep and pushes what the
        backward sweep reads (TBR at the exit); P_bwd(ARGSb) pops it, then runs the backward
        sweep with P_b's arguments, adjoint initialisations and statuses."""
        from .context import flattened
        name, kind, params, result, rtype, attrs, decls = proc.kids[:7]
        forward = flattened(forward)
        valued = kind == "function" and not is_void(rtype)
        returned = self._returned_value(proc) if valued and self.c else ()
        zones = self.procedure.zones
        temps = {v for v, loc in zones.vars.items() if loc.zone is not None and zones.zones[loc.zone].kind == "temp"}
        left = self.facts.tbr_at_exit(name)
        if left & temps:
            self.refuse(proc, "a function call whose value the backward sweep reads, in a procedure called in "
                              "split mode")
        saved = self.saved(left, proc)   # a function's value too: P_bwd gets it as a local
        locals_ = tuple(_without_initial_value(s, self.names.derivative_names()) for s in forward.kids
                        if isinstance(s, Node) and s.op == "varDecl")  # C: the body's own declarations
        bwd = self.adjoint_procedure(proc, Node("block", locals_ + (saved.kids[1],)), backward)
        source = self.procedure.source_name
        bwd_decls = tuple(d.with_kids(d.kids[0], tuple(a for a in d.kids[1] if not a.startswith("intent")), d.kids[2])
                          if d.op == "varDecl" else d for d in bwd.kids[6])  # P_bwd pops into its formals
        bwd = bwd.with_kids(self.names.sweep_proc(source, "bwd"), *bwd.kids[1:6], bwd_decls, *bwd.kids[7:])
        fwd_kind, fwd_type = ("function", Node("type", ("void", None, None))) if self.c else ("subroutine", None)
        fwd_result = None
        if valued:  # P_fwd returns P's value: Fortran, a function whose RESULT is P's result variable
            fwd_kind, fwd_type, fwd_result = "function", rtype, None if self.c else result or name
        body = Node("block", forward.kids + (saved.kids[0],) + returned)
        managed = {self.names.var(f) for f in self.facts.memory_managing_formals(name)}
        if managed and valued:
            self.refuse(proc, "a function that allocates or frees the memory of its arguments, called in split mode")
        fwd_params = tuple(a for a in bwd.kids[2] if a in params or a in managed)   # the adjoint memory too
        fwd_decls = tuple(d.with_kids(d.kids[0], d.kids[1], tuple(x for x in d.kids[2] if x.kids[0] in managed))
                          for d in bwd.kids[6] if d.op == "varDecl" and any(x.kids[0] in managed for x in d.kids[2]))
        fwd = Node("procedure", (self.names.sweep_proc(source, "fwd"), fwd_kind, fwd_params, fwd_result, fwd_type,
                                 attrs, decls + fwd_decls + self.temporary_declarations(), flattened(body), ()),
                   proc.ann)
        return Node("block", (fwd, bwd))

    def _returned_value(self, proc: Node) -> tuple:
        """C: (return E,) that ends P_fwd, E being the value P returns by its last statement,
        its only return (the pushes at the end of P_fwd change no variable E reads)."""
        body = proc.kids[7].kids
        returns = [n for n in walk(proc.kids[7]) if n.op == "return"]
        if not body or body[-1].op != "return" or len(returns) != 1:
            self.refuse(proc, "a C function called in split mode ($AD NOCHECKPOINT, -nocheckpoint) that does "
                              "not return its value by its last statement only")
        return (body[-1],)

    def split_call_name(self, name: str, sweep: str) -> str:
        """P_fwd or P_bwd; Fortran: the type of a function's P_fwd declared in the caller,
        unless P has an explicit interface there (a module or internal procedure)."""
        callee = self.program.procedure(name)
        split = self.names.sweep_proc(callee.source_name, sweep)
        rtype = self.result_type(callee) if callee.node.kids[1] == "function" else None
        if sweep == "fwd" and not self.c and rtype is not None \
                and "." not in callee.name and all(n != split for n, _, _ in self.extra_declarations):
            self.extra_declarations.append((split, rtype, ()))
        return split

    def forward_arguments(self, call: Node, args_b: tuple) -> tuple:
        """The arguments of P_fwd: P's, each formal through which P allocates or frees memory
        followed by the caller's adjoint of the actual (taken from P_b's, ARGSb)."""
        callee = self.program.procedure(call.kids[0])
        managed = self.facts.memory_managing_formals(callee.name)
        if not managed:
            return call.kids[1]
        with_adjoint = self.facts.diff_formals(callee.name)
        adjoints = {self.names.var(v) for v in self.facts.diff_variables(self.procedure.name)}
        out, k = [], 0
        for formal in callee.formals:
            out.append(args_b[k])
            k += 1
            if formal in with_adjoint:
                if formal in managed:
                    if _root(args_b[k]) not in adjoints:   # a dummy adjoint: no adjoint memory to manage
                        self.refuse(call, f"a call that allocates or frees the memory of an argument with no adjoint "
                                          f"({formal})")
                    out.append(args_b[k])
                k += 1
        return tuple(out)

    def argument_record(self, call: Node) -> Node:
        """[push ; pop] of the scalars the actual arguments read besides the memory they pass,
        pushed after P_fwd (which leaves its trajectory above them) and popped before P_bwd:
        the call must not write them."""
        reads = self._argument_reads(call)
        written = reads & self.facts.call_written_names(call)
        if written:
            self.refuse(call, f"a split call that writes {sorted(written)[0]}, which its arguments read")
        return self.saved(reads, call)

    def copied_formals(self) -> frozenset:
        """C by-value formals of a called procedure that the procedure assigns, whole or a
        component of a struct (seed 001): their adjoint is a local `xb`, added to the caller's
        `*xb0` at the end; the others (only read) use the caller's `*xb` directly."""
        proc = self.procedure
        if proc is None or not self.c or not self.facts.is_called(proc.name):
            return frozenset()
        known = self._copied.get(proc.name)
        if known is None:
            body = proc.node.kids[7]
            assigned = {_root(n.kids[0]) for n in walk(body) if isinstance(n, Node) and n.op == "assign"
                        and n.kids[0].op in ("ident", "fieldAccess")}
            assigned |= {n.kids[0].kids[0] for n in walk(body) if isinstance(n, Node) and n.op == "address"
                         and n.kids[0].op == "ident"}
            known = self._copied[proc.name] = frozenset(
                f for f in proc.formals if f in assigned and f in self.facts.diff_formals(proc.name)
                and _by_value(proc.scope.lookup(f)))
        return known

    def copied_parameter(self, formal: str) -> str:
        return self.names.var(formal) + "0"

    def copied_transfers(self) -> tuple:
        """*xb0 = *xb0 + xb at the end of P_b, for each copied formal (a struct's component by
        component: C has no + of structs)."""
        out = []
        for formal in sorted(self.copied_formals()):
            outer = Node("deref", (Node("ident", (self.copied_parameter(formal),)),))
            local = Node("ident", (self.names.var(formal),))
            if self.c_structure(Node("ident", (formal,))):
                out.extend(self.over_components((outer, local), self.type_of_c_ref(Node("ident", (formal,))), None,
                                                lambda refs, t: (Node("assign", (refs[0], Node("add", refs))),)))
            else:
                out.append(Node("assign", (outer, Node("add", (outer, local)))))
        return tuple(out)

    def copied_declaration(self, formal: str) -> Node:
        """The local adjoint of a copied formal, zero: `double xb = 0.0`, `T_diff ab = {0}`."""
        sym = self.procedure.scope.lookup(formal)
        ref = Node("ident", (formal,))
        if self.c_structure(ref):
            typ, zero = self.derivative_type(sym.type), Node("arrayConstructor", ((Node("intCst", (0, None)),),))
        else:
            typ, zero = sym.type, self.zero_like(ref)
        return Node("varDecl", (typ, (), (Node("declarator", (self.names.var(formal), None, zero, 0)),)))


def _keyword(name: str, actual: Node, keyword) -> Node:
    """NAME=ACTUAL once an OPTIONAL argument has been left out (keyword is not None)."""
    return actual if keyword is None else Node("namedArg", (name, actual))


def _typed_zero(typ) -> Node:
    return Node("realCst", ("0.0", (typ.kids[1] if typ is not None and typ.op == "type" else None) or 4))


def _real_type(sym) -> Node:
    """The formal's real type (real(8) when it has none known)."""
    typ = sym.type if sym is not None else None
    return typ if typ is not None and typ.op == "type" and typ.kids[0] == "real" else Node("type", ("real", 8, None))


def _zero(typ: Node) -> Node:
    return Node("realCst", ("0.0", typ.kids[1] or 4))


def _without_initial_value(decl: Node, derivatives) -> Node:
    """A C local declaration for P_bwd: the value comes from the stack, the adjoints start at 0."""
    declarators = tuple(d if d.kids[0] in derivatives else d.with_kids(d.kids[0], d.kids[1], None, d.kids[3])
                        for d in decl.kids[2])
    return Node("varDecl", (decl.kids[0], decl.kids[1], declarators), decl.ann)


def _by_value(sym) -> bool:
    return sym is not None and not sym.ptr and not sym.dims


def _address(ref: Node) -> Node:
    """&REF, &*P as P."""
    return ref.kids[0] if ref.op == "deref" else Node("address", (ref,))


def _first_element(ref: Node, rank: int) -> Node:
    """C: &a[0][0] of an array of that rank (a pointer to its first element)."""
    if rank <= 1:
        return ref
    element = ref
    for _ in range(rank):
        element = Node("arrayAccess", (element, (Node("intCst", (0, None)),)))
    return Node("address", (element,))
