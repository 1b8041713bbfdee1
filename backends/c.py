"""IL -> C source (and CUDA C when cuda=True)."""
from __future__ import annotations

from ..engine.il import Node, mk, walk
from ..engine.intrinsics import C_INTRINSICS
from .layout import BlockWriter, ExprPrinter, Lines, as_file, else_if, real_parts, unsupported

POSTFIX = 15  # a[i], f(x), s.f, p->f
UNARY = 14
CONDITIONAL = 3
COMPARISONS = frozenset(("eq", "ne", "lt", "le", "gt", "ge"))
# gcc -Wall (-Wparentheses) wants parentheses around other operators inside bit operations and
# shifts, around && inside ||, and around comparisons (or a !) inside comparisons.
BIT_OPS = frozenset(("bitOr", "bitXor", "bitAnd", "lShift", "rShift"))

# Inverse of the C front end's type mapping: (base, kind in bytes) -> C type.
C_TYPES = {
    ("integer", 4): "int", ("integer", None): "int", ("integer", 8): "long", ("integer", 2): "short",
    ("integer", 1): "signed char", ("character", 1): "char", ("character", None): "char",
    ("real", 4): "float", ("real", 8): "double", ("real", None): "double", ("real", 16): "long double",
    ("logical", 1): "_Bool", ("logical", 4): "int", ("logical", None): "int",
    ("complex", 4): "float _Complex", ("complex", 8): "double _Complex", ("void", None): "void",
}

# Headers declaring the library functions the IL calls as intrinsics.
_NOT_MATH = {"abs", "labs", "malloc", "free", "printf", "atomicAdd", "__syncthreads"}
HEADERS = {"stdio.h": {"printf"}, "stdlib.h": {"abs", "labs", "malloc", "free"},
           "math.h": set(C_INTRINSICS) - _NOT_MATH}

# CUDA is compiled as C++: C's spellings that C++ lacks (None: no C++ spelling without a header).
CUDA_TYPES = {("logical", 1): "bool", ("complex", 4): None, ("complex", 8): None}
CUDA_WORDS = {"restrict": "__restrict__"}

_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r"}


def _pointer_levels(ptr: int, quals, words: dict) -> str:
    """The declarator's own stars, each followed by the qualifiers of its level (attrs "*const",
    "**restrict", ...)."""
    out = ""
    for level in range(1, ptr + 1):
        level_words = [q[level:] for q in quals if len(q) > level and q[:level] == "*" * level and q[level] != "*"]
        out += "*" + "".join(words.get(w, w) + " " for w in level_words)
    return out


def c_label(label: str) -> str:
    """C labels are identifiers: a Fortran numeric label 10 becomes L10."""
    return label if label[:1].isalpha() or label[:1] == "_" else f"L{label}"


