"""What the Fortran and C back ends share: the line writer, the precedence-driven
expression printer, and small helpers about literals, errors and file layout.

Each language subclasses `ExprPrinter` with its operator table; the rule deciding where
parentheses go lives here once, so that the printed text re-parses to the same tree.
"""
from __future__ import annotations

from contextlib import contextmanager

from ..engine.errors import UnsupportedError
from ..engine.il import EMPTY_ANN, Node, mk

ATOM = 100  # precedence of literals, names, calls: never parenthesised


def unsupported(node: Node, what: str, filename: str = "<il>") -> UnsupportedError:
    """The error a back end raises for an IL construct its language cannot express."""
    return UnsupportedError(what, filename, node.line if isinstance(node, Node) else None)


class Lines:
    """Output text as a list of lines (joined once at the end) with an indentation level."""

    def __init__(self, indent_unit: str):
        self.unit = indent_unit
        self.level = 0
        self.out: list[str] = []

    @property
    def indent(self) -> str:
        return self.unit * self.level

    def add(self, text: str) -> None:
        self.out.append(self.indent + text if text else "")

    def blank(self) -> None:
        if self.out and self.out[-1] != "":
            self.out.append("")

    @contextmanager
    def indented(self):
        self.level += 1
        try:
            yield
        finally:
            self.level -= 1

    def text(self) -> str:
        while self.out and self.out[-1] == "":
            self.out.pop()
        return "\n".join(self.out) + "\n"


def as_file(tree: Node) -> Node:
    """Back ends accept a `file` or a single unit (procedure, module)."""
    return tree if tree.op == "file" else mk("file", tree)


def blank_between(prev: Node | None, cur: Node) -> bool:
    """Units are separated by a blank line, except after a comment (it belongs to what follows)
    and between consecutive declarations."""
    if prev is None or prev.op == "comment":
        return False
    return prev.op in ("procedure", "module") or cur.op in ("procedure", "module")


def alone_in(else_block: Node | None, op: str) -> Node | None:
    """The statement of an else block that holds exactly one plain (unlabelled, without
    directives) `op` statement: an `if` prints as ELSE IF, a `where` as ELSEWHERE (mask)."""
    if else_block is None or len(else_block.kids) != 1:
        return None
    inner = else_block.kids[0]
    if inner.op != op or inner.ann.get("label") or inner.ann.get("directives"):
        return None
    return inner


def else_if(else_block: Node | None) -> Node | None:
    """The `if` of an else block that holds exactly one plain `if` (printed as ELSE IF)."""
    return alone_in(else_block, "if")


def real_parts(text: str) -> tuple[str, str | None]:
    """Split a real literal's text into mantissa and exponent ('2.0e-3' -> ('2.0', '-3')); a
    mantissa without exponent gets a '.' so that it cannot read as an integer ('1' -> '1.0')."""
    t = text.lower().replace("d", "e")
    if "e" in t:
        mant, exp = t.split("e", 1)
        return mant, exp
    return (t if "." in t else t + ".0"), None


