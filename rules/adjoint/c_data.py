"""What the adjoint rules of C data need besides the facts (issue 16, C data): the types of
structure components, the stack calls of pointers (Tapenade's pushPointer8/popPointer8),
the adjoints of declarations (a pointer's points into the adjoint memory, a struct's is
zeroed whole), zeros of whole adjoints (every component, every element: never `*xb = 0`),
the adjoints of file-scope globals and of memory arguments. A mixin of AdjointContext."""
from __future__ import annotations

from ...engine.bitsets import zones_of
from ...engine.errors import SourceError, UnsupportedError
from ...engine.il import Node, walk, walk_statements
from ..tangent.globals import global_owner

LOOPS = ("do", "for", "while", "doWhile")
VOID_POINTER_POINTER = Node("pointerType", (Node("pointerType", (Node("type", ("void", None, None)),)),))
INT = Node("type", ("integer", 4, None))


class CDataContext:
    """The C data part of AdjointContext (rules/adjoint/structures.py, pointers.py)."""

    # --- types of references --------------------------------------------------------------------
    def element_type(self, ref: Node) -> Node | None:
        """The elementary type of the reference; for a structure component, the component's
        (the zones of the reference know it)."""
        if self.c and self.procedure is not None and any(n.op == "fieldAccess" for n in walk(ref)):
            try:
                zones = self.procedure.zones.ref(ref).zones
            except SourceError:
                zones = 0
            types = {self.procedure.zones.zones[z].type for z in zones_of(zones)}
            typ = types.pop() if len(types) == 1 else None
            return typ if typ is not None and typ.op == "type" else None
        return super().element_type(ref)

    def differentiable_reference(self, ref: Node) -> bool:
        """The memory ref denotes can hold an adjoint (not an integer component of an active
        structure: its variable has an adjoint, the component none)."""
        try:
            return bool(self.procedure.zones.ref(ref).zones & self.procedure.zones.differentiable_mask)
        except SourceError:
            return True

    def no_adjoint(self, ref: Node, stmt: Node) -> bool:
        """¬(isDiff(REF) ∧ differentiable(REF))."""
        return not (self.facts.has_derivative(ref, stmt) and self.differentiable_reference(ref))

    def hidden_alias(self, stmt: Node) -> bool:
        """C: a reference of the rhs other than the lhs itself may be the lhs's memory under
        another name (`*p = a[1]*a[0]` with p = a + 1): their zones meet."""
        if not self.c:
            return False
        lhs = stmt.kids[0]
        try:
            target = self.procedure.zones.ref(lhs).zones & self.procedure.zones.differentiable_mask
            return any(n != lhs and self.procedure.zones.ref(n).zones & target
                       for n in walk(stmt.kids[1]) if n.op in ("ident", "arrayAccess", "deref", "fieldAccess"))
        except SourceError:
            return True

    def statement_of(self, node: Node) -> Node:
        """The innermost statement (a node with a line) of the procedure that holds node, for
        the line of a refusal about an expression."""
        if node.line is not None or self.procedure is None:
            return node
        holders = [n for n in walk(self.procedure.node.kids[7]) if n.line is not None
                   and any(m is node for m in walk(n.kids))]
        return holders[-1] if holders else node

    def adjoint_name(self, name: str, ref: Node) -> str:
        """NAMEb of a variable that has an adjoint here; a variable reached otherwise (through
        a pointer component of a structure, an alias) is refused: its adjoint is not declared."""
        if self.procedure is not None and name not in self.facts.diff_variables(self.procedure.name) \
                and self.result_structure(name) is None:
            self.refuse(self.statement_of(ref), f"the adjoint of {name} (reached through a pointer or an alias)")
        return self.names.var(name)

    def component_with_adjoint(self, ref: Node) -> bool:
        """A-ref-field applies: C refuses a pointer component whose adjoint pointer nothing
        sets (managed_component says which are set)."""
        if self.c:
            owner = self.type_of_c_ref(ref.kids[0])
            found = self.types.structures.table.fields(owner).get(ref.kids[1]) if owner is not None else None
            if found is not None and found[1].kids[3] and not self.managed_component(ref):
                self.refuse(self.statement_of(ref), f"the adjoint of the pointer component {ref.kids[1]} of a structure")
        return True

    def managed_component(self, ref: Node) -> bool:
        """ref is a pointer component (`a.data`, `rows[k].data`, `m->data`) of a local
        structure or of one a formal points to, that the function moves only by its own
        mallocs and the active calls it passes the structure to: the adjoint component is
        set alongside, by the matching callocs (A-malloc-diff), by the callees' split sweeps
        (mat_alloc_fwd), or, for a formal's, by the caller (the tangent's diff mem management:
        the caller's adjoint structure holds the adjoint pointer)."""
        key = pointer_key(ref)
        if key is None or ref.op != "fieldAccess" or _root(ref) not in self.procedure.scope.symbols:
            return False
        known = self._managed.get((key, pointer_zone_name(ref)))
        if known is None:
            body = self.procedure.node.kids[7]
            known = not any(n.op in ("assign", "pointerAssign") and pointer_key(n.kids[0]) == key for n in walk(body)) \
                and not any(n.op == "call" and _moves(self, n, ref) and not self.facts.is_active_call(n)
                            for n in walk(body))
            self._managed[(key, pointer_zone_name(ref))] = known
        return known

    def allocated_component(self, ref: Node) -> bool:
        """A managed pointer component that this function allocates (its pointer is saved
        with the adjoint's where an allocation may run twice)."""
        return pointer_key(ref) in self._allocations and self.managed_component(ref)

    def freed_here(self, stmt: Node) -> bool:
        """free(P) of a block that this function allocated: P is a local pointer (or a
        component of a local structure) that only this function's mallocs set."""
        target = stmt.kids[0]
        if pointer_key(target) not in self._allocations or _root(target) in self.procedure.formals:
            return False
        body = self.procedure.node.kids[7]
        return not any(n.op == "call" and _moves(self, n, target) for n in walk(body))

    def freed_elsewhere(self, stmt: Node) -> bool:
        """A-free-kept applies: C frees, through a managed pointer component with an adjoint,
        a block that may come from elsewhere (a caller, another helper). Refused in a
        procedure its caller checkpoints or no active call reaches (a head): the block's
        allocation, whose backward point frees it, is not in the adjoint code there."""
        if not self.c or stmt.op != "deallocate" or self.freed_here(stmt) or self.deferred_free(stmt):
            return False
        target = stmt.kids[0]
        if target.op != "fieldAccess" or not self.managed_component(target) \
                or not self.facts.has_derivative(target, stmt):
            return False
        name = self.procedure.name
        if _root(target) in self.procedure.formals and (not self.facts.is_called(name) or self.facts.is_called_joint(name)
                                                        or name in self.facts.results.heads):
            self.refuse(stmt, "freeing memory of the caller in a procedure that is a head or whose call is "
                              "checkpointed")
        return True

    def kept_block(self, stmt: Node) -> Node:
        """[push(P); push(Pb) ; pop(Pb); pop(P)]: the forward sweep keeps the block and its
        adjoint (the backward sweep reads the one, increments the other); the backward sweep,
        at the point of the free, gets the pointers back for what runs before it backward,
        down to the allocation's backward point, which frees both."""
        target = stmt.kids[0]
        target_b, _ = self.ruleset.apply("ref", target, self)
        return Node("block", (Node("block", (self.push_pointer(target), self.push_pointer(target_b))),
                              Node("block", (self.pop_pointer(target_b), self.pop_pointer(target)))))

    def pointer_variable(self, ref: Node) -> bool:
        """ref is a C pointer itself (`p`, not `*p` nor `p[i]`)."""
        if not self.c or ref.op != "ident":
            return False
        sym = self.symbol_of(ref)
        return sym is not None and bool(sym.ptr) and not sym.dims

    def structure_type(self, typ: Node | None) -> bool:
        return typ is not None and typ.op == "typeRef" and self.types.structures.of(typ) is not None

    # --- the stack ------------------------------------------------------------------------------
    @staticmethod
    def push_pointer(ref: Node) -> Node:
        return Node("call", ("pushPointer8", (ref,)))

    @staticmethod
    def pop_pointer(ref: Node) -> Node:
        """popPointer8((void **)&p): C converts no double ** to void ** by itself."""
        return Node("call", ("popPointer8", (Node("cast", (VOID_POINTER_POINTER, Node("address", (ref,)))),)))

    # --- declarations ---------------------------------------------------------------------------
    def initial_adjoint(self, typ: Node, original: Node, declarator: Node, stmt: Node) -> Node | None:
        """The initial value of an adjoint in its C declaration (A-decl): a pointer's points
        where the pointer points, in the adjoint memory (q = a + 3: qb = ab + 3; none
        without an initial value); a struct or an array is zeroed whole ({0}), a real is 0."""
        if declarator.kids[3]:
            init = original.kids[2]
            return None if init is None else self.pointer_adjoint(init, stmt)
        if declarator.kids[1] or self.structure_type(typ):
            return Node("arrayConstructor", ((Node("intCst", (0, None)),),))
        return Node("realCst", ("0.0", typ.kids[1] if typ.op == "type" and typ.kids[1] else 8))

    # --- whole structures and arrays, component by component -------------------------------------
    def c_structure(self, ref: Node) -> bool:
        """C: ref denotes a whole struct that has real components (`w`, `*s`, `s[1]`)."""
        return self.c and self.structure_type(self.type_of_c_ref(ref))

    def not_c_structure(self, ref: Node) -> bool:
        return not self.c_structure(ref)

    def type_of_c_ref(self, ref: Node) -> Node | None:
        """The C type of a reference (struct components followed), None when not known."""
        table = self.types.structures.table
        if ref.op == "ident":
            sym = self.symbol_of(ref)
            if sym is None:
                return self.result_structure(ref.kids[0])
            return None if sym.dims or sym.ptr else table.resolve(sym.type)
        if ref.op in ("deref", "arrayAccess"):
            sym = self.symbol_of(ref.kids[0]) if ref.kids[0].op == "ident" else None
            if sym is not None:
                levels = (sym.ptr or 0) + len(sym.dims or ())
                return table.resolve(sym.type) if levels == (1 if ref.op == "deref" else len(ref.kids[1])) else None
            inner = self.type_of_c_ref(ref.kids[0]) if ref.kids[0].op == "fieldAccess" else None
            return inner
        if ref.op == "fieldAccess":
            owner = self.type_of_c_ref(ref.kids[0])
            found = table.fields(owner).get(ref.kids[1]) if owner is not None else None
            if found is None or found[1].kids[1] or found[1].kids[3]:
                return None
            return table.resolve(found[0])
        return None

    def over_components(self, refs: tuple, typ: Node | None, dims, leaf, kinds=("real",)) -> tuple:
        """leaf(refs, type) for each elementary component of the given kinds of values of type
        typ (the same component of each ref): the fields of a struct recursively, the elements
        of an array of known dimensions (a loop); refused where a size is not known here."""
        if dims:
            if any(d.kids[1] is None for d in dims):
                self.refuse(self.procedure.node, "a whole array of unknown size inside a structure")
            index = self.fresh("ii1", INT)
            body = self.over_components(tuple(Node("arrayAccess", (r, (index,))) for r in refs), typ, dims[1:],
                                        leaf, kinds)
            return (Node("for", (Node("assign", (index, Node("intCst", (0, None)))), Node("lt", (index, dims[0].kids[1])),
                                 Node("assign", (index, Node("add", (index, Node("intCst", (1, None)))))),
                                 Node("block", body))),) if body else ()
        resolved = self.types.structures.table.resolve(typ) if typ is not None else None
        if self.structure_type(resolved):
            out = []
            for field, (ftype, declarator) in self.types.structures.table.fields(resolved).items():
                if declarator.kids[3]:
                    if "pointer" in kinds:
                        out.extend(leaf(tuple(Node("fieldAccess", (r, field)) for r in refs), None))
                    continue  # an adjoint pointer component points to adjoints the owner manages
                if "real" in kinds and len(kinds) == 1 and not self.types.structures.differentiable(ftype):
                    continue
                out.extend(self.over_components(tuple(Node("fieldAccess", (r, field)) for r in refs), ftype,
                                                declarator.kids[1], leaf, kinds))
            return tuple(out)
        if resolved is None or resolved.op != "type" or resolved.kids[0] not in kinds:
            self.refuse(self.procedure.node, "a structure component of this type in a whole-structure operation")
        return leaf(refs, resolved)

    def whole_zero(self, ref_b: Node, typ: Node | None, dims=None) -> tuple:
        """REFb = 0 for the whole of an adjoint of type typ: each real component of a struct
        (recursively), each element of an array (a loop)."""
        return self.over_components((ref_b,), typ, dims, lambda refs, t: (
            Node("assign", (refs[0], Node("realCst", ("0.0", t.kids[1] or 8)))),))

    def c_structure_copy_adjoint(self, stmt: Node, lhs_b: Node, rhs_b: Node | None) -> Node:
        """The backward sweep of the struct copy L = R: Rb.f += Lb.f then Lb.f = 0 for each
        real component f (only the zeros when R is passive)."""
        lhs, rhs = stmt.kids
        if rhs_b is not None and (_root(lhs) == _root(rhs) or self.hidden_alias(stmt)):
            self.refuse(stmt, "a structure copy whose two sides may be the same memory")

        def leaf(refs, typ):
            zero = (Node("assign", (refs[0], Node("realCst", ("0.0", typ.kids[1] or 8)))),)
            return zero if rhs_b is None else (Node("assign", (refs[1], Node("add", (refs[1], refs[0])))),) + zero
        return Node("block", self.over_components((lhs_b,) if rhs_b is None else (lhs_b, rhs_b),
                                                  self.type_of_c_ref(lhs), None, leaf))

    def structure_source(self, rhs: Node, stmt: Node) -> Node:
        """The struct a struct copy reads; a struct-valued call is refused (calls are not
        differentiated here)."""
        if rhs.op == "call" and self.is_hoisted(rhs):   # a struct-valued function: its temporary
            return self.result_temp(rhs)
        if rhs.op not in ("ident", "arrayAccess", "fieldAccess", "deref"):
            self.refuse(stmt, f"the adjoint of {rhs.kids[0] if rhs.op == 'call' else 'a struct-valued expression'}")
        return rhs

    def c_structure_stack(self, ref: Node, verb: str) -> Node:
        """push (pop, in reverse) of every real, integer and pointer component of a struct."""
        def leaf(refs, typ):
            if typ is None:
                return (self.push_pointer(refs[0]) if verb == "push" else self.pop_pointer(refs[0]),)
            return (getattr(self, verb)(refs[0], typ),)
        stmts = self.over_components((ref,), self.type_of_c_ref(ref), None, leaf, ("real", "integer", "pointer"))
        return Node("block", stmts if verb == "push" else _reversed(stmts))

    def zero_of_variable(self, name: str, ref_b: Node) -> tuple | None:
        """C: the whole zero of the adjoint ref_b of the variable `name` of the procedure
        (None: its size is the caller's, a pointer)."""
        sym = self.procedure.scope.lookup(name)
        return None if sym.ptr and not sym.dims or sym.dims and any(d.kids[1] is None for d in sym.dims) \
            else self.whole_zero(ref_b, sym.type, sym.dims)

    # --- globals and memory arguments -------------------------------------------------------------
    def c_globals(self, names) -> tuple:
        """The C file-scope variables among names (their adjoints are file-scope too)."""
        if not self.c:
            return ()
        scope = self.procedure.scope
        return tuple(n for n in sorted(names) if global_owner(scope, n)[0] is not None)

    def memory_buffers(self, name: str, statuses) -> tuple:
        """((formal, its adjoint, whether the caller zeroes it),) of the memory arguments (the
        tangent's contract, "Plus diff mem management of"): P_b zeroes an adjoint whose size it
        knows before the backward sweep (`out`), else the caller passes it zeroed (`incr`, or
        `in-out` when P overwrites the memory)."""
        status = dict(s.split(":", 1) for s in statuses)
        return tuple((f, self.names.var(f), status.get(f) != "out") for f in self.facts.memory_formals(name))

    def global_initialisations(self, name: str, diff) -> tuple:
        """(zeros, statuses) of the adjoints of the active file-scope globals: a dependent's
        is read and consumed (in-zero or in-out); any other is set to 0 before the backward
        sweep (`out`): the global's value at the exit carries no gradient. In a function that
        an active call reaches, they go in and out as the caller's (globals.py): untouched."""
        proc = self.procedure
        deps = self.facts.results.heads.get(proc.name, (0, 0))[1]
        zeros, statuses = (), []
        found_globals = self.c_globals(diff) if not self.facts.is_called(proc.name) else ()
        for var in found_globals:
            loc = proc.zones.vars.get(var)
            zones = loc.all & proc.zones.differentiable_mask if loc is not None else 0
            ref_b = Node("ident", (self.names.var(var),))
            if zones & deps:
                statuses.append(f"{var}:{self._consumed(zones)}")
                continue
            found = self.zero_of_variable(var, ref_b)
            if found is None:
                self.refuse(proc.node, f"the active global pointer {var}")
            zeros += found
            statuses.append(f"{var}:out")
        return zeros, statuses

    # --- pointers and C memory ------------------------------------------------------------------
    def start_data(self, body) -> None:
        """Before a procedure: its statements inside loops, and how often each pointer is
        allocated (an allocation that may run twice overwrites a pointer the backward sweep
        frees)."""
        # statements only (an allocation is one): the expressions are most of the nodes
        self._in_loops = {id(s) for loop in walk_statements(body) if loop.op in LOOPS
                          for s in walk_statements(loop.kids) if s.op == "allocate"}
        self._allocations, self._managed = {}, {}
        for stmt in walk_statements(body):
            key = pointer_key(stmt.kids[0]) if stmt.op == "allocate" else None
            if key is not None:
                self._allocations[key] = self._allocations.get(key, 0) + 1

    def c_memory(self, stmt: Node) -> bool:
        """A C malloc or free (A-malloc, A-free); a free must be of a local pointer that this
        procedure allocates, whose block the backward sweep frees in its place."""
        if not self.c or stmt.op not in ("allocate", "deallocate"):
            return False
        if stmt.op == "deallocate" and not self.freed_here(stmt):
            if self.deferred_free(stmt) or self.freed_elsewhere(stmt):
                return False  # A-free-deferred, A-free-kept
            self.refuse(stmt, "freeing memory that the function does not allocate itself")
        if stmt.op == "allocate" and _root(stmt.kids[0]) in self.procedure.formals:
            name = self.procedure.name
            if not self.facts.is_called(name) or self.facts.is_called_joint(name) or name in self.facts.results.heads:
                self.refuse(stmt, "allocating memory for the caller in a procedure that is a head or whose call is "
                                  "checkpointed")
        return True

    def pointer_rvars(self, stmt: Node) -> tuple:
        """RVARS of a pointer assignment or an allocation: (), or p with its adjoint pointer
        pb when it has one: p where the facts say its old value is needed (TBR), and, for an
        allocation that may run twice, always (the backward sweep frees each block)."""
        target = stmt.kids[0]
        again = stmt.op == "allocate" and (id(stmt) in self._in_loops or self._allocations.get(pointer_key(target), 0) > 1)
        if not (again or self.facts.is_restored(stmt)):
            return ()
        if self.allocated_component(target):  # a.data: with its adjoint ab.data
            return (target, self.ruleset.apply("ref", target, self)[0])
        if not self.pointer_variable(target):
            self.refuse(stmt, "saving a pointer that is no variable")
        if not self.facts.has_derivative(target, stmt) and stmt.op == "allocate":
            return (target,)
        return (target, Node("ident", (self.names.var(target.kids[0]),))) \
            if target.kids[0] in self.facts.diff_variables(self.procedure.name) else (target,)

    def pointer_restored(self, stmt: Node) -> bool:
        return bool(self.pointer_rvars(stmt))

    def pointer_not_restored(self, stmt: Node) -> bool:
        return not self.pointer_restored(stmt)

    def pointer_saves(self, stmt: Node) -> Node:
        """[push(V) for V in RVARS ; pop(V) in reverse order]."""
        rvars = self.pointer_rvars(stmt)
        return Node("block", (Node("block", tuple(self.push_pointer(v) for v in rvars)),
                              Node("block", tuple(self.pop_pointer(v) for v in reversed(rvars)))))

    def pointer_adjoint(self, value: Node, stmt: Node) -> Node:
        """The adjoint pointer matching a pointer value (&a[k] → &ab[k], q → qb, NULL)."""
        try:
            derived = self.pointer_value_derivative(value, stmt)
        except UnsupportedError as e:
            self.refuse(stmt, e.message.removesuffix(" is not supported yet"))
        if value.ann.get("pointer_sum") and derived.op == "address":  # `p + k` stays pointer arithmetic
            derived = Node(derived.op, derived.kids, derived.ann.set("pointer_sum", True))
        return derived

    def zeroed_allocation(self, stmt: Node, target_b: Node) -> Node:
        """Pb = calloc(N): the adjoint block, of the derivative type, zeroed whole."""
        return Node("allocate", (target_b, stmt.kids[1], self.derivative_type(stmt.kids[2])),
                    self.derivative_ann(stmt).set("zeroed", True))


