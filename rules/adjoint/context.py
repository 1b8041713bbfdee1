"""What the adjoint rules need besides the analysis facts: the stack calls of the runtime
(Tapenade's names, TAPENADE.md "Runtime of the adjoint"), fresh variables, the refusals, and
the assembly of the adjoint procedure f_b (paper 5.4, first rules; fig. 8 for a function's
result). The names of derivative symbols, typed zeros and derivative declarations are the
tangent's (rules/tangent/context.py): one Namer in "adjoint" mode gives `xb` and `f_b`."""
from __future__ import annotations

from ...engine.errors import UnsupportedError
from ...engine.il import EMPTY_ANN, Node, has_op, walk
from ...engine.kanren_il import pattern
from ..tangent.context import TangentContext
from ..tangent.expressions import CHAIN_OPS  # A-expr-chain's operators
from ..tangent.procedures import differentiated_arguments
from .array_support import ArraySupport, _root
from .allocation import AllocationAdjoints
from .c_forms import CForms
from .c_data import CDataContext
from .call_support import CallSupport
from .globals import GlobalAdjoints
from .structures import StructureAdjoints
from .empty_loops import without_empty_loops
from .loop_order import reordered
from .trip_pairs import paired
from .merge import distinct_elements, improved, references_to, zero_declared
from .statements import StatementSupport

_TRIPLET, _ACCESSES, _CHOICE = frozenset(("arrayTriplet",)), frozenset(("arrayAccess", "deref")), frozenset(("ifExpr",))

INTEGER = Node("type", ("integer", 4, None))

# the statements this slice of adjoint mode refuses (A-refuse), and what the refusal calls them
REFUSED = {"allocate": "allocation", "deallocate": "deallocation",
           "intrinsic": "calls of library procedures as statements", "kernelLaunch": "CUDA kernel launches"}


