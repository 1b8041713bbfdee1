"""IL -> Fortran source (free or fixed form)."""
from __future__ import annotations

from ..engine.il import EMPTY_ANN, Node
from .layout import BlockWriter, ExprPrinter, Lines, alone_in, as_file, else_if, real_parts, unsupported

FREE_WIDTH = 132
FIXED_WIDTH = 72
FIXED_MAX_INDENT = 30  # keep room for code on deeply nested fixed-form lines

RELATIONAL = 5
ADDITIVE = 7  # the unary signs live at this level too: -a*b is -(a*b)


class FortranExpr(ExprPrinter):
    LANGUAGE = "Fortran"

    def __init__(self, filename: str = "<il>"):
        super().__init__(filename)
        self._reals: dict = {}   # (text, kind) of a real constant -> its Fortran form
    # Levels of the Fortran standard (R702-R727): higher binds tighter.
    BINARY = {
        "eqv": (1, "left", " .eqv. "), "neqv": (1, "left", " .neqv. "),
        "or": (2, "left", " .or. "), "and": (3, "left", " .and. "),
        "eq": (RELATIONAL, "none", " == "), "ne": (RELATIONAL, "none", " /= "),
        "lt": (RELATIONAL, "none", " < "), "le": (RELATIONAL, "none", " <= "),
        "gt": (RELATIONAL, "none", " > "), "ge": (RELATIONAL, "none", " >= "),
        "concat": (6, "left", "//"),
        "add": (ADDITIVE, "left", " + "), "sub": (ADDITIVE, "left", " - "),
        "mul": (8, "left", "*"), "div": (8, "left", "/"),
        "power": (9, "right", "**"),
    }
    # A sign may only start an additive expression: after any binary operator (a*-b, a+-b,
    # a**-b) it needs parentheses, which the equal/lower precedence rule gives.
    UNARY = {"neg": (ADDITIVE, "-"), "pos": (ADDITIVE, "+"), "not": (4, ".not. ")}

    def e_ident(self, n):
        return n.kids[0]

    def e_intCst(self, n):
        value, kind = n.kids
        return self.negative_literal(f"{value}_{kind}" if kind else str(value))

    def e_realCst(self, n):
        # a few spellings come back thousands of times in generated code
        written = self._reals.get(n.kids)
        if written is None:
            written = self._reals[n.kids] = self.real_text(*n.kids)
        return written

    def real_text(self, text, kind):
        # Double precision is written 2.0d-3, or 1.5d0 when the text has no exponent (the
        # front end reads 1.5d0 back as the text "1.5").
        mant, exp = real_parts(text)
        if kind == 8:
            return self.negative_literal(f"{mant}d{exp or 0}")
        text = mant if exp is None else f"{mant}e{exp}"
        return self.negative_literal(text if kind == 4 else f"{text}_{kind}")

    def e_complexCst(self, n):
        return f"({self.expr(n.kids[0])}, {self.expr(n.kids[1])})"

    def e_boolCst(self, n):
        return ".true." if n.kids[0] else ".false."

    def e_stringCst(self, n):
        return "'" + n.kids[0].replace("'", "''") + "'"

    def e_star(self, n):
        return "*"

    def e_arrayAccess(self, n):
        return f"{self.expr(n.kids[0])}({self.args(n.kids[1])})"

    def e_arrayTriplet(self, n):
        lo, hi, stride = ("" if k is None else self.expr(k) for k in n.kids)
        return f"{lo}:{hi}" + (f":{stride}" if stride else "")

    def e_fieldAccess(self, n):
        return f"{self.expr(n.kids[0])}%{n.kids[1]}"

    def e_call(self, n):
        # a call the reader resolved to a specific procedure is written with its generic name,
        # which stays accessible where the specific may be PRIVATE
        name = n.kids[0] if n.ann is EMPTY_ANN else n.ann.get('generic', n.kids[0])
        return f"{name}({self.args(n.kids[1])})"

    def e_intrinsic(self, n):
        return f"{n.kids[0]}({self.args(n.kids[1])})"   # no generic name: the reader resolves only calls

    def e_namedArg(self, n):
        return f"{n.kids[0]}={self.expr(n.kids[1])}"

    def e_arrayConstructor(self, n):
        return f"(/ {self.args(n.kids[0])} /)"

    def e_impliedDo(self, n):
        items, var, lo, hi, step = n.kids
        control = self.loop_control(var, lo, hi, step, ", ")
        return f"({self.args(items)}, {control})" if items else f"({control})"

    def e_dataRepeat(self, n):
        return f"{self.expr(n.kids[0])}*{self.expr(n.kids[1])}"

    def e_caseRange(self, n):
        lo, hi = ("" if k is None else self.expr(k) for k in n.kids)
        return f"{lo}:{hi}"

    def loop_control(self, var, lo, hi, step, sep: str) -> str:
        """`i = lo, hi, step` (DO, implied DO: sep ', ') or `i = lo:hi:step` (FORALL: sep ':')."""
        bounds = [self.expr(e) for e in (lo, hi, step) if e is not None]
        return f"{self.expr(var)} = {sep.join(bounds)}"

    # --- pieces of declarations ----------------------------------------------------------
    def dim(self, d: Node) -> str:
        if d.op != "dim":  # allocate may give plain extents
            return self.expr(d)
        lo, hi = d.kids
        hi_text = ":" if hi is None else self.expr(hi)
        if lo is None:
            return hi_text
        return f"{self.expr(lo)}:" + ("" if hi is None else hi_text)

    def dims(self, dims) -> str:
        return ", ".join(self.dim(d) for d in dims)

    def type_spec(self, t: Node) -> str:
        if t.op == "typeRef":
            return f"type({t.kids[0]})"
        if t.op != "type" or t.kids[0] == "void":
            raise unsupported(t, f"Fortran has no type for {t!r}", self.filename)
        base, kind, length = t.kids
        if base == "character":
            parts = ([] if length is None else [f"len={self.expr(length)}"]) + \
                    ([] if kind in (None, 1) else [f"kind={kind}"])
            return "character" + (f"({', '.join(parts)})" if parts else "")
        return base if kind is None else f"{base}({kind})"


