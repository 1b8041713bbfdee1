"""What the adjoint rules of Fortran array notation (arrays.py; paper 4.11, fig. 14) compute:
ranks, the adjoints each operand of an array operation receives, masks, and the stack calls
of whole arrays and sections (PUSHREAL8ARRAY(a, n), TAPENADE.md "Runtime of the adjoint").

An array adjoint travels as ADJ = (VAL, RANK, MASK): the value VAL, the rank of VAL (0 for
a scalar broadcast over the expression, as the argument of SUM gets it), and the mask of the
WHERE or SUM(..., mask=) it lives under (NOMASK: none). Where the operand of an elementwise
operation is a scalar broadcast over an array, its adjoint sums (`xb = xb + SUM(VAL)`): the
SUM ↔ SPREAD duality of 4.11, under the mask if any.
"""
from __future__ import annotations

from ...engine.il import Node, walk
from ..derivatives import derivative
from ..tangent.expressions import OPERATOR_OPS, operands
from .array_moves import MOVES, ArrayMoves
from .expressions import _scaled, increment

_SEARCHED = frozenset(OPERATOR_OPS + ("intrinsic",))   # see operands_searched

NOMASK = Node("boolCst", (True,))
# reductions whose value has the rank of their argument less one with dim=, else 0
_REDUCTIONS = frozenset("sum product maxval minval norm2 count any all".split())
# intrinsics of the table whose adjoint is no elementwise product: their transposed forms
# (array_moves.py), refused for the others (A-arr-refuse)
_MOVES = frozenset("spread reshape pack cshift eoshift matmul transpose".split())
_INQUIRIES = frozenset("size lbound ubound shape".split())
_LOGICAL_OPS = frozenset("eq ne lt le gt ge and or not eqv neqv".split())
_ON_ARRAYS = _REDUCTIONS | _MOVES | {"dot_product"}
# statements that may write a variable given as their argument
_WRITERS = ("call", "intrinsic", "io")


