"""Forms of C the adjoint rules meet beside its data, a mixin of AdjointContext: declarations
inside nested blocks (A-decl-nested), conditional expressions (A-expr-choice), functions
returning a struct (A-return-struct; their calls' temporaries are in call_support.py), frees
of passive memory that the function does not allocate (A-free-deferred).

The backward sweep of a nested block runs far from the block, after the block's variables
have gone out of scope in the forward sweep: such a variable is declared once for the whole
adjoint procedure, and its declaration becomes an assignment of each initial value. The
analyses already see one variable per name in a function (zones are per name), so the
hoisted variable is the one they reasoned about: the assignments push what TBR asks, and
the hoisted adjoint starts at 0 (each assignment's adjoint resets it). Names that one
declaration would shadow, or two declarations would give different types, are refused.
"""
from __future__ import annotations

from ...engine.il import Node, walk
from .c_data import pointer_key


class CForms:
    """Nested C declarations and conditional expressions for AdjointContext."""

    def start_blocks(self) -> None:
        self._hoisted = {}  # name -> the declaration it is hoisted from, in order
        self._frees = []    # the frees deferred to the end of P_b

    def nested_declaration(self, decl: Node) -> bool:
        """A-decl-nested applies: a C declaration inside a nested block."""
        return self.c and not self.top_level(decl)

    def hoisting_problem(self, decl: Node) -> str | None:
        """Why the nested declaration cannot be hoisted (None when it can)."""
        if "static" in decl.kids[1]:
            return "a static declaration inside a nested block"
        for d in decl.kids[2]:
            init = d.kids[2]
            if init is not None and init.op in ("arrayConstructor", "structConstructor"):
                return "an initializer list in a declaration inside a nested block"
            if self._clash(d.kids[0], decl):
                return f"a declaration of {d.kids[0]} inside a nested block where the function knows another " \
                       f"{d.kids[0]}"
        return None

    def _clash(self, name: str, decl: Node) -> bool:
        """Another declaration of name would meet the hoisted one: a formal, a declaration at
        the top of the function or at file scope (the hoisted one would hide it), a nested one
        of another type or whose block holds this one, or is held by it (shadowing). Sibling
        blocks declaring the same variable share it."""
        proc = self.procedure.node
        if name in proc.kids[2] or any(u.op == "varDecl" and any(d.kids[0] == name for d in u.kids[2])
                                       for f in self.program.files for u in f.kids):
            return True
        scopes = _scopes(proc.kids[7])
        if id(decl) not in scopes:
            return True
        mine = (decl.kids[0], tuple((d.kids[1], d.kids[3]) for d in decl.kids[2] if d.kids[0] == name))
        for n in walk(proc.kids[6] + proc.kids[7].kids):
            if not isinstance(n, Node) or n.op != "varDecl" or n is decl \
                    or not any(d.kids[0] == name for d in n.kids[2]):
                continue
            theirs = (n.kids[0], tuple((d.kids[1], d.kids[3]) for d in n.kids[2] if d.kids[0] == name))
            if self.top_level(n) or id(n) not in scopes or theirs != mine \
                    or any(m is n for m in walk(scopes[id(decl)])) or any(m is decl for m in walk(scopes[id(n)])):
                return True
        return False

    def hoisted_assignments(self, decl: Node) -> tuple:
        """The declaration, hoisted to the procedure, as the assignments of its initial values
        (they answer the facts of the declaration: same annotations)."""
        problem = self.hoisting_problem(decl)
        if problem is not None:
            self.refuse(decl, problem)
        for d in decl.kids[2]:
            self._hoisted.setdefault(d.kids[0], Node("varDecl", (   # assigned now: const only behind a pointer
                decl.kids[0], tuple(a for a in decl.kids[1] if a != "const" or d.kids[3]),
                (d.with_kids(d.kids[0], d.kids[1], None, d.kids[3]),)), decl.ann))
        return tuple(Node("assign", (Node("ident", (d.kids[0],)), d.kids[2]), decl.ann)
                     for d in decl.kids[2] if d.kids[2] is not None)

    def hoisted_declarations(self) -> tuple:
        """The hoisted variables' declarations, each followed by its adjoint's (zero, A-decl)."""
        return tuple(k for decl in self._hoisted.values() for k in self.adjoint_declaration(decl).kids)

    def replayable_choice(self, expr: Node) -> bool:
        """A-expr-choice applies to C ? A : B: the backward sweep evaluates C again, on the
        values TBR restores (the variables of C are use(I'), analyses/derivative_uses.py);
        a call of a function of the program in C could change something, and is refused."""
        return expr.op == "ifExpr" and not any(n.op == "call" for n in walk(expr.kids[0]))

    def returns_structure(self, stmt: Node) -> bool:
        """A-return-struct applies: a `return E` of a C function whose result is a struct."""
        proc = self.procedure.node
        return self.c and stmt.kids[0] is not None and self.structure_type(self.types.structures.table.resolve(proc.kids[4]))

    def returns_no_structure(self, stmt: Node) -> bool:
        return not self.returns_structure(stmt)

    def returned_structure_adjoint(self, source_b: Node) -> Node:
        """[{} ; SOURCEb.f = SOURCEb.f + Fb.f for each real component f]."""
        result_b = self.result_adjoint()
        increments = self.over_components((source_b, result_b), self.procedure.node.kids[4], None, lambda refs, t: (
            Node("assign", (refs[0], Node("add", (refs[0], refs[1])))),))
        return Node("block", (Node("block", ()), Node("block", increments)))

    def deferred_free(self, stmt: Node) -> bool:
        """A-free-deferred applies: C frees memory that this function did not allocate (a
        helper's block) through a local pointer, the memory holds no adjoint, and the free
        runs once per run (at the top of the body, in structured code: a free under an IF
        or in a loop is refused)."""
        if not self.c or stmt.op != "deallocate":
            return False
        target = stmt.kids[0]
        root = target
        while root.op in ("fieldAccess", "deref", "arrayAccess"):
            root = root.kids[0]
        if root.op != "ident" or pointer_key(target) in self._allocations:
            return False
        sym = self.symbol_of(root)
        return sym is not None and sym.formal is None and sym.kind == "variable" and not sym.attrs & {"static", "extern"} \
            and root.kids[0] in self.procedure.scope.symbols and root.kids[0] not in self.facts.diff_variables(
                self.procedure.name) and self.top_level(stmt) and self.structured(self.procedure.node.kids[7])

    def kept_free(self, stmt: Node) -> Node:
        """[V = P ; {}]: the forward sweep keeps the block (the backward sweep may read it),
        its address in a fresh V, freed at the end of P_b."""
        name = self.names.temp("ad_free", derivative=False)
        kept = Node("ident", (name,))
        self._hoisted[name] = Node("varDecl", (Node("type", ("void", None, None)), (),
                                               (Node("declarator", (name, None, Node("intCst", (0, None)), 1)),)))
        self._frees.append(stmt.with_kids(kept, *stmt.kids[1:]))
        return Node("block", (Node("block", (Node("assign", (kept, stmt.kids[0]), stmt.ann),)), Node("block", ())))

    def deferred_frees(self) -> tuple:
        return tuple(self._frees)

    @staticmethod
    def sweeps_of(pairs: tuple) -> Node:
        """[forward sweeps in order ; backward sweeps in reverse order] of a statement list."""
        return Node("block", (Node("block", tuple(p.kids[0] for p in pairs)),
                              Node("block", tuple(p.kids[1] for p in reversed(pairs)))))


def _scopes(body: Node) -> dict:
    """id(declaration) -> the block it is declared in (its scope), for the declarations
    directly in a block of body; a for loop's `for (int i = 0, j = n; ...)`: the loop."""
    blocks = {id(k): b for b in walk(body) if b.op == "block" for k in b.kids
              if isinstance(k, Node) and k.op == "varDecl"}
    loops = {id(f.kids[0]): f for f in walk(body) if f.op == "for" and f.kids[0] is not None
             and f.kids[0].op == "varDecl"}
    return {**blocks, **loops}