class ExprPrinter:
    """Prints expressions with the fewest parentheses that keep the tree shape.

    Subclasses give BINARY {op: (precedence, assoc, symbol)} with assoc 'left', 'right' or
    'none' (the symbol carries its own spacing, e.g. ' + ' or '*'), UNARY {op: (precedence, symbol)}, and a method `e_<op>(node)` for every other
    operator, returning the text (an atom) or (text, precedence).
    """

    BINARY: dict[str, tuple[int, str, str]] = {}
    UNARY: dict[str, tuple[int, str]] = {}
    UNARY_CHAINS = False  # may a prefix operator apply to another one without parentheses?

    def __init__(self, filename: str = "<il>"):
        self.filename = filename
        self._forms: dict = {}   # operator -> its e_ method (None: none)

    def expr(self, node: Node) -> str:
        return self.render(node)[0]

    def render(self, node: Node) -> tuple[str, int]:
        method = self._forms.get(node.op)
        if method is None:
            method = self._forms[node.op] = self._form_of(node)
        out = method(node)
        return out if type(out) is tuple else (out, ATOM)

    def _form_of(self, node: Node):
        """The method printing an operator, looked up once per operator (the table of
        `render`): binary, prefix, or its e_ method; C's `address` first sees whether it
        is a pointer sum."""
        op = node.op
        if op == "address":
            return self._maybe_pointer_sum(self.unary if op in self.UNARY else getattr(self, "e_address", None))
        if op in self.BINARY:
            return self.binary
        if op in self.UNARY:
            return self.unary
        method = getattr(self, "e_" + op, None)
        if method is None:
            raise self._no_form(node)
        return method

    def _no_form(self, node: Node):
        return unsupported(node, f"{self.LANGUAGE} has no expression form for IL operator '{node.op}'",
                           self.filename)

    def _maybe_pointer_sum(self, form):
        def address(node):
            if node.ann.get("pointer_sum"):  # C `p + k`, read as &p[k]
                base, (index,) = node.kids[0].kids
                return self.render(Node("add", (base, index)))
            if form is None:
                raise self._no_form(node)
            return form(node)
        return address

    def unary(self, node: Node) -> tuple[str, int]:
        prec, sym = self.UNARY[node.op]
        return self.prefixed(sym, prec, node.kids[0])

    def binary(self, node: Node) -> tuple[str, int]:
        # The left spine of a left-associative chain (a + b - c + ...) is walked in a loop:
        # long generated sums would otherwise recurse once per term.
        table = self.BINARY
        prec, assoc, _ = table[node.op]
        spine = [node]
        if assoc == "left":
            n = node.kids[0]
            while True:
                spec = table.get(n.op)
                if spec is None or spec[0] != prec or spec[1] != "left" or self.clarify(spine[-1].op, n):
                    break
                spine.append(n)
                n = n.kids[0]
        operand = self.operand
        parts = [operand(spine[-1], spine[-1].kids[0], prec, assoc != "left")]
        for parent in reversed(spine):
            _, parent_assoc, sym = table[parent.op]
            parts.append(sym)
            parts.append(operand(parent, parent.kids[1], prec, parent_assoc != "right"))
        return "".join(parts), prec

    def prefixed(self, sym: str, prec: int, child: Node) -> tuple[str, int]:
        """A prefix operator (sign, not, C cast...) applied to `child`. Chaining two prefix
        operators needs parentheses when the language forbids it or the symbols would fuse
        into another token (C `- -a` is not `--a`)."""
        text, cprec = self.render(child)
        if cprec < prec or (cprec == prec and (not self.UNARY_CHAINS or text[0] == sym[-1])):
            text = f"({text})"
        return sym + text, prec

    def operand(self, parent: Node, child: Node, prec: int, strict: bool) -> str:
        """Text of a binary operand; `strict` when an equal precedence needs parentheses
        (the side the operator does not associate to)."""
        text, cprec = self.render(child)
        if cprec < prec or (cprec == prec and strict) or self.clarify(parent.op, child):
            return f"({text})"
        return text

    def clarify(self, parent_op: str, child: Node) -> bool:
        """Extra parentheses a language's compilers ask for (not needed by the grammar)."""
        return False

    def args(self, nodes) -> str:
        return ", ".join([self.render(a)[0] for a in nodes])

    def negative_literal(self, text: str) -> tuple[str, int] | str:
        """A literal whose text has a sign binds like a unary minus."""
        if text.startswith("-"):
            return text, self.UNARY["neg"][0]
        return text

    LANGUAGE = "this language"


class BlockWriter:
    """Walks statements and declarations for a back end: `$AD` directives first, then the node's
    `emit_<op>` method. A statement label is kept pending and put on the node's first line."""

    LANGUAGE = "this language"

    def __init__(self, lines: Lines, filename: str):
        self.lines = lines
        self.filename = filename
        self.label: str | None = None
        self._emitters: dict = {}   # operator -> its emit_ method (None: none)

    def emit(self, node: Node) -> None:
        ann = node.ann
        plain = ann is EMPTY_ANN   # most generated statements: no pyrsistent look-up
        for directive in () if plain else ann.get("directives", ()):
            self.directive(directive)
        method = self._emitters.get(node.op)
        if method is None:
            method = self._emitters[node.op] = getattr(self, "emit_" + node.op, None)
        if method is None:
            raise unsupported(node, f"{self.LANGUAGE} back end cannot print IL operator '{node.op}' here",
                              self.filename)
        self.label = None if plain else ann.get("label")
        method(node)
        self.label = None

    def emit_all(self, nodes) -> None:
        for node in nodes:
            self.emit(node)

    def take_label(self) -> str | None:
        label, self.label = self.label, None
        return label

    def units(self, units) -> None:
        prev = None
        for unit in units:
            if blank_between(prev, unit):
                self.lines.blank()
            self.emit(unit)
            prev = unit

    def directive(self, text: str) -> None:
        raise NotImplementedError