class ArraySupport(ArrayMoves):
    """Mixed into AdjointContext: needs symbol_of, array_rank, kind_of, refuse, warn, lang."""

    # --- ranks --------------------------------------------------------------------------------
    def value_rank(self, expr: Node) -> int | None:
        """The rank of the value of expr (None: not known here)."""
        if expr.op == "intrinsic":
            name, args = expr.kids
            positional = [a for a in args if a.op != "namedArg"]
            if name in _REDUCTIONS and positional:
                inner = self.value_rank(positional[0])
                has_dim = len(positional) > 1 or any(a.op == "namedArg" and a.kids[0] == "dim" for a in args)
                return None if inner is None else (inner - 1 if has_dim else 0)
            if name == "dot_product":
                return 0
            if name in _MOVES:
                return self.move_rank(expr)
            if name in ("maxloc", "minloc"):   # integer indices: one per dimension, or the one of dim=
                inner = self.value_rank(positional[0]) if positional else None
                return 0 if len(positional) > 1 or any(a.op == "namedArg" and a.kids[0] == "dim" for a in args) \
                    else None if inner is None else 1
            if name in _INQUIRIES:
                return 0 if name == "size" or len(positional) > 1 or any(a.op == "namedArg" for a in args) else 1
            entry = derivative(name, self.lang)
            if entry is None or entry.multilinear:
                return self.array_rank(expr)
            ranks = [self.value_rank(a) for a in positional]
            return None if None in ranks else max(ranks, default=0)
        if expr.op in ("arrayConstructor", "impliedDo"):
            return 1
        if self.lang == "fortran" and any(n.op == "fieldAccess" for n in _parts(expr)):
            typ, ranked = self.type_of_ref(expr)   # a component: p%w, ps(:)%mass
            sections = [i for n in _parts(expr) if n.op == "arrayAccess" for i in n.kids[1] if i.op == "arrayTriplet"]
            return ranked if typ is not None and len(sections) <= 1 else None
        if expr.op in OPERATOR_OPS or expr.op in _LOGICAL_OPS:   # a mask: t(:) < 1 .and. .not. k
            ranks = [self.value_rank(k) for k in expr.kids]
            return None if None in ranks else max(ranks)
        if expr.op == "arrayAccess" and expr.kids[0].op == "ident":   # a(maxloc(x, 1)): the indices' ranks
            ranks = [1 if i.op == "arrayTriplet" else self.value_rank(i) for i in expr.kids[1]]
            return None if None in ranks else sum(ranks)
        return self.array_rank(expr)

    def known_rank(self, expr: Node, stmt: Node) -> int:
        rank = self.value_rank(expr)
        if rank is None:
            self.refuse(stmt, "the adjoint of an array expression whose rank is not known here")
        return rank

    def array_operation(self, expr: Node) -> bool:
        """Fortran: an operator or intrinsic with an array among its operands (a whole array,
        a section, an array constructor): its adjoint is an array adjoint (fig. 14)."""
        return self.operands_searched(expr) and self._holds_array(expr)

    def operands_searched(self, expr: Node) -> bool:
        """array_operation looks through expr's nodes (outside function calls' arguments)
        for sections, array constructors and whole arrays: Fortran operators and intrinsics."""
        return self.lang == "fortran" and expr.op in _SEARCHED

    def _holds_array(self, node: Node) -> bool:
        """An array constructor, a section, an intrinsic on arrays or a whole array (not
        the array of an element) is in node. Remembered per node: the rules ask it of an
        expression and then of each of its operands."""
        known = self._array_operands.get(id(node))
        if known is not None and known[0] is node and known[1] is self.procedure:
            return known[2]
        if node.op == "call":   # a function's arguments are its own (it returns a scalar)
            answer = False
        elif node.op in ("arrayConstructor", "impliedDo", "arrayTriplet") or (
                node.op == "intrinsic" and node.kids[0] in _ON_ARRAYS):
            answer = True
        elif node.op == "ident":
            answer = (sym := self.symbol_of(node)) is not None and bool(sym.dims)
        else:
            kids = node.kids[1:] if node.op == "arrayAccess" and node.kids[0].op == "ident" else node.kids
            answer = False
            for kid in _child_nodes(kids):
                if self._holds_array(kid):
                    answer = True
                    break
        self._array_operands[id(node)] = (node, self.procedure, answer)
        return answer

    def elementwise_operation(self, expr: Node) -> bool:
        """An operator, or an intrinsic of the derivative table whose adjoint is the
        elementwise product of its partials (elemental, reductions of rank 1, dot_product)."""
        if expr.op in OPERATOR_OPS:
            return True
        if expr.op != "intrinsic" or expr.kids[0] in _MOVES or expr.kids[0] == "sum":
            return False
        entry = derivative(expr.kids[0], self.lang)
        return entry is not None and (not entry.linear or not any(a.op == "namedArg" for a in expr.kids[1]))

    def moved(self, expr: Node) -> bool:
        return expr.op == "intrinsic" and expr.kids[0] in MOVES

    def not_elementwise_operation(self, expr: Node) -> bool:
        return not self.elementwise_operation(expr) and not self.moved(expr) \
            and not (expr.op == "intrinsic" and expr.kids[0] == "sum") and expr.op != "arrayConstructor"

    # --- the adjoints of the operands -----------------------------------------------------------
    def lhs_adjoint(self, lhs_b: Node, lhs: Node, rhs: Node, mask: Node, stmt: Node) -> tuple:
        """ADJ of the rhs: LHSb under the mask, summed when the rhs is a scalar broadcast."""
        rank = self.known_rank(lhs, stmt)
        found = self.value_rank(rhs)   # unknown: a data move, refused by A-arr-refuse
        return self.broadcast((lhs_b, rank, mask), rank if found is None else found, rank, stmt)

    def broadcast(self, adj: tuple, rank: int, parent: int, stmt: Node) -> tuple:
        """ADJ for an operand of that rank in an operation of rank `parent`: an operand of a
        lower rank than its adjoint's is a scalar broadcast, whose adjoint is the SUM of it."""
        val, vrank, mask = adj
        if rank >= vrank and rank >= parent:
            return adj
        if rank != 0 or vrank == 0:
            self.refuse(stmt, "the adjoint of a broadcast whose shape is not the array's "
                              "(a scalar added to the argument of SUM, or ranks that differ)")
        args = (val,) if mask is NOMASK or mask == NOMASK else (val, Node("namedArg", ("mask", mask)))
        return Node("intrinsic", ("sum", args)), 0, NOMASK

    def array_operands(self, expr: Node, adj: tuple, stmt: Node) -> tuple:
        """((Ai with a partial), (ADJi)): each operand's adjoint, Pi*VAL, its rank the larger
        of VAL's and Pi's (a reduction's partial has its argument's shape)."""
        val, vrank, mask = adj
        name = expr.kids[0] if expr.op == "intrinsic" else expr.op
        entry = derivative(name, self.lang)
        if entry is None:
            self.refuse(stmt, f"the adjoint of {name} (it is not in the derivative table)")
        args = entry.dummy_order(expr.kids[1]) if entry.reduction else operands(expr)
        if entry.reduction and ((len(args) > 1 and args[1] is not None) or self.known_rank(args[0], stmt) != 1):
            self.refuse(stmt, f"the adjoint of {name} other than of a rank-1 array without dim=")
        partials = entry.partials(args, self.lang, self.kind_of(expr))
        if entry.nondifferentiable(args, self.lang) is not None:
            self.warn(stmt, f"non-differentiable {name}: {entry.nondiff_doc} (the derivative there is one-sided)")
        parent = self.known_rank(expr, stmt)
        kept, adjs = [], []
        for arg, partial in zip(args, partials):
            if partial is None or arg is None:
                continue
            rank = self.known_rank(arg, stmt)
            prank = rank if entry.reduction or entry.multilinear else self.known_rank(partial, stmt)
            kept.append(arg)
            adjs.append(self.broadcast((_scaled(partial, val), max(vrank, prank), mask), rank, parent, stmt))
        return tuple(kept), tuple(adjs)

    def sum_operand(self, expr: Node, adj: tuple, stmt: Node) -> tuple:
        """SUM(E [, dim=D] [, mask=M]): E gets VAL spread along D (SUM ↔ SPREAD), under M."""
        val, vrank, mask = adj
        entry = derivative("sum", self.lang)
        ordered = entry.dummy_order(expr.kids[1]) + (None, None)
        array, dim, own = ordered[:3]
        if dim is not None and vrank > 0:
            rank = self.known_rank(array, stmt)
            if mask != NOMASK:
                self.refuse(stmt, "the adjoint of SUM with dim= under a mask")
            count = Node("intrinsic", ("size", (array, dim)))
            val, vrank = Node("intrinsic", ("spread", (val, dim, count))), rank
        return (array,), ((val, vrank, own if own is not None else mask),)

    def constructor_operands(self, expr: Node, adj: tuple, stmt: Node) -> tuple:
        """[E1, ..., En] of scalars: Ek gets element k of VAL, held in an array temporary
        (VAL is an expression, which Fortran does not index); a broadcast VAL goes to each."""
        val, vrank, mask = adj
        items = _unrolled(expr.kids[0])
        if any(i.op == "impliedDo" or self.value_rank(i) != 0 for i in items) or mask != NOMASK:
            self.refuse(stmt, "the adjoint of an array constructor of other than scalars, or under a mask")
        if vrank == 0:
            return items, tuple((val, 0, NOMASK) for _ in items), ()
        temp = self.fresh_array("tempb", 1, self.kind_of(expr) or 8)
        picked = tuple((Node("arrayAccess", (temp, (Node("intCst", (k, None)),))), 0, NOMASK)
                       for k in range(1, len(items) + 1))
        return items, picked, (Node("assign", (temp, val)),)

    def fresh_array(self, base: str, rank: int, kind: int, typ: str = "real") -> Node:
        """An allocatable temporary of that rank (allocated on assignment, F2003)."""
        name = self.names.temp(base, derivative=typ == "real")
        dims = tuple(Node("dim", (None, None)) for _ in range(rank))
        self.extra_declarations.append((name, Node("type", (typ, kind, None)), dims))
        return Node("ident", (name,))

    # --- statements ---------------------------------------------------------------------------
    def masked(self, stmts: tuple, mask: Node) -> tuple:
        """The array assignments under WHERE (mask) when there is a mask."""
        if mask == NOMASK:
            return stmts
        return (Node("where", (mask, Node("block", stmts), None)),)

    def increment_under(self, ref_b: Node, adj: tuple, ref: Node, mask: Node, stmt: Node) -> Node:
        """REFb = REFb + VAL (adj: VAL and its rank), under the mask for an array; one element
        at a time through a vector subscript (a(idx)), which may repeat an element."""
        val = adj[0]
        if any(n.op == "arrayAccess" and any(i.op != "arrayTriplet" and self.value_rank(i) != 0 for i in n.kids[1])
               for n in _parts(ref)):
            if mask != NOMASK:
                self.refuse(stmt, "the adjoint of an array read through a vector subscript, under a mask")
            return self.vector_subscript_increment(ref_b, adj, stmt)
        block = increment(ref_b, val)
        return Node("block", self.masked(block.kids, mask)) if self.known_rank(ref, stmt) > 0 else block

    def vector_subscript_increment(self, ref_b: Node, adj: tuple, stmt: Node) -> Node:
        """ab(idx) = ab(idx) + VAL adds once where idx repeats an element: one element at a
        time instead, VAL (an expression) held in a temporary first.
            tempb = VAL;  DO ii = 1, SIZE(idx):  ab(idx(ii)) = ab(idx(ii)) + tempb(ii)
        Only for one vector subscript, a rank-1 variable with lower bound 1, among scalar
        subscripts."""
        base, subscripts = ref_b.kids if ref_b.op == "arrayAccess" else (None, ())
        vectors = [k for k, i in enumerate(subscripts) if i.op == "arrayTriplet" or self.value_rank(i) != 0]
        vector = subscripts[vectors[0]] if len(vectors) == 1 else None
        sym = self.symbol_of(vector) if vector is not None and vector.op == "ident" else None
        if base is None or base.op != "ident" or sym is None or sym.dims is None or len(sym.dims) != 1 \
                or vector.op != "ident" or sym.dims[0].kids[0] not in (None, Node("intCst", (1, None))):
            self.refuse(stmt, "the adjoint of an array read through a vector subscript other than one "
                              "rank-1 integer array")
        index = self.fresh("ii", Node("type", ("integer", 4, None)))
        val, rank = adj
        kind = self.kind_of(val) or 8
        held = self.fresh_array("tempb", 1, kind) if rank else self.fresh("tempb", kind)
        item = Node("arrayAccess", (held, (index,))) if rank else held
        element = Node("arrayAccess", (base, subscripts[:vectors[0]] + (Node("arrayAccess", (vector, (index,))),)
                                       + subscripts[vectors[0] + 1:]))
        loop = Node("do", (index, Node("intCst", (1, None)), Node("intrinsic", ("size", (vector,))), None,
                           increment(element, item)))
        return Node("block", (Node("assign", (held, val)), loop))

    def reset_under(self, lhs_b: Node, zero: Node, mask: Node) -> Node:
        return Node("block", self.masked((Node("assign", (lhs_b, zero)),), mask))

    def masked_self_update(self, instrs: Node, lhs_b: Node, zero: Node, mask: Node) -> Node:
        """The iterative array assignment (a(:) = 2.9*a(:) + x): ctx.self_update on the
        increments with their WHERE taken off, its last assignment put back under the mask."""
        from .context import flattened
        plain = tuple(s.kids[1].kids[0] if s.op == "where" and len(s.kids[1].kids) == 1
                      and s.kids[1].kids[0].kids[0] == lhs_b else s for s in flattened(instrs).kids)
        update = self.self_update(Node("block", plain), lhs_b, zero).kids
        if update and update[-1].op == "assign" and update[-1].kids[0] == lhs_b:
            update = update[:-1] + self.masked(update[-1:], mask)
        return Node("block", update)

    def elementwise_self(self, stmt: Node) -> bool:
        """The lhs appears in the rhs only as itself and only elementwise (not inside SUM,
        MATMUL...): element i of the lhs reads element i of it, as a scalar self-update."""
        if not self.self_reference(stmt):
            return False
        lhs = stmt.kids[0]
        for n in walk(stmt.kids[1]):
            if n.op == "intrinsic" and not self._elemental(n) and any(m == lhs for m in walk(n)):
                return False
        return True

    def overlapping_lhs(self, stmt: Node) -> bool:
        return self.may_alias(stmt) and not self.elementwise_self(stmt)

    def array_temporary(self, lhs: Node, stmt: Node) -> Node:
        """The paper's V for an array lhs: an allocatable of the lhs's rank, given its shape
        by the assignment V = LHSb (Fortran 2003 allocation on assignment)."""
        typ = self.element_type(lhs)
        kind = typ.kids[1] if typ is not None and typ.op == "type" else 8
        return self.fresh_array("tempb", self.known_rank(lhs, stmt), kind)

    def _elemental(self, expr: Node) -> bool:
        entry = derivative(expr.kids[0], self.lang)
        return expr.kids[0] not in _REDUCTIONS | _MOVES and entry is not None and not entry.multilinear

    def mask_unchanged(self, stmt: Node) -> bool:
        """No statement of the procedure writes a variable of the WHERE's mask: the backward
        sweep evaluates the mask again and finds the value the forward sweep used."""
        names = {n.kids[0] for n in walk(stmt.kids[0]) if n.op == "ident"}
        body = self.procedure.node.kids[7]
        for n in walk(body):
            if n.op == "assign" and _root(n.kids[0]) in names:
                return False
            if n.op in _WRITERS and any(m.op == "ident" and m.kids[0] in names for m in walk(n)):
                return False
        return True

    def masks_kept(self, stmt: Node) -> bool:
        """maskUnchanged, and the WHERE has one mask (no ELSEWHERE (mask), no WHERE nested in
        it): the backward sweep evaluates the mask again (A-where)."""
        return self.mask_unchanged(stmt) and not any(n.op == "where" for n in walk(stmt) if n is not stmt)

    def masks_saved(self, stmt: Node) -> bool:
        return not self.masks_kept(stmt)

    def where_sweeps(self, stmt: Node, then_pairs: tuple, else_pairs: tuple) -> Node:
        """The WHERE with the forward sweeps of its statements, and the backward sweeps,
        elsewhere part first, each one already under its mask. Where a statement saves
        values (its lhs, pushed whole: the elements outside the mask come back unchanged),
        the WHERE is split into one WHERE per run of statements, the push between them: the
        same computation, the mask's variables being written nowhere (maskUnchanged)."""
        from .context import flattened
        mask, parts = stmt.kids[0], []
        for pairs, part_mask in ((then_pairs, mask), (else_pairs, Node("not", (mask,)))):
            parts.append((flattened(Node("block", tuple(p.kids[0] for p in pairs))).kids, part_mask))
        backward = tuple(p.kids[1] for p in reversed(else_pairs)) + tuple(p.kids[1] for p in reversed(then_pairs))
        if all(s.op == "assign" for stmts, _ in parts for s in stmts):
            then, other = (Node("block", stmts) for stmts, _ in parts)
            where = Node("where", (mask, then, other if stmt.kids[2] is not None else None), stmt.ann)
            kept = (where,) if then.kids or other.kids else ()   # all sliced away (4.9)
            return Node("block", (Node("block", kept), Node("block", backward)))
        forward = _masked_runs([(s, part_mask) for stmts, part_mask in parts for s in stmts], stmt.ann)
        return Node("block", (Node("block", forward), Node("block", backward)))

    # --- WHERE with its masks saved (A-where-saved) ----------------------------------------------
    def saved_where_parts(self, stmt: Node) -> tuple:
        """(STATEMENTS, CONTROLS, SETUPS, MASKS) of a WHERE whose masks the backward sweep
        cannot evaluate again. Each mask M gets a logical temporary K, assigned where Fortran
        evaluates M: the WHERE's before its first statement, an ELSEWHERE (mask)'s (a WHERE
        nested in the ELSEWHERE part) after the statements before it, and only where the
        pending control mask P holds (`K = P; where (K) K = M`: K is then P .and. M). Each
        statement runs under its control mask, K or P .and. .not. K: a WHERE construct is the
        sequence of its statements, each one masked. SETUPS[i] are the mask assignments to run
        before STATEMENTS[i]; a mask no statement follows is not kept."""
        stmts, controls, setups, masks, waiting, waiting_masks = [], [], [], [], [], []
        logical = 4

        def part(where: Node, pending: Node | None):
            mask, then, other = where.kids
            held = self.fresh_array("wheremask", self.known_rank(mask, where), logical, "logical")
            if pending is None:
                waiting.append(Node("assign", (held, mask), where.ann))
            else:
                waiting.extend((Node("assign", (held, pending), where.ann),
                                Node("where", (held, Node("block", (Node("assign", (held, mask)),)), None), where.ann)))
            waiting_masks.append(held)
            other_control = Node("not", (held,)) if pending is None else Node("and", (pending, Node("not", (held,))))
            for body, control in ((then, held), (other, other_control)):
                for s in body.kids if body is not None else ():
                    if s.op == "where":
                        part(s, control)
                        continue
                    stmts.append(s)
                    controls.append(control)
                    setups.append(Node("block", tuple(waiting)))
                    masks.extend(waiting_masks)
                    waiting.clear()
                    waiting_masks.clear()
        part(stmt, None)
        return tuple(stmts), tuple(controls), tuple(setups), tuple(masks)

    def mask_record(self, stmt: Node, masks: tuple) -> Node:
        """[PUSH ; POP] of the mask temporaries: nothing where the WHERE runs at most once in
        a run of P_b (no loop holds it, no jump in the procedure, P not called split), so the
        temporaries still hold their values in the backward sweep; else each run of the
        WHERE pushes them and the backward sweep pops them, in the shapes the forward sweep
        gave them last (the masks' shapes must not change from one run to the next)."""
        if not masks or self.executed_once(stmt):
            return Node("block", (Node("block", ()), Node("block", ())))
        extents = self.mask_extents(stmt.kids[0]) if self.fixed_shape(stmt.kids[0]) else None
        if extents is None:
            self.refuse(stmt, "a WHERE in a loop whose mask's shape may change from one run to the next")
        logical = Node("type", ("logical", 4, None))
        pushes = tuple(self.push_array(k, logical, "push") for k in masks)
        pops = []
        for k in reversed(masks):   # P_bwd (split mode) pops into a temporary of its own, not allocated yet
            allocation = Node("allocate", (k, tuple(Node("dim", (None, e)) for e in extents), None))
            pops += [Node("if", (Node("not", (Node("intrinsic", ("allocated", (k,))),)), Node("block", (allocation,)),
                                 None)), self.push_array(k, logical, "pop")]
        return Node("block", (Node("block", pushes), Node("block", tuple(pops))))

    def mask_extents(self, mask: Node) -> tuple | None:
        """The extents of the mask's value, from an array of its rank in it: SIZE(a, d) of a
        whole array, U - L + 1 of a section's triplets without stride (L, U: its bounds,
        else the array's); None when none is found."""
        rank = self.value_rank(mask)
        stack = [mask]
        while stack:
            n = stack.pop()
            if n.op == "ident":
                sym = self.symbol_of(n)
                if sym is not None and sym.dims and len(sym.dims) == rank:
                    return tuple(Node("intrinsic", ("size", (n, Node("intCst", (d, None))))) for d in range(1, rank + 1))
                continue
            if n.op == "arrayAccess" and n.kids[0].op == "ident":
                base, subscripts = n.kids
                triplets = [(d, t) for d, t in enumerate(subscripts, 1) if t.op == "arrayTriplet"]
                if len(triplets) == rank and all(t.kids[2] is None for _, t in triplets):
                    one = Node("intCst", (1, None))
                    return tuple(Node("add", (Node("sub", (t.kids[1] or Node("intrinsic", ("ubound", (base, Node("intCst", (d, None))))),
                                                           t.kids[0] or Node("intrinsic", ("lbound", (base, Node("intCst", (d, None))))))), one))
                                 for d, t in triplets)
                stack.extend(_child_nodes(subscripts))
                continue
            stack.extend(_child_nodes(n.kids))
        return None

    def executed_once(self, stmt: Node) -> bool:
        """stmt runs at most once per run of P_b's forward sweep: no loop holds it, the
        procedure has no jump, and it is not called split (P_fwd and P_bwd are two runs)."""
        body = self.procedure.node.kids[7]
        path = _path_to(body, stmt)
        return path is not None and not any(n.op in _LOOPS for n in path) \
            and not any(n.op in _JUMPS for n in walk(body)) and not self.facts.is_called_split(self.procedure.name)

    def fixed_shape(self, mask: Node) -> bool:
        """The mask's arrays are explicit-shape (not allocatable, not pointers) and its
        sections' bounds are integers nothing in the procedure changes."""
        from ...analyses.tbr_sections import invariant
        body = self.procedure.node
        for n in walk(mask):
            sym = self.symbol_of(n) if n.op == "ident" else None
            if sym is not None and sym.dims and ({"allocatable", "pointer"} & set(sym.attrs)
                                                 or any(d.kids[1] is None or d.kids[1].op == "star" for d in sym.dims)):
                return False
            if n.op == "arrayTriplet" and not all(b is None or invariant(b, body) for b in n.kids):
                return False
        return True

    def saved_where_sweeps(self, stmt: Node, controls: tuple, setups: tuple, pairs: tuple, record: Node) -> Node:
        """[SETUPS and the forward sweeps of the statements, each run of assignments of one
        control in a WHERE of it; PUSH ; POP; the backward sweeps in reverse order] (each
        backward sweep is already under its control mask)."""
        from .context import flattened
        items = []
        for control, setup, pair in zip(controls, setups, pairs):
            items.extend((s, None) for s in setup.kids)
            items.extend((s, control) for s in flattened(pair.kids[0]).kids)
        push, pop = record.kids
        forward = _masked_runs(items, stmt.ann) + push.kids
        backward = pop.kids + tuple(p.kids[1] for p in reversed(pairs))
        return Node("block", (Node("block", forward), Node("block", backward)))

    def where_parts(self, stmt: Node) -> tuple:
        """(THEN statements, ELSE statements, the mask of each part): ELSEWHERE is under .not. M."""
        mask, then, other = stmt.kids
        others = other.kids if other is not None else ()
        return then.kids, others, mask, Node("not", (mask,))

    # --- the stack -----------------------------------------------------------------------------
    def push_array(self, ref: Node, typ: Node | None, verb: str) -> Node:
        """PUSHREAL8ARRAY(a(l:u), SIZE(a(l:u))) / the pop: a whole array or the exact section."""
        if self.c:
            self.refuse(ref, f"saving the array {self._show(ref)} on the stack")
        sym = self.symbol_of(ref)
        if sym is not None and ref.op == "ident" and any(
                d.kids[1] is not None and d.kids[1].op == "star" for d in sym.dims or ()):
            self.refuse(ref, f"saving the assumed-size array {self._show(ref)} on the stack")
        word = self._kind_word(ref, typ)
        return Node("call", (f"{verb}{word}array".lower(), (ref, Node("intrinsic", ("size", (ref,))))))