class AdjointContext(StatementSupport, CallSupport, CForms, CDataContext, ArraySupport, GlobalAdjoints, StructureAdjoints,
                     AllocationAdjoints, TangentContext):
    """TangentContext with the adjoint's stack, fresh variables and procedure assembly."""

    def __init__(self, ruleset, facts, **kw):
        super().__init__(ruleset, facts, **kw)
        self.c = self.lang in ("c", "cuda")
        self._branch = None
        self._top_level, self._last = set(), None
        self.statuses = {}  # procedure -> the RW statuses of its adjoint arguments ("x:out", ...)
        self._result_temps, self._copied = {}, {}  # hoisted function calls' temporaries; copied by-value formals
        # the side conditions that several rules' guards ask of the same node (_kept):
        # id(node) -> (node, procedure, answer)
        self._scalar_operations, self._scalar_references, self._aliases, self._self_references = {}, {}, {}, {}
        self._hoisted_calls = {}
        self._array_operands = {}  # id(node) -> (node, procedure, _holds_array)

    def start(self, proc):
        """Before differentiating the Procedure proc: its own fresh branch variable; which of
        its statements are at the top of its body (declarations) and last (return)."""
        self.procedure, self.extra_declarations, self._branch = proc, [], None
        self.bound_variables = set()   # the loop rule's VF, VT, VS (empty_loops.py)
        self._result_temps, self._array_operands = {}, {}
        body = proc.node.kids[7].kids if proc.node.kids[7] is not None else ()
        self._top_level = {id(k) for k in body}
        self._last = body[-1] if body else None
        self.start_data(body)
        self.start_blocks()
        self.refuse_structure_copies(proc)

    def refuse(self, node: Node, what: str):
        raise UnsupportedError(f"adjoint mode does not support {what} yet", self.filename, node.line)

    # --- the stack (Tapenade's API: pushReal8(x) / CALL PUSHREAL8(x)) ----------------------------
    def _stack_name(self, verb: str, what: str) -> str:
        return f"{verb}{what}" if self.c else f"{verb}{what}".lower()

    def _kind_word(self, ref: Node, typ: Node | None) -> str:
        typ = typ if typ is not None else self.element_type(ref)
        if typ is None and self.c:   # a C enum's typedef names an int
            sym = self.symbol_of(ref)
            named = self.procedure.scope.lookup(sym.type.kids[0]) if sym is not None and sym.type is not None \
                and sym.type.op == "typeRef" else None
            typ = named.type if named is not None and named.kind == "type" else None
        if typ is not None and typ.op == "type" and typ.kids[0] == "logical" and not self.c:
            return "Boolean"
        if typ is None or typ.op != "type" or typ.kids[0] not in ("real", "integer"):
            self.refuse(ref, f"saving {self._show(ref)} on the stack (its type is not real, integer or logical)")
        kind = typ.kids[1] or 4
        return f"Real{kind}" if typ.kids[0] == "real" else f"Integer{kind}"

    def _characters(self, ref: Node, typ: Node | None, verb: str) -> Node | None:
        """Fortran CHARACTER(len=L) s: CALL PUSHCHARACTERARRAY(s, L) (LEN(s) for a length not
        known here); None for any other reference."""
        typ = typ if typ is not None else self.element_type(ref)
        if self.c or typ is None or typ.op != "type" or typ.kids[0] != "character" or not self.scalar_reference(ref):
            return None
        length = typ.kids[2] if isinstance(typ.kids[2], Node) and typ.kids[2].op == "intCst" \
            else Node("intrinsic", ("len", (ref,)))
        return Node("call", (f"{verb}characterarray", (ref, length)))

    def push(self, ref: Node, typ: Node | None = None) -> Node:
        if self.pointer_variable(ref):
            return self.push_pointer(ref)
        if self.c_structure(ref):
            return self.c_structure_stack(ref, "push")
        if self.whole_structure(ref):
            return self.structure_stack(ref, typ, "push")
        if not self.scalar_reference(ref):
            return self.push_array(ref, typ, "push")
        if typ is None:   # asked once here for _characters and _kind_word (a walk of the scopes each)
            typ = self.element_type(ref)
        return self._characters(ref, typ, "push") or \
            Node("call", (self._stack_name("push", self._kind_word(ref, typ)), (ref,)))

    def pop(self, ref: Node, typ: Node | None = None) -> Node:
        if self.pointer_variable(ref):
            return self.pop_pointer(ref)
        if self.c_structure(ref):
            return self.c_structure_stack(ref, "pop")
        if self.whole_structure(ref):
            return self.structure_stack(ref, typ, "pop")
        if not self.scalar_reference(ref):
            return self.push_array(ref, typ, "pop")
        target = Node("address", (ref,)) if self.c else ref
        if typ is None:
            typ = self.element_type(ref)
        return self._characters(ref, typ, "pop") or \
            Node("call", (self._stack_name("pop", self._kind_word(ref, typ)), (target,)))

    def push_control(self, branch: int) -> Node:
        return Node("call", (self._stack_name("push", "Control1b"), (Node("intCst", (branch, None)),)))

    def pop_control(self, variable: Node) -> Node:
        return Node("call", (self._stack_name("pop", "Control1b"), (Node("address", (variable,)) if self.c else variable,)))

    def push_choice(self, way: int, ways: int) -> Node:
        return Node("call", (self._stack_name("push", f"Control{_bits(ways)}b"), (Node("intCst", (way, None)),)))

    def selection(self, stmt: Node, pairs: tuple) -> Node:
        """The conclusion of A-select: the SELECT with each case pushing its number at its end
        (a CASE DEFAULT that only pushes where there is none), and the backward chain of IFs
        on the popped number."""
        selector, cases, _ = stmt.kids
        ways = len(cases) + (0 if any(not c.kids[0] for c in cases) else 1)
        forward = [c.with_kids(c.kids[0], Node("block", (p.kids[0], self.push_choice(k, ways))))
                   for k, (c, p) in enumerate(zip(cases, pairs))]
        backward = [p.kids[1] for p in pairs]
        if len(forward) < ways:
            forward.append(Node("case", ((), Node("block", (self.push_choice(len(forward), ways),)))))
            backward.append(Node("block", ()))
        branch = self.branch_variable()
        chain = backward[-1]
        for k in range(len(backward) - 2, -1, -1):
            test = Node("eq", (branch, Node("intCst", (k, None))))
            chain = Node("block", (Node("if", (test, backward[k], chain)),))
        pop = Node("call", (self._stack_name("pop", f"Control{_bits(ways)}b"),
                            (Node("address", (branch,)) if self.c else branch,)))
        return Node("block", (Node("block", (stmt.with_kids(selector, tuple(forward), False),)),
                              Node("block", (pop, chain))))

    # --- fresh variables ------------------------------------------------------------------------
    def branch_variable(self) -> Node:
        """The integer that receives the branch popped in the backward sweep (one per procedure)."""
        if self._branch is None:
            self._branch = self.fresh("branch", INTEGER)
        return self._branch

    def fresh(self, base: str, typ: Node) -> Node:
        """newFreeVar: a new local of type typ (an IL type, or a real kind)."""
        name = self.names.temp(base, derivative=typ != INTEGER)
        self.extra_declarations.append((name, typ, ()))
        return Node("ident", (name,))

    def loop_variables(self, loop: Node) -> tuple:
        """VF, VT, VS of the loop rule: the first value, the last value and the stride (a C
        loop's stride is a constant: VF, VT)."""
        fresh = tuple(self.fresh(base, INTEGER) for base in ("ad_from", "ad_to", "ad_stride")[:3 if loop.op == "do" else 2])
        self.bound_variables.update(v.kids[0] for v in fresh)
        return fresh

    def adjoint_temporary(self, lhs: Node) -> Node:
        """The temporary V of the assignment rules: the adjoint of the value assigned, held
        while the lhs adjoint is reset (its kind: the lhs's)."""
        typ = self.element_type(lhs)
        return self.fresh("tempb", typ.kids[1] if typ is not None and typ.op == "type" else 8)

    # --- side conditions ---------------------------------------------------------------------------
    def _kept(self, table: dict, node: Node, compute):
        """compute(node), kept in table per node (by identity, with the node and the
        procedure): the guards of A-assign, A-assign-alias and A-assign-self ask the same
        side conditions of one statement, push and pop ask them again (and hoisted_calls)."""
        known = table.get(id(node))
        if known is not None and known[0] is node and known[1] is self.procedure:
            return known[2]
        answer = compute(node)
        table[id(node)] = (node, self.procedure, answer)
        return answer

    def scalar_reference(self, ref: Node) -> bool:
        """ref denotes one scalar: no array section, not a whole array."""
        return self._kept(self._scalar_references, ref, self._scalar_reference)

    def _scalar_reference(self, ref: Node) -> bool:
        if has_op(ref, _TRIPLET):
            return False
        if self.whole_structure(ref):   # a structure's adjoint has components (A-assign-struct)
            return False
        if self.whole_component(ref):   # p%w: the component's rank
            return self.value_rank(ref) == 0
        sym = self.symbol_of(ref)
        if sym is None:
            return True
        if self.c_structure(ref):  # a whole struct: A-assign-struct
            return False
        return not sym.dims or has_op(ref, _ACCESSES)

    def array_reference(self, ref: Node) -> bool:
        return not self.scalar_reference(ref)

    def may_alias(self, stmt: Node) -> bool:
        """The lhs's variable is referenced in the rhs (x = x*x + y, a(i) = 2*a(j)): the
        adjoint of the value goes through a temporary, since a leaf of the rhs may be the
        lhs itself (the paper's V)."""
        return self._kept(self._aliases, stmt, self._may_alias)

    def _may_alias(self, stmt: Node) -> bool:
        lhs = stmt.kids[0]
        return any(not distinct_elements(r, lhs) for r in references_to(stmt.kids[1], _root(lhs))) \
            or self.hidden_alias(stmt)

    def no_alias(self, stmt: Node) -> bool:
        return not self.may_alias(stmt)

    def self_reference(self, stmt: Node) -> bool:
        """The lhs appears in the rhs, and only as itself (`c = c*a`, `a(i) = a(i) + x`): each
        occurrence is the same memory as the lhs, none may merely alias it."""
        return self._kept(self._self_references, stmt, self._self_reference)

    def _self_reference(self, stmt: Node) -> bool:
        lhs = stmt.kids[0]
        refs = references_to(stmt.kids[1], _root(lhs))
        return lhs in refs and all(r == lhs or distinct_elements(r, lhs) for r in refs) and not self.hidden_alias(stmt) \
            and not has_op(stmt.kids[1], _CHOICE)  # its adjoint is no sum of increments

    def possible_alias(self, stmt: Node) -> bool:
        return self.may_alias(stmt) and not self.self_reference(stmt)

    def self_update(self, instrs: Node, lhs_b: Node, zero: Node) -> Node:
        """The increments of the other leaves first (they read LHSb), then LHSb = the sum of
        what its own occurrences receive (0 when none is active; nothing for LHSb = LHSb)."""
        others, own = [], []
        for stmt in flattened(instrs).kids:
            value = stmt.kids[1]
            if stmt.kids[0] == lhs_b:
                own.append(Node("neg", (value.kids[1],)) if value.op == "sub" else value.kids[1])
            else:
                others.append(stmt)
        total = own[0] if own else zero
        for term in own[1:]:
            total = Node("sub", (total, term.kids[0])) if term.op == "neg" else Node("add", (total, term))
        last = () if total == lhs_b else (Node("assign", (lhs_b, total)),)
        return Node("block", tuple(others) + last)

    def by_value_formal(self, ref: Node) -> bool:
        """C: a formal argument passed by value, whose adjoint is a pointer argument (`double
        *xb`); a formal with no adjoint argument (passive at every call) has a local adjoint."""
        if not self.c or ref.op != "ident" or self.procedure is None or ref.kids[0] not in self.procedure.formals \
                or ref.kids[0] not in self.facts.diff_formals(self.procedure.name):
            return False
        sym = self.symbol_of(ref)
        return sym is not None and not sym.ptr and not sym.dims and ref.kids[0] not in self.copied_formals()

    def not_by_value_formal(self, ref: Node) -> bool:
        return not self.by_value_formal(ref)

    def top_level(self, stmt: Node) -> bool:
        return id(stmt) in self._top_level

    def last_statement(self, stmt: Node) -> bool:
        return stmt is self._last

    def structured(self, stmt: Node) -> bool:
        """No jump leaves stmt (rules/adjoint/jumps.py): the structured rules apply. Asked of
        the procedure being differentiated when the premise is checked, not when the
        relation is built (once per context)."""
        from .jumps import shapes  # jumps builds on this module
        return shapes(self).structured(stmt)

    def unstructured(self, stmt: Node) -> bool:
        return not self.structured(stmt)

    def refused(self, stmt: Node) -> bool:
        """A-refuse applies: a statement of REFUSED, a C declaration inside a nested block."""
        if stmt.op in ("allocate", "deallocate") and self.deferred_allocation(stmt):
            return False   # A-allocate, A-deallocate
        return (stmt.op in REFUSED and not self.c_memory(stmt) and not self.deferred_free(stmt)
                and not self.freed_elsewhere(stmt)) or (stmt.op == "varDecl" and not self.top_level(stmt)
                                                                     and not self.c)  # C: A-decl-nested

    def refused_what(self, stmt: Node) -> str:
        if stmt.op == "varDecl":
            return "a declaration inside a nested block"
        if stmt.op in ("allocate", "deallocate") and not self.c:
            return self.allocation_problem(stmt)
        return REFUSED[stmt.op]

    def refused_expression(self, expr: Node) -> bool:
        """A-expr-refuse applies to an active expr: no operator nor intrinsic, or one that
        A-expr-chain does not take."""
        return (expr.op not in CHAIN_OPS or not self.scalar_operation(expr)) and not self.array_operation(expr) \
            and not self.replayable_choice(expr)

    def scalar_operation(self, expr: Node) -> bool:
        """A-expr-chain takes the operator or intrinsic: its operands are scalars (no whole
        array, section or array constructor: their adjoints are the array adjoints of
        fig. 14), and a linear intrinsic has no keyword argument (real(x), dble(x),
        merge(a, b, c): the table's scalar partials)."""
        return self._kept(self._scalar_operations, expr, self._scalar_operation)  # A-expr-chain's, A-expr-refuse's guards

    def _scalar_operation(self, expr: Node) -> bool:
        if self.array_operation(expr):
            return False
        if expr.op == "intrinsic" and self.linear_intrinsic(expr) and any(
                isinstance(a, Node) and a.op == "namedArg" for a in expr.kids[1]):
            return False
        if self.operands_searched(expr):   # array_operation found no section, constructor nor whole array
            return True
        nodes = list(_outside_calls(expr))  # a function's arguments are its own (A-expr-call)
        if any(n.op in ("arrayConstructor", "impliedDo", "arrayTriplet") for n in nodes):
            return False
        indexed = {id(n.kids[0]) for n in nodes if n.op == "arrayAccess"}
        for n in nodes:
            if n.op == "ident" and id(n) not in indexed:
                sym = self.symbol_of(n)
                if sym is not None and sym.dims:
                    return False
        return True

    def result_adjoint(self) -> Node:
        """The adjoint of the function's value, P_b's last argument (fig. 8)."""
        node = self.procedure.node
        return Node("ident", (self.names.var(node.kids[0] if self.c else node.kids[3] or node.kids[0]),))

    def pattern_push(self, value) -> Node:
        """push of an integer (the loop rule's bounds): a pattern, value may be a variable."""
        return pattern("call", self._stack_name("push", "Integer4"), (value,))

    def pattern_pop(self, variable) -> Node:
        return pattern("call", self._stack_name("pop", "Integer4"), (pattern("address", variable) if self.c else variable,))

    def index_restored(self, loop: Node) -> bool:
        """The loop's index is in TBR⁻ of the loop: an earlier derivative instruction reads
        its value, which the loop overwrites (push(I) / pop(I) of the loop rule)."""
        index = loop.kids[0] if loop.op == "do" else loop.kids[0].kids[0]
        # C: the index is overwritten by the init `I = F`, an instruction of its own before the
        # loop's header (whose TBR⁻ joins the back edge's)
        return _root(index) in self.facts.tbr_before(loop if loop.op == "do" else loop.kids[0])

    def index_not_restored(self, loop: Node) -> bool:
        return not self.index_restored(loop)

    # --- C for loops ---------------------------------------------------------------------------------
    def for_loop_parts(self, loop: Node) -> tuple:
        """(I, F, S) of a C loop `for (I = F; TEST; I = I ± S)` with a constant stride S
        that its body does not assign I, and a TEST that calls nothing (`i < n`, `i + 1 < n`):
        the backward loop replays its iterations from F and the last value of I, whatever
        TEST; anything else is refused."""
        init, cond, step, body = loop.kids
        if not self.replayable_for(loop):
            self.refuse(loop, "this form of C for loop (the backward loop needs for (i = F; TEST; i += S) with "
                              "a constant stride S and a TEST without calls)")
        if init.op == "varDecl":
            init = self._hoisted_index(loop, init)
        index = init.kids[0]
        return index, init.kids[1], Node("intCst", (_constant_stride(step, index), None))

    def replayable_for(self, loop: Node) -> bool:
        """`for (I = F; TEST; I = I ± S)` (I declared there or not) with a constant stride S,
        a TEST that calls nothing (it may be any: the pushed I - S counts) and a body that
        does not assign I: the backward loop replays the indices (A-for); else the trips are
        counted (A-for-counted)."""
        init, cond, step, body = loop.kids
        if init is not None and init.op == "varDecl" and len(init.kids[2]) == 1 and not init.kids[2][0].kids[1] \
                and not init.kids[2][0].kids[3] and init.kids[2][0].kids[2] is not None:
            declarator = init.kids[2][0]
            init = Node("assign", (Node("ident", (declarator.kids[0],)), declarator.kids[2]))
        index = init.kids[0] if init is not None and init.op == "assign" else None
        return index is not None and index.op == "ident" and _constant_stride(step, index) is not None \
            and cond is not None and not any(n.op == "call" for n in walk(cond)) \
            and not any(n.op == "assign" and _root(n.kids[0]) == index.kids[0] for n in walk(body))

    def counted_for(self, loop: Node) -> bool:
        return not self.replayable_for(loop)

    def _hoisted_index(self, loop: Node, decl: Node) -> Node | None:
        """`for (int i = F; ...)`: i is declared once for the procedure, so that the forward
        sweep reads its last value after the loop and the backward loop runs on it (refused
        where the procedure knows another i); the init becomes `i = F`."""
        typ, _, declarators = decl.kids
        if len(declarators) != 1 or declarators[0].kids[1] or declarators[0].kids[3] \
                or declarators[0].kids[2] is None:
            return None
        name = declarators[0].kids[0]
        proc = self.procedure.node
        others = {d.kids[0] for n in walk(proc.kids[6] + proc.kids[7].kids) if isinstance(n, Node)
                  and n.op == "varDecl" and not any(n is f.kids[0] for f in walk(proc.kids[7]) if f.op == "for")
                  for d in n.kids[2]}
        file_scope = {d.kids[0] for f in self.program.files for u in f.kids if u.op == "varDecl" for d in u.kids[2]}
        if name in others or name in proc.kids[2] or name in file_scope:
            self.refuse(loop, f"a for loop declaring {name}, a name the function uses elsewhere")
        known = [t for n, t, _ in self.extra_declarations if n == name]
        if known and known[0] != typ:
            self.refuse(loop, f"for loops declaring {name} with different types")
        if not known:
            self.extra_declarations.append((name, typ, ()))
        return Node("assign", (Node("ident", (name,)), declarators[0].kids[2]), decl.ann)

    def backward_condition(self, index: Node, first: Node, stride: Node) -> Node:
        """The test of the backward loop, which runs from the last index value down to F."""
        return Node("ge" if stride.kids[0] > 0 else "le", (index, first))

    @staticmethod
    def minus_stride(index: Node, stride: Node) -> Node:
        """I - S for the constant S (I + 1 rather than I - -1)."""
        value = stride.kids[0]
        return Node("sub" if value > 0 else "add", (index, Node("intCst", (abs(value), None))))

    # --- the procedure ---------------------------------------------------------------------------------
    def adjoint_procedure(self, proc: Node, forward: Node, backward: Node) -> Node:
        """procedure P_b(ARGSb) {DECLSb; forward sweep; adjoint initialisations; backward sweep}
        (the joint rule of 5.4). ARGSb: each formal with an adjoint followed by it; for a
        function, the adjoint of its result last (fig. 8): P_b is a subroutine (void in C)."""
        name, kind, params, result, rtype, attrs, decls, _, contains = proc.kids
        diff = self.facts.diff_variables(name)
        if name in self.facts.results.heads and not self.facts.is_called(name):
            diff = diff | self.facts.active_unnamed_globals(name)   # a callee's state: zeroed here too
        declared = {d.kids[0] for decl in decls + tuple(proc.kids[7].kids if proc.kids[7] is not None else ())
                    if isinstance(decl, Node) and decl.op == "varDecl" and "common" not in decl.kids[1]
                    for d in decl.kids[2]}
        commons = {_root(v) for decl in decls if decl.op == "common" for v in decl.kids[1]}
        scope = self.program.procedure(name).scope
        zones = self.program.procedure(name).zones
        temps = {v for v, loc in zones.vars.items() if loc.zone is not None and zones.zones[loc.zone].kind == "temp"}
        implicit = self.implicit_locals(diff - declared - temps - set(params) - {result or name} - commons)
        shared = self.active_globals_of(proc, diff, declared | temps | set(self._hoisted) | {d.kids[2][0].kids[0] for d in implicit},
                                        params, result or name, commons)
        complex_ = sorted(v for v in diff if scope.lookup(v) is not None and scope.lookup(v).type is not None
                          and scope.lookup(v).type.op == "type" and scope.lookup(v).type.kids[0] == "complex")
        if complex_:  # their adjoints need the conjugate partials
            self.refuse(proc, "active complex variables (" + ", ".join(complex_) + ")")
        formals = self.facts.diff_formals(name)
        args = differentiated_arguments(params, lambda f: f in formals, self.names.var)
        valued = self.takes_result_adjoint(self.program.procedure(name))
        result_name = None if not valued else name if self.c else (result or name)
        declared = self.derivative_declarations(decls, diff)
        declared = tuple(self._adjoint_declaration(d, formals) for d in declared)
        zeros, statuses = self._argument_initialisations(name, formals)
        global_zeros, global_statuses = self.global_initialisations(name, diff)
        zeros, statuses = zeros + global_zeros, statuses + list(global_statuses)
        self.buffers[self.procedure.name] = self.memory_buffers(name, statuses)
        zeros += self._local_zeros(decls + implicit, diff - set(formals) - {result_name} - set(shared))  # passive formals' too
        shared_zeros, shared_statuses = self.global_zeros(shared)
        zeros, statuses = zeros + shared_zeros, statuses + shared_statuses
        if valued:
            result_b = self.names.var(result_name)
            args += (result_b,)
            statuses.append(f"{result_name}:{self._result_status(result_name)}")
            if rtype is not None and (self.c or not any(d.op == "varDecl" and any(x.kids[0] == result_name
                                                                                   for x in d.kids[2]) for d in decls)):
                if not self.c:   # after USE and IMPLICIT, which lead a Fortran specification part
                    lead = next((k for k, d in enumerate(declared) if d.op not in ("use", "implicit")), len(declared))
                    declared = declared[:lead] + (Node("varDecl", (rtype, (), (Node("declarator", (
                        result_name, None, None, 0)),))),) + declared[lead:]
                declared += (Node("varDecl", (self.derivative_type(rtype) if self.c else rtype, (),  # a struct's: T_diff
                                              (Node("declarator", (result_b, None, None, 0)),))),)
            elif not self.c and not any(d.op == "varDecl" and any(x.kids[0] == result_b for x in d.kids[2])
                                        for d in declared):
                # the result declared in the body but with no adjoint of its own there (no
                # derivative flows through it here): its adjoint, the last argument, still
                # needs its type (else implicit real(4) where the caller passes the result's)
                typ = self.program.procedure(name).scope.lookup(result_name).type
                if typ is not None:
                    declared += (Node("varDecl", (typ, (), (Node("declarator", (result_b, None, None, 0)),))),)
        if self.c:   # where C declares the locals, their adjoints 0 (A-decl)
            forward = flattened(forward)
        zero = zero_declared(forward, self.names.derivative_names()) if self.c else frozenset()
        backward = improved(flattened(Node("block", zeros + backward.kids)), self, args, zero)  # 4.8, fig. 11
        backward = reordered(backward, self)   # the backward nests column by column (loop_order.py)
        backward = paired(backward, forward, self)   # independent trips two by two (trip_pairs.py)
        temps = self.hoisted_declarations() + self.temporary_declarations()
        self.statuses[self.procedure.name] = statuses  # qualified: a module procedure is m.f
        copied = self.copied_formals()
        if copied:  # seed 001: the caller's adjoint is *xb0, xb the local copy's (zero at the start)
            renames = {self.names.var(f): self.copied_parameter(f) for f in copied}
            args = tuple(renames.get(a, a) for a in args)
            declared = tuple(_renamed_parameters(d, renames) for d in declared) + tuple(
                self.copied_declaration(f) for f in sorted(copied))
        body = flattened(Node("block", forward.kids + backward.kids + self.copied_transfers() + self.deferred_frees()))
        body, unread = without_empty_loops(body, self)   # loops that do nothing (empty_loops.py)
        if unread:
            temps = tuple(d for d in temps if not (d.op == "varDecl" and d.kids[2][0].kids[0] in unread))
        new_kind = "function" if self.c else "subroutine"
        void = Node("type", ("void", None, None)) if self.c else None
        return Node("procedure", (self.names.proc(name), new_kind, args, None, void, attrs, declared + temps, body, ()),
                    proc.ann)

    def temporary_declarations(self) -> tuple:
        """The declarations of the fresh variables of the procedure being differentiated."""
        return tuple(Node("varDecl", (typ if isinstance(typ, Node) else Node("type", ("real", typ, None)),
                                      ("allocatable",) if dims and all(d.kids[1] is None for d in dims) else (),  # (:)
                                      (Node("declarator", (temp, dims or None, None, 0)),)))
                     for temp, typ, dims in self.extra_declarations)

    def _adjoint_declaration(self, decl: Node, formals) -> Node:
        """The declaration of adjoints: no INTENT (the adjoint of an input is written); C: the
        adjoint of a by-value formal is a pointer."""
        if decl.op != "varDecl" or not any(self.names.is_derivative_name(d.kids[0]) for d in decl.kids[2]):
            return decl
        attrs = tuple(a for a in decl.kids[1] if not a.startswith("intent") and a != "const")  # adjoints are written
        originals = {self.names.var(f): f for f in formals}
        declarators = tuple(d.with_kids(d.kids[0], d.kids[1], d.kids[2], 1)
                            if self.c and d.kids[0] in originals and (self.by_value_formal(Node("ident", (originals[d.kids[0]],)))
                                                                      or originals[d.kids[0]] in self.copied_formals())
                            else d for d in decl.kids[2])
        return Node("varDecl", (decl.kids[0], attrs, declarators), decl.ann)

    def _argument_initialisations(self, name: str, formals) -> tuple:
        """The adjoints of the independents that are no dependents are overwritten
        (TAPENADE.md: `x:out`): set to 0 before the backward sweep increments them, when
        their whole size is known here; else the caller passes them zeroed (`x:incr`, or `x:in-out`
        when P overwrites x: its adjoint is then read as that of x's last value).
        The dependents' adjoints are read: `in-zero` when the procedure overwrites the
        dependent wholly (its adjoint is then reset), else `in-out`."""
        proc = self.procedure
        if self.facts.is_called(proc.name):
            return self.called_statuses(name, formals)
        indeps, deps = self.facts.results.heads.get(proc.name, (0, 0))
        written = self.facts.results.inout.may_written(proc)
        zeros, statuses = (), []
        for position, formal in enumerate(proc.formals):
            if formal not in formals:
                continue
            zones = proc.zones.formal_zones[position] & proc.zones.differentiable_mask
            is_indep, is_dep = bool(zones & indeps), bool(zones & deps)
            if is_dep and is_indep:
                statuses.append(f"{formal}:in-out")
            elif is_dep:
                statuses.append(f"{formal}:{self._consumed(zones)}")
            else:
                sym = proc.scope.lookup(formal)
                ref = Node("ident", (formal,))
                found = self.zero_of_variable(formal, self._adjoint_of(ref)) if self.c \
                    else self.zero_assignments(self._adjoint_of(ref), ref, EMPTY_ANN) if not sym.dims and not sym.ptr \
                    else self._whole_zero(sym)
                # not zeroed here: the caller passes it zeroed; when P overwrites the variable the
                # backward sweep reads that zero as the adjoint of its last value (`in-out`, not `incr`)
                statuses.append(f"{formal}:{'out' if found is not None else 'in-out' if zones & written else 'incr'}")
                zeros += found or ()
        return zeros, statuses

    def _consumed(self, zones: int) -> str:
        """A dependent's adjoint: `in-zero` when P overwrites the dependent wholly without
        reading it (its adjoint is then reset), else `in-out`."""
        proc = self.procedure
        summary = self.facts.results.inout.summary(proc)
        whole = zones & self.facts.results.inout.must_written(proc) == zones and summary is not None \
            and not summary[0] & zones
        return "in-zero" if whole else "in-out"

    def _result_status(self, result_name: str) -> str:
        """The adjoint of a function's value: C passes it by value (`in`); a Fortran function
        overwrites its result, whose adjoint it consumes like a dependent's."""
        loc = self.procedure.zones.vars.get(result_name)
        if self.c or loc is None:
            return "in"
        return self._consumed(loc.all & self.procedure.zones.differentiable_mask)

    def _adjoint_of(self, ref: Node) -> Node:
        ref_b = Node("ident", (self.names.var(ref.kids[0]),))
        return Node("deref", (ref_b,)) if self.by_value_formal(ref) else ref_b

    def implicit_locals(self, names) -> tuple:
        """The declarations of the implicitly typed locals among names (Fortran: no statement
        declares them); their adjoints, typed alike, are declared with the temporaries, and
        zeroed with the other locals' (the tangent's derivatives are declared the same way)."""
        scope = self.procedure.scope
        dimensioned = {d.kids[0] for decl in self.procedure.node.kids[6] if decl.op == "attrDecl"
                       and decl.kids[0] == "dimension" for d in decl.kids[1]}   # their adjoints: derivative_declarations
        out = []
        for name in sorted(names):
            sym = scope.lookup(name)
            if self.c or sym is None or sym.kind != "variable" or scope.owner_of(name)[0] is not scope \
                    or sym.common is not None:
                continue
            out.append(Node("varDecl", (sym.type, (), (Node("declarator", (name, sym.dims, None, 0)),))))
            if name not in dimensioned:
                self.extra_declarations.append((self.names.var(name), sym.type, sym.dims or ()))
        return tuple(out)

    def _local_zeros(self, decls, locals_) -> tuple:
        """The adjoints that are no arguments (of locals, and of formals with no adjoint
        argument) start the backward sweep at 0 (C locals: their declarations zero them, A-decl);
        a Fortran pointer only associated with targets has no memory of its own to zero."""
        out = []
        for decl in decls:
            if decl.op != "varDecl" or "parameter" in decl.kids[1]:
                continue
            for d in decl.kids[2]:
                if d.kids[0] in locals_ and not self.associated_only(d.kids[0]):
                    ref = Node("ident", (d.kids[0],))
                    out.extend(self.zero_assignments(self._adjoint_of(ref), ref, EMPTY_ANN))
        return tuple(out)

    def adjoint_declaration(self, decl: Node) -> Node:
        """C: a local declaration, then its adjoints' with the initial value 0 (A-decl)."""
        derived = self.derivative_declarations((decl,), self.facts.diff_variables(self.procedure.name))
        if len(derived) == 1:
            return Node("block", derived)
        typ, attrs, declarators = derived[1].kids
        attrs = tuple(a for a in attrs if a != "const")  # adjoints are written, through pointers too
        originals = {self.names.var(d.kids[0]): d for d in decl.kids[2]}
        zeroed = tuple(d.with_kids(d.kids[0], d.kids[1], self.initial_adjoint(decl.kids[0], originals[d.kids[0]], d, decl),
                                   d.kids[3]) for d in declarators)
        return Node("block", (decl, Node("varDecl", (typ, attrs, zeroed), derived[1].ann)))

    def initial_adjoints(self, decl: Node) -> tuple:
        """((INITi), (Vib)) of the declarators with an adjoint and an initial value, the last
        one first (the backward sweep's order)."""
        diff = self.facts.diff_variables(self.procedure.name)
        pairs = [(d.kids[2], Node("ident", (self.names.var(d.kids[0]),))) for d in reversed(decl.kids[2])
                 if d.kids[0] in diff and d.kids[2] is not None]
        return tuple(p[0] for p in pairs), tuple(p[1] for p in pairs)

    def structure_initial_value(self, decl: Node) -> bool:
        """A C struct declared with an initial value (A-decl-struct-init): C has no + of structs."""
        return any(self.c_structure(Node("ident", (d.kids[0],))) for d in decl.kids[2] if d.kids[2] is not None)

    def no_structure_initial_value(self, decl: Node) -> bool:
        return not self.structure_initial_value(decl)

    def split_declaration(self, decl: Node) -> tuple:
        """(the declaration without initial values, the assignments Vi = INITi) (they answer
        the facts of the declaration: same annotations); an initial value in braces, which
        is no expression, is refused."""
        if any(d.kids[2] is not None and d.kids[2].op == "arrayConstructor" for d in decl.kids[2]):
            self.refuse(decl, "a structure declared with an active initial value in braces")
        bare = decl.with_kids(decl.kids[0], tuple(a for a in decl.kids[1] if a != "const"),
                              tuple(d.with_kids(d.kids[0], d.kids[1], None, d.kids[3]) for d in decl.kids[2]))
        return bare, tuple(Node("assign", (Node("ident", (d.kids[0],)), d.kids[2]), decl.ann)
                           for d in decl.kids[2] if d.kids[2] is not None)

    @staticmethod
    def _show(ref: Node) -> str:
        return _root(ref) or ref.op