class CExpr(ExprPrinter):
    LANGUAGE = "C"
    BINARY = {
        "or": (4, "left", " || "), "and": (5, "left", " && "),
        "bitOr": (6, "left", " | "), "bitXor": (7, "left", " ^ "), "bitAnd": (8, "left", " & "),
        "eq": (9, "left", " == "), "ne": (9, "left", " != "),
        "lt": (10, "left", " < "), "le": (10, "left", " <= "), "gt": (10, "left", " > "), "ge": (10, "left", " >= "),
        "lShift": (11, "left", " << "), "rShift": (11, "left", " >> "),
        "add": (12, "left", " + "), "sub": (12, "left", " - "),
        "mul": (13, "left", " * "), "div": (13, "left", " / "), "mod": (13, "left", " % "),
    }
    UNARY = {"neg": (UNARY, "-"), "pos": (UNARY, "+"), "not": (UNARY, "!"), "bitNot": (UNARY, "~"),
             "deref": (UNARY, "*"), "address": (UNARY, "&")}
    UNARY_CHAINS = True

    def __init__(self, filename: str, tags: dict, cuda: bool = False):
        super().__init__(filename)
        self.tags = tags  # struct / union / enum tag names -> their keyword: referenced as `struct name`
        self.words = CUDA_WORDS if cuda else {}  # C spellings -> CUDA's
        self.types = {**C_TYPES, **CUDA_TYPES} if cuda else C_TYPES
        self.language = "CUDA" if cuda else "C"

    def clarify(self, parent_op, child):
        if parent_op in BIT_OPS:
            return child.op in self.BINARY and child.op != parent_op
        if parent_op in COMPARISONS:
            return child.op in COMPARISONS or child.op == "not"
        return parent_op == "or" and child.op == "and"

    # --- types ------------------------------------------------------------------------------
    def type_parts(self, t: Node) -> tuple[str, int]:
        """A type as (base text, number of pointer stars): stars go with the declarator."""
        if t.op == "pointerType":
            base, stars = self.type_parts(t.kids[0])
            return base, stars + 1
        if t.op == "typeRef":
            name = t.kids[0]
            return (f"{self.tags[name]} {name}" if name in self.tags else name), 0
        base, kind, _ = t.kids
        text = self.types.get((base, kind))
        if text is None:
            raise unsupported(t, f"{self.language} has no type for {base} of kind {kind}", self.filename)
        return text, 0

    def type_name(self, t: Node) -> str:
        pointers, inner = 0, t
        while inner.op == "pointerType":
            pointers, inner = pointers + 1, inner.kids[0]
        if inner.op == "arrayType":  # double (*)[n], double[n]
            stars = f" ({'*' * pointers})" if pointers else ""
            return self.type_name(inner.kids[0]) + stars + self.sizes(inner)
        base, stars = self.type_parts(t)
        return base + "*" * stars

    def sizes(self, array_type: Node) -> str:
        return "".join(f"[{self.expr(n)}]" for n in array_type.kids[1])

    # --- expressions -------------------------------------------------------------------------
    def postfix_base(self, node: Node) -> str:
        text, prec = self.render(node)
        return text if prec >= POSTFIX else f"({text})"

    def e_ident(self, n):
        return n.kids[0]

    def e_intCst(self, n):
        value, kind = n.kids
        return self.negative_literal(f"{value}L" if kind == 8 else str(value))

    def e_realCst(self, n):
        text, kind = n.kids
        mant, exp = real_parts(text)
        text = mant if exp is None else f"{mant}e{exp}"
        return self.negative_literal(text + {4: "f", 16: "L"}.get(kind, ""))

    def e_boolCst(self, n):
        if self.language == "CUDA":  # C++'s own words
            return "true" if n.kids[0] else "false"
        return "1" if n.kids[0] else "0"

    def e_stringCst(self, n):
        out = []
        for ch in n.kids[0]:
            if ch in _ESCAPES:
                out.append(_ESCAPES[ch])
            elif ord(ch) < 32 or ord(ch) == 127:
                out.append(f"\\{ord(ch):03o}")
            else:
                out.append(ch)
        return '"' + "".join(out) + '"'

    def e_arrayAccess(self, n):
        base, indices = n.kids
        return self.postfix_base(base) + "".join(f"[{self.expr(i)}]" for i in indices)

    def e_fieldAccess(self, n):
        base, field = n.kids
        if base.op == "deref":
            return f"{self.postfix_base(base.kids[0])}->{field}"
        return f"{self.postfix_base(base)}.{field}"

    def e_call(self, n):
        return f"{n.kids[0]}({self.args(n.kids[1])})"

    e_intrinsic = e_call

    def e_arrayConstructor(self, n):
        return "{" + self.args(n.kids[0]) + "}"

    def e_cast(self, n):
        return self.prefixed(f"({self.type_name(n.kids[0])})", UNARY, n.kids[1])

    def e_sizeof(self, n):
        arg = n.kids[0]
        from_type = arg.op in ("type", "typeRef", "pointerType", "arrayType")
        return f"sizeof({self.type_name(arg) if from_type else self.expr(arg)})", UNARY

    def e_ifExpr(self, n):
        cond, then, other = (self.render(k) for k in n.kids)
        parts = [text if prec > CONDITIONAL else f"({text})" for text, prec in (cond, then)]
        els = other[0] if other[1] >= CONDITIONAL else f"({other[0]})"
        return f"{parts[0]} ? {parts[1]} : {els}", CONDITIONAL