UNROLLED_MAX = 256   # elements of an implied DO taken apart for its adjoint


def _unrolled(items: tuple) -> tuple:
    """The items of an array constructor with each implied DO of constant bounds taken apart:
    (ys(i), i = 1, 3) is ys(1), ys(2), ys(3), whose adjoints are element k of VAL."""
    from ..tangent.context import _replaced_equal
    out = []
    for item in items:
        if item.op != "impliedDo":
            out.append(item)
            continue
        inner, index, lo, hi, step = item.kids
        bounds = [b.kids[0] if b.op == "intCst" else None for b in (lo, hi, step or Node("intCst", (1, None)))]
        if None in bounds or bounds[2] == 0 or len(range(bounds[0], bounds[1] + (1 if bounds[2] > 0 else -1),
                                                         bounds[2])) > UNROLLED_MAX:
            out.append(item)
            continue
        for k in range(bounds[0], bounds[1] + (1 if bounds[2] > 0 else -1), bounds[2]):
            out.extend(_unrolled(_replaced_equal(inner, {index: Node("intCst", (k, None))})))
    return tuple(out)


def _masked_runs(items: list, ann) -> tuple:
    """The statements of (statement, control mask) items, each run of assignments under one
    control in one WHERE of it; the others (pushes, None control) as they are."""
    out, run, run_mask = [], [], None
    for s, mask in items + [(None, None)]:
        if run and (s is None or s.op != "assign" or mask is None or mask != run_mask):
            out.append(Node("where", (run_mask, Node("block", tuple(run)), None), ann))
            run = []
        if s is None:
            continue
        if s.op == "assign" and mask is not None:
            run.append(s)
            run_mask = mask
        else:
            out.append(s)
    return tuple(out)