def pointer_key(ref: Node) -> str | None:
    """The pointer a reference names, its indices dropped (`p`, `a.data`, `rows[].data`,
    `*r.data` for r->data):
    allocations are counted per key."""
    if ref.op == "ident":
        return ref.kids[0]
    if ref.op == "fieldAccess":
        base = pointer_key(ref.kids[0])
        return None if base is None else f"{base}.{ref.kids[1]}"
    if ref.op == "arrayAccess":
        base = pointer_key(ref.kids[0])
        return None if base is None else f"{base}[]"
    if ref.op == "deref":
        base = pointer_key(ref.kids[0])
        return None if base is None else f"*{base}"
    return None


def _root(ref: Node) -> str | None:
    while ref.op in ("arrayAccess", "fieldAccess", "deref", "address"):
        ref = ref.kids[0]
    return ref.kids[0] if ref.op == "ident" else None


def _reversed(stmts: tuple) -> tuple:
    """The pops matching a sequence of pushes: in reverse order, the loops running backwards."""
    out = []
    for s in reversed(stmts):
        if s.op == "for":
            init, cond, step, body = s.kids
            index, bound = init.kids[0], cond.kids[1]
            out.append(Node("for", (Node("assign", (index, Node("sub", (bound, Node("intCst", (1, None)))))),
                                    Node("ge", (index, Node("intCst", (0, None)))),
                                    Node("assign", (index, Node("sub", (index, Node("intCst", (1, None)))))),
                                    Node("block", _reversed(body.kids)))))
        else:
            out.append(s)
    return tuple(out)


def _moves(ctx, call: Node, ref: Node) -> bool:
    """The call may set the pointer ref (a pointer component of the caller's structure)."""
    try:
        return pointer_zone_name(ref) in ctx.facts.call_moved_pointers(call)
    except ValueError:   # not a call of a procedure of the program (an intrinsic, malloc)
        return False


def pointer_zone_name(ref: Node) -> str | None:
    """The name of the zone of a pointer reference: `m.data`, `rows.data` (the elements of an
    array are one zone), `m->data`."""
    if ref.op == "ident":
        return ref.kids[0]
    if ref.op == "arrayAccess":
        return pointer_zone_name(ref.kids[0])
    if ref.op == "fieldAccess":
        base = ref.kids[0]
        if base.op == "deref":
            inner = pointer_zone_name(base.kids[0])
            return None if inner is None else f"{inner}->{ref.kids[1]}"
        inner = pointer_zone_name(base)
        return None if inner is None else f"{inner}.{ref.kids[1]}"
    return None