def _outside_calls(expr: Node):
    """The nodes of expr, not those inside the arguments of function calls."""
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, tuple):
            stack.extend(node)
        elif isinstance(node, Node):
            yield node
            if node.op != "call":
                stack.extend(node.kids)


def _renamed_parameters(decl: Node, renames: dict) -> Node:
    """The declaration with the declarators of `renames` renamed (the copied formals' xb -> xb0)."""
    if decl.op != "varDecl" or not any(d.kids[0] in renames for d in decl.kids[2]):
        return decl
    declarators = tuple(d.with_kids(renames.get(d.kids[0], d.kids[0]), *d.kids[1:]) for d in decl.kids[2])
    return Node("varDecl", (decl.kids[0], decl.kids[1], declarators), decl.ann)


def flattened(block: Node) -> Node:
    """The block with the blocks nested in it spliced in (the rules build blocks of blocks),
    recursively inside the statements that hold blocks. A control statement or block with no
    block to splice is kept as it is (most are), unless it was met before in this walk: a node
    the rules placed twice is copied at its second place, so that each place holds its own
    node, as when every one was rebuilt (the C scopes and the merge pass's tables go by id)."""
    return _flattened(block, set())


def _flattened(block: Node, met: set) -> Node:
    out = []
    if _splice(block, out, met) or id(block) in met:
        return Node("block", tuple(out), block.ann)
    met.add(id(block))
    return block