def _path_to(root: Node, target: Node):
    """The statements from root down to target (by identity), target excluded; None if absent."""
    stack = [(root, ())]
    while stack:
        node, path = stack.pop()
        if node is target:
            return path
        for kid in _child_nodes(node.kids):
            stack.append((kid, path + (node,)))
    return None


_LOOPS = frozenset(("do", "for", "while", "doWhile", "forall"))
_JUMPS = frozenset(("goto", "computedGoto", "arithmeticIf"))


def _parts(ref: Node) -> list:
    """The reference and the references it is a part of (p%w(2): itself, p%w, p)."""
    out = []
    while isinstance(ref, Node) and ref.op in ("arrayAccess", "fieldAccess"):
        out.append(ref)
        ref = ref.kids[0]
    return out


def _root(ref: Node) -> str | None:
    while isinstance(ref, Node) and ref.op in ("arrayAccess", "fieldAccess", "deref", "address"):
        ref = ref.kids[0]
    return ref.kids[0] if isinstance(ref, Node) and ref.op == "ident" else None


def _child_nodes(kids: tuple, out: list | None = None) -> list:
    """The nodes that are children of a node with these kids (those in lists included)."""
    out = [] if out is None else out
    for kid in kids:
        if type(kid) is Node:
            out.append(kid)
        elif type(kid) is tuple:
            _child_nodes(kid, out)
    return out
