"""`$AD CHECKPOINT-START` / `$AD CHECKPOINT-END` around a piece of code (TAPENADE.md
"Directives"; paper 4.10 and 5.4): the piece is checkpointed like a call.

Reconstruction (docs/rules.md#a-checkpoint-piece): before the analyses, the piece becomes a
call of a new subroutine P_ckpK whose formals are the variables of P that the piece reads
or writes (and those their declarations need); the analyses and the call rules then treat
it as any checkpointed call: SNP pushed before it, the plain piece in the forward sweep,
and in the backward sweep SNP popped and P_ckpK_b (the piece's forward sweep with its
pushes, then its backward sweep). Since P_ckpK exists only for the analyses, the plain
call left in the forward sweep is replaced by the piece itself after differentiation
(`inlined`), so the output needs no source it does not have.
"""
from __future__ import annotations

from ...engine.errors import UnsupportedError
from ...engine.il import EXPRESSION_OPS, Node, jump_targets, substituted, walk

START, END = "CHECKPOINT-START", "CHECKPOINT-END"
_JUMPS = ("goto", "computedGoto", "arithmeticIf")


def _marks(node) -> tuple:
    """The piece directives of a statement; C: a `$AD CHECKPOINT-END` closing a block is a
    comment (no statement follows it)."""
    if not isinstance(node, Node):
        return ()
    if node.op == "comment" and node.kids[0].strip().upper() == "$AD " + END:
        return (END,)
    return tuple(d.upper() for d in node.ann.get("directives", ()))


def has_pieces(files) -> bool:
    """A piece directive in the files: the readers put directives on statements (and C's
    closing comments), so the expressions, most of the nodes, are not searched (a call or an
    intrinsic may be a statement)."""
    stack = list(files)
    while stack:
        node = stack.pop()
        if type(node) is tuple:
            stack.extend(node)
        elif isinstance(node, Node) and (node.op not in EXPRESSION_OPS or node.op in ("call", "intrinsic")):
            marks = _marks(node)
            if START in marks or END in marks:
                return True
            stack.extend(node.kids)
    return False


def outlined(files) -> tuple:
    """(files with each piece replaced by a call of its subroutine P_ckpK, which follows P
    in P's unit list; {P_ckpK: the piece's block})."""
    from ...engine.program import build_program
    if not has_pieces(files):
        return files, {}
    program = build_program(files)
    taken = {n.kids[0] for f in program.files for n in walk(f) if n.op in ("procedure", "module")}
    pieces = {}
    out = []
    for original, stamped in zip(files, program.files):
        filename = original.ann.get("filename", "<input>")
        c = original.ann.get("lang", "fortran") != "fortran"
        out.append(_Outliner(program, filename, taken, pieces, c).units(original))
    return out, pieces


def inlined(node: Node, pieces: dict) -> Node:
    """node with each call of a piece's subroutine P_ckpK (the plain call the forward sweep
    keeps) replaced by the piece."""
    if not pieces or not isinstance(node, Node):
        return node
    if node.op == "call" and isinstance(node.kids[0], str) and node.kids[0] in pieces:
        return pieces[node.kids[0]]
    kids = tuple(inlined(k, pieces) if isinstance(k, Node)
                 else tuple(inlined(x, pieces) for x in k) if isinstance(k, tuple) else k for k in node.kids)
    return node if all(a is b for a, b in zip(kids, node.kids)) else node.with_kids(*kids)