def _break_point(text: str, limit: int) -> tuple[int | None, bool]:
    """Where to break `text` within `limit` columns: just after the last blank or comma outside
    character strings (None if there is none), and whether column `limit` is inside a string."""
    quote, best = None, None
    for i, ch in enumerate(text[:limit]):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch in " ," and i > 0:
            best = i + 1
    return best, quote is not None


class FortranWriter(BlockWriter):
    LANGUAGE = "Fortran"

    def __init__(self, form: str, filename: str):
        super().__init__(Lines("   "), filename)
        self.fixed = form == "fixed"
        self.x = FortranExpr(filename)

    # --- physical lines ---------------------------------------------------------------
    def line(self, text: str) -> None:
        """One statement, with the pending label, continued over several lines if too long."""
        label = self.take_label()
        indent = self.lines.indent
        if self.fixed:
            indent = indent[:FIXED_MAX_INDENT]
            first, cont, width = f"{label or '':<5} {indent}", f"     &{indent}   ", FIXED_WIDTH
        else:
            first, cont, width = indent + (f"{label} " if label else ""), indent + "      ", FREE_WIDTH
        out, prefix, rest = self.lines.out, first, text
        while len(prefix) + len(rest) > width:
            room = width - len(prefix) - (0 if self.fixed else 2)
            cut, _ = _break_point(rest, room)
            if cut is not None and cut < len(rest):
                out.append(prefix + rest[:cut].rstrip() + ("" if self.fixed else " &"))
                prefix, rest = cont, rest[cut:].lstrip()
            elif self.fixed:
                # Cut exactly at the last column: blanks would enter a split string.
                room = width - len(prefix)
                out.append(prefix + rest[:room])
                prefix, rest = "     &", rest[room:]
            else:
                # Free form continues a split token or string right after a leading '&'.
                out.append(prefix + rest[:room + 1] + "&")
                prefix, rest = cont + "&", rest[room + 1:]
        out.append(prefix + rest)

    def comment_line(self, marker: str, text: str) -> None:
        for part in text.split("\n"):
            body = f"{marker} {part}" if part else marker
            self.lines.out.append(("C" + body[1:]) if self.fixed else self.lines.indent + body)

    def directive(self, text: str) -> None:
        self.comment_line("!$AD", text)

    def emit_comment(self, n):
        self.comment_line("!", n.kids[0])

    # --- program units ------------------------------------------------------------------
    def emit_file(self, n):
        self.units(n.kids)

    def emit_procedure(self, n):
        name, kind, params, result, typ, attrs, decls, body, contains = n.kids
        if kind == "program":
            header = f"program {name}"
        else:
            prefix = list(attrs) + ([self.x.type_spec(typ)] if typ is not None else [])
            header = " ".join(prefix + [f"{kind} {name}({', '.join(params)})"])
            if result and result != name:
                header += f" result({result})"
        self.line(header)
        with self.lines.indented():
            self.emit_all(decls)
            if body is not None:
                self.emit_all(body.kids)
        self.contains(contains)
        self.line(f"end {kind} {name}")

    def emit_module(self, n):
        name, decls, contains = n.kids
        self.line(f"module {name}")
        self.body_of(decls)
        self.contains(contains)
        self.line(f"end module {name}")

    def body_of(self, nodes) -> None:
        with self.lines.indented():
            self.emit_all(nodes)

    def contains(self, units) -> None:
        if units:
            self.line("contains")
            with self.lines.indented():
                self.units(units)

    # --- declarations -------------------------------------------------------------------
    def declaration(self, n: Node) -> str:
        typ, attrs, declarators = n.kids
        names = self.declarators(declarators, pointer="pointer" in attrs)
        return ", ".join((self.x.type_spec(typ),) + tuple(attrs)) + " :: " + names

    def declarators(self, declarators, pointer=False) -> str:
        texts = []
        for d in declarators:
            name, dims, init, _ = d.kids
            text = name + (f"({self.x.dims(dims)})" if dims else "")
            if init is not None:
                text += (" => " if pointer else " = ") + self.x.expr(init)
            texts.append(text)
        return ", ".join(texts)

    def emit_varDecl(self, n):
        self.line(self.declaration(n))

    def emit_typeDef(self, n):
        name, fields, _style = n.kids
        self.line(f"type {name}")
        self.body_of(fields)
        self.line(f"end type {name}")

    def emit_common(self, n):
        self.line(f"common /{n.kids[0]}/ {self.x.args(n.kids[1])}")

    def emit_equivalence(self, n):
        self.line("equivalence " + ", ".join(f"({self.x.args(g)})" for g in n.kids[0]))

    def emit_use(self, n):
        module, only, renames = n.kids[0], n.kids[1], n.kids[2:]
        remote = {r.kids[0]: r.kids[1] for r in renames}

        def item(local):
            return f"{local} => {remote[local]}" if local in remote else local

        if only is not None:
            self.line(f"use {module}, only: {', '.join(item(name) for name in only)}")
        else:
            self.line(", ".join([f"use {module}"] + [item(r.kids[0]) for r in renames]))

    def emit_data(self, n):
        objects, values = n.kids
        self.line(f"data {self.x.args(objects)} / {self.x.args(values)} /")

    def emit_interface(self, n):
        name, names, procs = n.kids
        self.line("interface" + (f" {name}" if name else ""))
        with self.lines.indented():
            if names:
                self.line(f"module procedure {', '.join(names)}")
            self.units(procs)
        self.line("end interface")

    def emit_implicit(self, n):
        self.line(f"implicit {n.kids[0]}")

    def emit_attrDecl(self, n):
        attr, declarators = n.kids
        names = self.declarators(declarators)
        if attr == "parameter":
            self.line(f"parameter ({names})")
        elif attr == "dimension":
            self.line(f"dimension {names}")
        else:
            self.line(f"{attr} :: {names}" if names else attr)

    # --- statements -----------------------------------------------------------------------
    def emit_block(self, n):
        self.emit_all(n.kids)

    def emit_assign(self, n):
        self.line(f"{self.x.expr(n.kids[0])} = {self.x.expr(n.kids[1])}")

    def emit_pointerAssign(self, n):
        self.line(f"{self.x.expr(n.kids[0])} => {self.x.expr(n.kids[1])}")

    def emit_if(self, n):
        self.line(f"if ({self.x.expr(n.kids[0])}) then")
        while True:
            self.body_of(n.kids[1].kids)
            els = n.kids[2]
            inner = else_if(els)
            if inner is not None:
                n = inner
                self.line(f"else if ({self.x.expr(n.kids[0])}) then")
                continue
            if els is not None:
                self.line("else")
                self.body_of(els.kids)
            break
        self.line("end if")

    def emit_do(self, n):
        var, lo, hi, step, body = n.kids
        if n.ann.get("vectorize"):  # independent iterations (F_DV's directions): gfortran's own hint
            self.comment_line("!GCC$", "vector")
        last = body.kids[-1] if body.kids else None
        if last is not None and last.op == "nop" and last.ann.get("label") is not None:
            # DO 10 ... 10 CONTINUE as written: the label is used (gfortran -Wall: no unused label)
            self.line(f"do {last.ann['label']} {self.x.loop_control(var, lo, hi, step, ', ')}")
            self.body_of(body.kids)
            return
        self.line(f"do {self.x.loop_control(var, lo, hi, step, ', ')}")
        self.body_of(body.kids)
        self.line("end do")

    def emit_switch(self, n):
        selector, cases, fall_through = n.kids
        if fall_through:
            raise unsupported(n, "a C switch (with fall-through) has no Fortran form", self.filename)
        self.line(f"select case ({self.x.expr(selector)})")
        for case in cases:
            values, body = case.kids
            self.line(f"case ({self.x.args(values)})" if values else "case default")
            self.body_of(body.kids)
        self.line("end select")

    def emit_where(self, n):
        self.line(f"where ({self.x.expr(n.kids[0])})")
        while True:
            self.body_of(n.kids[1].kids)
            els = n.kids[2]
            inner = alone_in(els, "where")
            if inner is not None:  # ELSEWHERE (mask2): a where alone in the else block
                n = inner
                self.line(f"elsewhere ({self.x.expr(n.kids[0])})")
                continue
            if els is not None:
                self.line("elsewhere")
                self.body_of(els.kids)
            break
        self.line("end where")

    def emit_forall(self, n):
        ranges, mask, body = n.kids
        controls = [self.x.loop_control(*r.kids[1:], ":") for r in ranges]
        if mask is not None:
            controls.append(self.x.expr(mask))
        self.line(f"forall ({', '.join(controls)})")
        self.body_of(body.kids)
        self.line("end forall")

    def emit_while(self, n):
        cond, body = n.kids
        forever = cond.op == "boolCst" and cond.kids[0] is True
        self.line("do" if forever else f"do while ({self.x.expr(cond)})")
        self.body_of(body.kids)
        self.line("end do")

    def emit_goto(self, n):
        self.line(f"go to {n.kids[0]}")

    def emit_computedGoto(self, n):
        labels, index = n.kids
        self.line(f"go to ({', '.join(labels)}), {self.x.expr(index)}")

    def emit_arithmeticIf(self, n):
        value, *labels = n.kids
        self.line(f"if ({self.x.expr(value)}) {', '.join(labels)}")

    def emit_return(self, n):
        self.line("return" if n.kids[0] is None else f"return {self.x.expr(n.kids[0])}")

    def emit_exit(self, n):
        self.line("exit")

    def emit_cycle(self, n):
        self.line("cycle")

    def emit_nop(self, n):
        self.line("continue")

    def emit_stop(self, n):
        self.line("stop" if n.kids[0] is None else f"stop {self.x.expr(n.kids[0])}")

    def emit_allocate(self, n):
        target, dims, typ = n.kids
        text = self.x.expr(target) + (f"({self.x.dims(dims)})" if dims else "")
        if typ is not None:
            text = f"{self.x.type_spec(typ)} :: {text}"
        self.line(f"allocate({text})")

    def emit_deallocate(self, n):
        self.line(f"deallocate({self.x.expr(n.kids[0])})")

    def emit_io(self, n):
        kind, control, items = n.kids
        if kind == "print":
            self.line(", ".join([f"print {control}"] + [self.x.expr(i) for i in items]))
        elif kind == "format":
            self.line(f"format({control})")
        else:
            self.line(f"{kind}({control}) {self.x.args(items)}".rstrip())

    def emit_call(self, n):
        self.line(f"call {self.x.expr(n)}")

    emit_intrinsic = emit_call


def unparse_fortran(tree: Node, form: str = "free") -> str:
    """Fortran source of an IL `file` (or a single procedure/module) node."""
    tree = as_file(tree)
    writer = FortranWriter(form, tree.ann.get("filename", "<il>"))
    writer.emit(tree)
    return writer.lines.text()