def _splice(block: Node, out: list, met: set) -> bool:
    """Appends to out the statements of block, those of its nested blocks in place (one list
    for every depth: the rules' blocks of blocks nest as deep as a procedure is long); whether
    out differs from block's statements."""
    changed = False
    append = out.append
    for kid in block.kids:
        op = kid.op if type(kid) is Node else None
        if op not in _HOLDING_BLOCKS:   # most: an assignment, a call
            append(kid)
        elif op == "block":
            _splice(kid, out, met)
            changed = True
        elif op in _LOOPS_AND_IFS:
            kids = tuple(_flattened(k, met) if type(k) is Node and k.op == "block" else k for k in kid.kids)
            out.append(_kept(kid, kids, met))
            changed = changed or out[-1] is not kid
        elif op == "switch":
            cases = tuple(_kept(c, (c.kids[0], _flattened(c.kids[1], met)), met) for c in kid.kids[1])
            if all(c is o for c, o in zip(cases, kid.kids[1])):
                cases = kid.kids[1]
            out.append(_kept(kid, (kid.kids[0], cases, kid.kids[2]), met))
            changed = changed or out[-1] is not kid
    return changed


_LOOPS_AND_IFS = frozenset({"if", "do", "for", "while", "doWhile"})
_HOLDING_BLOCKS = _LOOPS_AND_IFS | {"block", "switch"}   # the statements _splice looks into


def _kept(node: Node, kids: tuple, met: set) -> Node:
    """node itself when kids are its children and it was not met before, else a copy with kids."""
    if id(node) in met or any(k is not o for k, o in zip(kids, node.kids)):
        return node.with_kids(*kids)
    met.add(id(node))
    return node


def _bits(ways: int) -> int:
    """The bits of a control push for that many ways (PUSHCONTROL1B .. 8B)."""
    return max(1, (ways - 1).bit_length())


def _constant_stride(step: Node | None, index: Node | None) -> int | None:
    """S of `I = I + S` / `I = I - S` (C's i++, i += S) for an integer constant S, else None."""
    if step is None or index is None or step.op != "assign" or step.kids[0] != index:
        return None
    value = step.kids[1]
    if value.op not in ("add", "sub") or value.kids[0] != index or value.kids[1].op != "intCst":
        return None
    stride = value.kids[1].kids[0]
    return stride if value.op == "add" else -stride