class _Outliner:
    def __init__(self, program, filename, taken, pieces, c):
        self.program, self.filename, self.taken, self.pieces, self.c = program, filename, taken, pieces, c

    def refuse(self, node: Node, what: str):
        raise UnsupportedError(f"adjoint mode does not support {what} yet", self.filename, node.line)

    def units(self, container: Node) -> Node:
        """The file or module with its procedures' pieces outlined."""
        if container.op == "file":
            return container.with_kids(*self._unit_list(container.kids))
        return container.with_kids(container.kids[0], container.kids[1], self._unit_list(container.kids[2]))

    def _unit_list(self, units) -> tuple:
        out = []
        for unit in units:
            if unit.op == "module":
                out.append(self.units(unit))
            elif unit.op == "procedure" and unit.kids[7] is not None:
                new = []
                self.proc, self.new = unit, new
                body = self._statements(unit.kids[7])
                unit = unit.replace(body=body) if body is not unit.kids[7] else unit
                out.extend(new + [unit] if self.c else [unit] + new)   # C: declared before its call
            else:
                out.append(unit)
        return tuple(out)

    def _statements(self, node):
        """node with the pieces of its blocks outlined (blocks at any depth)."""
        if isinstance(node, tuple):
            kids = tuple(self._statements(k) for k in node)
            return node if all(a is b for a, b in zip(kids, node)) else kids
        if not isinstance(node, Node) or node.op in ("procedure",):
            return node
        kids = tuple(self._statements(k) for k in node.kids)
        if node.op == "block":
            kids = self._block(kids)
        return node if len(kids) == len(node.kids) and all(a is b for a, b in zip(kids, node.kids)) \
            else node.with_kids(*kids)

    def _block(self, stmts: tuple) -> tuple:
        """The block's statements, each piece (START on its first statement, END on the
        statement after it) a call; the END statement may start the next piece."""
        stmts, out, i = list(stmts), [], 0
        while i < len(stmts):
            stmt = stmts[i]
            directives = _marks(stmt)
            if END in directives:
                self.refuse(stmt, "$AD CHECKPOINT-END without a CHECKPOINT-START before it in its block")
            if START not in directives:
                out.append(stmt)
                i += 1
                continue
            j = next((k for k in range(i + 1, len(stmts)) if END in _marks(stmts[k])), None)
            if j is None:
                self.refuse(stmt, "$AD CHECKPOINT-START without a CHECKPOINT-END in the same block")
            out.append(self._outline(tuple(stmts[i:j])))
            if stmts[j].op == "comment":   # C: the END comment closing the block goes
                i = j + 1
            else:
                stmts[j] = _without(stmts[j], END)
                i = j
        return tuple(out)

    def _outline(self, piece: tuple) -> Node:
        first = piece[0]
        scope = self.program.procedure(self._qualified()).scope
        self._check_flow(piece)
        names = self._passed(piece, scope)
        base = f"{self.proc.kids[0]}_ckp"
        k = 1
        while f"{base}{k}" in self.taken:
            k += 1
        name = f"{base}{k}"
        self.taken.add(name)
        body = Node("block", (_without(first, START),) + piece[1:])
        self.pieces[name] = body
        ann = first.ann.set("directives", ())
        if self.c:
            return self._c_procedure(name, names, scope, body, ann)
        self.new.append(Node("procedure", (name, "subroutine", names, None, None, (), self._declarations(names, scope),
                                           body, ()), ann))
        return Node("call", (name, tuple(Node("ident", (n,)) for n in names)), ann)

    def _c_procedure(self, name: str, names: tuple, scope, body: Node, ann) -> Node:
        """C: static void P_ckpK(...), a scalar passed by its address (used as *v in the
        piece), an array or a pointer as it is. An integer scalar is passed by value when
        the piece does not assign it, else (a loop index, which the for-loop rules want as a
        variable) copied in and out of a local of its name."""
        params, actuals, values, copies = [], [], {}, []
        formals = []
        written = {n.kids[0].kids[0] for n in walk(body) if n.op == "assign" and n.kids[0].op == "ident"}
        for n in names:
            sym = scope.symbols[n]
            scalar = not sym.dims and not sym.ptr
            typ = sym.type if sym.type is not None else Node("type", ("integer", 4, None))
            formal, by_value = n, scalar and typ.op == "type" and typ.kids[0] == "integer" and n not in written
            if scalar and not by_value and typ.op == "type" and typ.kids[0] == "integer":
                formal = self._fresh_name(f"{n}_at", scope)
                copies.append((n, formal, typ))
            elif scalar and not by_value:
                values[n] = Node("deref", (Node("ident", (n,)),))
            formals.append(formal)
            declarator = Node("declarator", (formal, None if scalar else sym.dims, None,
                                             sym.ptr + (scalar and not by_value)))
            params.append(Node("varDecl", (typ, (), (declarator,))))
            actuals.append(Node("address", (Node("ident", (n,)),)) if scalar and not by_value else Node("ident", (n,)))
        inner = tuple(Node("varDecl", (typ, (), (Node("declarator", (n, None, Node("deref", (Node("ident", (f,)),)),
                                                                      0)),))) for n, f, typ in copies)
        outer = tuple(Node("assign", (Node("deref", (Node("ident", (f,)),)), Node("ident", (n,)))) for n, f, _ in copies)
        body = Node("block", inner + substituted(body, values).kids + outer)
        void = Node("type", ("void", None, None))
        self.new.append(Node("procedure", (name, "function", tuple(formals), None, void, ("static",), tuple(params),
                                           body, ()), ann))
        return Node("call", (name, tuple(actuals)), ann)

    def _fresh_name(self, base: str, scope) -> str:
        name, k = base, 0
        while name in scope.symbols or name in self.taken:
            k += 1
            name = f"{base}{k}"
        self.taken.add(name)
        return name

    def _qualified(self) -> str:
        """P's name in the program (a module procedure's is qualified)."""
        found = [p.name for p in self.program.procedures.values() if p.node.kids[0] == self.proc.kids[0]
                 and p.node.line == self.proc.line]
        return found[0] if found else self.proc.kids[0]

    def _check_flow(self, piece: tuple):
        """The piece is entered at its start and left at its end: no jump into or out of it,
        no RETURN, STOP, nor EXIT/CYCLE of a loop around it."""
        labels = {n.ann.get("label") for n in walk(piece) if n.ann.get("label") is not None}
        for node in walk(piece):
            if node.op in ("return", "stop"):
                self.refuse(node, f"{node.op.upper()} inside a $AD CHECKPOINT piece")
            if node.op in _JUMPS and not set(jump_targets(node)) <= labels:
                self.refuse(node, "a jump out of a $AD CHECKPOINT piece")
        for node in _outside_loops(piece):
            self.refuse(node, f"{node.op.upper()} of a loop around a $AD CHECKPOINT piece")
        inside = {id(n) for n in walk(piece)}
        outside = {t for n in walk(self.proc.kids[7]) if id(n) not in inside for t in jump_targets(n)}
        if labels & outside:
            self.refuse(piece[0], "a jump into a $AD CHECKPOINT piece")

    def _passed(self, piece: tuple, scope) -> tuple:
        """The variables of P the piece uses, and those their declarations use (the n of
        x(n)), in the order of P's declarations: the formals of P_ckpK."""
        wanted = [n.kids[0] for n in walk(piece) if n.op == "ident"]
        passed, seen = [], set()
        while wanted:
            name = wanted.pop()
            if name in seen:
                continue
            seen.add(name)
            sym = scope.symbols.get(name)
            if sym is None or sym.kind not in ("variable", "parameter") or not sym.is_storage or sym.common:
                continue   # a constant, a module or COMMON variable (the copied USE and COMMON reach it)
            if sym.attrs & {"allocatable", "pointer"} or any(d.kids[1] is None and d.kids[0] is None
                                                             for d in sym.dims or ()):
                self.refuse(piece[0], f"an allocatable, pointer or assumed-shape array ({name}) in a $AD "
                                      f"CHECKPOINT piece")
            passed.append(name)
            wanted.extend(n.kids[0] for n in walk(sym.dims or ()) if n.op == "ident")
        order = {n: i for i, n in enumerate(_declared_order(self.proc))}
        return tuple(sorted(passed, key=lambda n: (order.get(n, len(order)), n)))

    def _declarations(self, names: tuple, scope) -> tuple:
        """P's declarations for P_ckpK: USE, IMPLICIT, COMMON, constants and types as they
        are; the passed variables as plain formals (no INTENT, SAVE nor initial value); the
        other locals dropped."""
        out = []
        for decl in self.proc.kids[6]:
            if decl.op == "comment":
                continue
            if decl.op != "varDecl":
                out.append(decl)
                continue
            keep = []
            for d in decl.kids[2]:
                sym = scope.symbols.get(d.kids[0])
                if d.kids[0] in names:
                    keep.append(d.with_kids(d.kids[0], d.kids[1], None, d.kids[3]))
                elif sym is not None and (sym.is_constant or sym.common or sym.kind not in ("variable", "parameter")):
                    keep.append(d)
            if keep:
                attrs = tuple(a for a in decl.kids[1] if not a.startswith("intent") and a != "save") \
                    if any(d.kids[0] in names for d in keep) else decl.kids[1]
                out.append(Node("varDecl", (decl.kids[0], attrs, tuple(keep)), decl.ann))
        result = self.proc.kids[3] or self.proc.kids[0]
        if self.proc.kids[1] == "function" and result in names and self.proc.kids[4] is not None \
                and result not in _declared_order(self.proc):
            out.append(Node("varDecl", (self.proc.kids[4], (), (Node("declarator", (result, None, None, 0)),))))
        return tuple(out)


def _without(stmt: Node, directive: str) -> Node:
    return stmt.with_ann(directives=tuple(d for d in stmt.ann.get("directives", ()) if d != directive))


def _declared_order(proc: Node) -> list:
    return list(proc.kids[2]) + [d.kids[0] for decl in proc.kids[6] if decl.op == "varDecl" for d in decl.kids[2]]


def _outside_loops(piece: tuple):
    """The EXIT and CYCLE statements of the piece that no loop of the piece holds."""
    stack = [(s, False) for s in piece]
    while stack:
        node, looped = stack.pop()
        if not isinstance(node, Node):
            if isinstance(node, tuple):
                stack.extend((k, looped) for k in node)
            continue
        if node.op in ("exit", "cycle") and not looped:
            yield node
        inner = looped or node.op in ("do", "while", "doWhile", "for", "switch")   # C: break leaves a switch
        stack.extend((k, inner) for k in node.kids if isinstance(k, (Node, tuple)))