class CWriter(BlockWriter):
    LANGUAGE = "C"

    def __init__(self, filename: str, tags: dict, cuda: bool):
        super().__init__(Lines("    "), filename)
        self.x = CExpr(filename, tags, cuda)
        self.cuda = cuda

    def line(self, text: str) -> None:
        label = self.take_label()
        if label:
            # a label is outdented one level, like a case label
            self.lines.out.append(self.lines.unit * max(self.lines.level - 1, 0) + f"{c_label(label)}:")
        self.lines.add(text)

    def directive(self, text: str) -> None:
        self.lines.add(f"/* $AD {text} */")

    def emit_comment(self, n):
        text = n.kids[0]
        if "*/" in text:
            for part in text.split("\n"):
                self.lines.add(f"// {part}".rstrip())
        else:
            # lines after the first are kept verbatim: the front end keeps them so
            self.lines.add(f"/* {text} */")

    def braced(self, head: str, nodes, tail: str = "}") -> None:
        self.line(f"{head} {{" if head else "{")
        with self.lines.indented():
            self.emit_all(nodes)
        self.lines.add(tail)

    # --- file and functions ------------------------------------------------------------------
    def emit_file(self, n):
        includes = list(n.ann.get("includes", ()))
        includes += [f"#include <{h}>" for h in self.missing_headers(n, includes)]
        for line in includes:
            self.lines.add(line)
        self.lines.blank()
        self.units(n.kids)

    @staticmethod
    def missing_headers(tree: Node, includes) -> list[str]:
        called = {k.kids[0] for k in walk(tree) if k.op == "intrinsic"}
        if any(k.op in ("allocate", "deallocate") for k in walk(tree)):
            called |= {"malloc"}
        return [h for h, names in HEADERS.items()
                if called & names and not any(h in line for line in includes)]

    def emit_procedure(self, n):
        name, kind, params, _result, typ, attrs, decls, body, contains = n.kids
        if kind == "program" or contains:
            raise unsupported(n, f"C has no {'main program' if kind == 'program' else 'internal procedures'}",
                              self.filename)
        by_name = {d.declarators[0].name: d for d in decls if d.op == "varDecl" and len(d.declarators) == 1}
        missing = [p for p in params if p not in by_name]
        if missing:
            raise unsupported(n, f"parameter {missing[0]} of {name} has no declaration", self.filename)
        signature = ", ".join(self.declaration(by_name[p]) for p in params) or "void"
        param_decls = {id(by_name[p]) for p in params}
        base, stars = self.x.type_parts(typ if typ is not None else mk("type", "void", None, None))
        head = " ".join(self.spelled(attrs) + (base,)) + " " + "*" * stars + f"{name}({signature})"
        if body is None:
            self.line(head + ";")
            return
        self.braced(head, [d for d in decls if id(d) not in param_decls] + list(body.kids))

    # --- declarations --------------------------------------------------------------------------
    def declaration(self, n: Node) -> str:
        typ, attrs, declarators = n.kids
        rows = typ if typ.op == "arrayType" else None  # each declarator points to rows of it
        base, stars = self.x.type_parts(typ.kids[0] if rows else typ)
        words = self.spelled(a for a in attrs if not a.startswith("*"))
        quals = [a for a in attrs if a.startswith("*")]
        return " ".join(words + (base,)) + " " + ", ".join(self.declarator(d, stars, quals, rows)
                                                           for d in declarators)

    def declarator(self, d: Node, stars: int, quals=(), rows: Node | None = None) -> str:
        name, dims, init, ptr = d.kids
        text = _pointer_levels(ptr, quals, self.x.words) + name + "".join(self.dim(dim) for dim in dims or ())
        if rows is not None:  # double (*pd)[n]
            text = f"({text}){self.x.sizes(rows)}"
        text = "*" * stars + text
        return text if init is None else f"{text} = {self.x.expr(init)}"

    def spelled(self, words) -> tuple:
        return tuple(self.x.words.get(w, w) for w in words)

    def dim(self, d: Node) -> str:
        lo, hi = d.kids
        if lo is not None:
            raise unsupported(d, "C arrays cannot have a lower bound", self.filename)
        return "[]" if hi is None else f"[{self.x.expr(hi)}]"

    def emit_varDecl(self, n):
        if self.label:  # C99 cannot label a declaration: label an empty statement before it
            self.line(";")
        self.line(self.declaration(n) + ";")

    def emit_typeDef(self, n):
        name, fields, style = n.kids
        if style in ("struct", "union"):
            self.braced(f"{style} {name}", fields, "};")
        elif style in ("typedef", "typedefUnion"):
            self.braced("typedef union" if style == "typedefUnion" else "typedef struct", fields, f"}} {name};")
        else:
            raise unsupported(n, f"C has no {style} type definition", self.filename)

    def enum_items(self, items) -> str:
        return ", ".join(e.name if e.value is None else f"{e.name} = {self.x.expr(e.value)}" for e in items)

    def emit_enumDef(self, n):
        name, items = n.kids
        self.line(f"enum {name + ' ' if name else ''}{{{self.enum_items(items)}}};")

    def emit_typedefEnum(self, n):
        name, items = n.kids
        self.line(f"typedef enum {{{self.enum_items(items)}}} {name};")

    def emit_typeAlias(self, n):
        name, typ = n.kids
        base, stars = self.x.type_parts(typ)
        self.line(f"typedef {base} {'*' * stars}{name};")

    # --- statements ------------------------------------------------------------------------------
    def emit_block(self, n):
        self.braced("", n.kids)

    def assignment(self, n: Node, increment: bool = False) -> str:
        lhs, rhs = n.kids
        if increment and rhs.op == "add" and rhs.kids[0] == lhs and rhs.kids[1] == mk("intCst", 1, None):
            return f"{self.x.expr(lhs)}++"  # the front end reads i++ as i = i + 1
        return f"{self.x.expr(lhs)} = {self.x.expr(rhs)}"

    def emit_assign(self, n):
        self.line(self.assignment(n) + ";")

    def for_part(self, n: Node | None, increment: bool = False) -> str:
        if n is None:
            return ""
        if n.op == "varDecl":
            return self.declaration(n)
        if n.op == "assign":
            return self.assignment(n, increment)
        if n.op in ("call", "intrinsic"):
            return self.x.expr(n)
        if n.op == "block" and all(k.op in ("assign", "call", "intrinsic") for k in n.kids):
            return ", ".join(self.for_part(k, increment) for k in n.kids)
        raise unsupported(n, f"C for-loop header cannot hold '{n.op}'", self.filename)

    def emit_for(self, n):
        init, cond, step, body = n.kids
        cond_text = "" if cond is None else " " + self.x.expr(cond)
        step_text = "" if step is None else " " + self.for_part(step, increment=True)
        self.braced(f"for ({self.for_part(init)};{cond_text};{step_text})", body.kids)

    def emit_if(self, n):
        self.line(f"if ({self.x.expr(n.kids[0])}) {{")
        while True:
            with self.lines.indented():
                self.emit_all(n.kids[1].kids)
            els = n.kids[2]
            inner = else_if(els)
            if inner is not None:
                n = inner
                self.lines.add(f"}} else if ({self.x.expr(n.kids[0])}) {{")
                continue
            if els is not None:
                self.lines.add("} else {")
                with self.lines.indented():
                    self.emit_all(els.kids)
            break
        self.lines.add("}")

    def emit_while(self, n):
        self.braced(f"while ({self.x.expr(n.kids[0])})", n.kids[1].kids)

    def emit_doWhile(self, n):
        body, cond = n.kids
        self.braced("do", body.kids, f"}} while ({self.x.expr(cond)});")

    def emit_switch(self, n):
        selector, cases, fall_through = n.kids
        if not fall_through:
            raise unsupported(n, "C has no SELECT CASE without fall-through", self.filename)
        self.line(f"switch ({self.x.expr(selector)}) {{")
        with self.lines.indented():
            for case in cases:
                for value in case.values or (None,):
                    self.lines.add("default:" if value is None else f"case {self.x.expr(value)}:")
                with self.lines.indented():
                    self.emit_all(case.body.kids)
        self.lines.add("}")

    def emit_goto(self, n):
        self.line(f"goto {c_label(n.kids[0])};")

    def emit_computedGoto(self, n):
        """GO TO (l1, ..., ln), I: a switch with no default, so another I goes on."""
        labels, index = n.kids
        self.line(f"switch ({self.x.expr(index)}) {{")
        with self.lines.indented():
            for k, label in enumerate(labels, 1):
                self.lines.add(f"case {k}: goto {c_label(label)};")
        self.lines.add("}")

    def emit_arithmeticIf(self, n):
        """IF (e) l1, l2, l3: an if chain, which reads e twice (refused where that calls twice)."""
        value, negative, zero, positive = n.kids
        if any(k.op == "call" for k in walk(value)):
            raise unsupported(n, "an arithmetic IF on a function call has no C form here "
                                 "(the if chain would call it twice)", self.filename)
        nought = mk("intCst", 0, None)
        self.line(f"if ({self.x.expr(mk('lt', value, nought))}) goto {c_label(negative)}; "
                  f"else if ({self.x.expr(mk('eq', value, nought))}) goto {c_label(zero)}; "
                  f"else goto {c_label(positive)};")

    def emit_return(self, n):
        self.line("return;" if n.kids[0] is None else f"return {self.x.expr(n.kids[0])};")

    def emit_exit(self, n):
        self.line("break;")

    def emit_cycle(self, n):
        self.line("continue;")

    def emit_nop(self, n):
        self.line(";")

    def emit_allocate(self, n):
        target, dims, typ = n.kids
        if typ is None or len(dims) != 1:
            raise unsupported(n, "C allocation needs one element count and an element type", self.filename)
        if n.ann.get("zeroed"):  # a derivative block: zero until written
            call = mk("intrinsic", "calloc", (dims[0], mk("sizeof", typ)))
        else:
            call = mk("intrinsic", "malloc", (mk("mul", dims[0], mk("sizeof", typ)),))
        malloc = mk("cast", mk("pointerType", typ), call)
        self.emit_assign(mk("assign", target, malloc))

    def emit_deallocate(self, n):
        self.line(f"free({self.x.expr(n.kids[0])});")

    def emit_call(self, n):
        self.line(self.x.expr(n) + ";")

    emit_intrinsic = emit_call

    def emit_kernelLaunch(self, n):
        if not self.cuda:
            raise unsupported(n, "a CUDA kernel launch needs the cuda target", self.filename)
        name, grid, block, shared, args = n.kids
        config = self.x.args((grid, block) + (() if shared is None else (shared,)))
        self.line(f"{name}<<<{config}>>>({self.x.args(args)});")


def unparse_c(tree: Node, cuda: bool = False) -> str:
    """C (or CUDA C) source of an IL `file` (or a single procedure) node."""
    tree = as_file(tree)
    tags = {k.name: k.style for k in walk(tree) if k.op == "typeDef" and k.style in ("struct", "union")}
    tags.update((k.name, "enum") for k in walk(tree) if k.op == "enumDef" and k.name is not None)
    writer = CWriter(tree.ann.get("filename", "<il>"), tags, cuda)
    writer.emit(tree)
    return writer.lines.text()
