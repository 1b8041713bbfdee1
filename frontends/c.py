"""C front end: C source text -> IL `file` node.

The text goes through `gcc -E` with the pycparser fake libc headers, keeping line markers,
then pycparser. Line markers tell which top-level declarations come from the main file (the
others come from headers and are dropped) and give every node its original line.
pycparser drops comments, so a small lexer takes them (and the brace pairs that delimit
blocks) from the original text; they are put back as `comment` nodes, `$AD` comments
becoming the `directives` annotation of the statement that follows them.
The translation is one walk over the pycparser tree, dispatching on the node class name.
Side effects inside expressions (`++`, `--`, assignments, the comma operator) are hoisted into
statements around the statement holding them; frontends/c_sequencing.py decides when that keeps
C's meaning and refuses the rest (unspecified order of evaluation).
"""
from __future__ import annotations

import bisect
import os
import re
import subprocess
from dataclasses import dataclass

import pycparser_fake_libc
from pycparser import c_ast, c_parser

from ..engine.errors import SourceError, UnsupportedError
from ..engine.il import Node, mk, walk
from ..engine.intrinsics import C_INTRINSICS
from .c_sequencing import (INC_DEC_OPS, Hoisted, SequencingError, check_full_expression, guarded_loop_body,
                           with_after_effects)
from .cuda import BLOCK_LINKAGE, C_LINKAGE, DIM3, LAUNCH, CudaWords, call_kind, to_c
from .cuda import preprocessor_options as cuda_preprocessor_options

__all__ = ["parse_c"]

_MAIN = "<stdin>"  # the name gcc gives the main file when it reads standard input
_TRUE, _FALSE = "__adspec_true", "__adspec_false"  # stand-ins that survive stdbool's macros
_ALLOC_FUNCS = frozenset({"malloc", "calloc", "realloc"})


def parse_c(text: str, filename: str = "<string>", cuda: bool | None = None) -> Node:
    """Parse C source text (CUDA C when `cuda`, by default for a .cu file) to an IL `file`
    node. Raises SourceError on bad input."""
    if cuda is None:
        cuda = filename.lower().endswith(".cu")
    if not text.strip():
        raise SourceError("empty source file", filename, 1)
    scan = _SourceScan(text)
    cpp_input, cuda_words = text, None
    if scan.uses_stdbool or cuda:
        parts = scan.code_parts()
        if scan.uses_stdbool or cuda:  # CUDA is C++: bool, true and false are its own
            scan.bool_stand_ins(parts)
        if cuda:
            cuda_words = to_c(parts, scan.position, filename)
        cpp_input = scan.with_code(parts, cuda_words.blanked_literals if cuda else ())
    ast = _parse(_preprocess(cpp_input, filename, cuda), filename)
    translator = _Translator(filename, scan, ast, cuda_words)
    try:
        return translator.file()
    except RecursionError:
        raise UnsupportedError("statements or expressions nested too deeply", filename) from None
    finally:
        _break_cycle(translator)  # its dispatch tables hold bound methods


def _break_cycle(obj) -> None:
    """Drop the attributes of an object that refers to itself, so that what it holds (here the
    whole pycparser tree, or its 100,000 tokens) is freed now, not at the collector's next full
    pass: left for the collector, the next file read is 25% slower (fresh memory, no reuse)."""
    vars(obj).clear()


# ---------------------------------------------------------------------------------------
# Preprocessing and parsing
# ---------------------------------------------------------------------------------------
_GCC_ERROR = re.compile(r"^(.*?):(\d+):(?:\d+:)?\s*(?:fatal )?error:\s*(.*)$", re.M)
_PARSE_ERROR = re.compile(r"^(.*):(\d+):(\d+):\s*(.*)$", re.S)


def _where(file: str, filename: str) -> str:
    return filename if file == _MAIN else file


def _preprocess(text: str, filename: str, cuda: bool = False) -> str:
    cmd = ["gcc", "-E", "-nostdinc", "-x", "c", "-I", pycparser_fake_libc.directory]
    if cuda:
        cmd[5:5] = cuda_preprocessor_options()
    source_dir = os.path.dirname(filename)
    if source_dir and os.path.isdir(source_dir):
        cmd += ["-iquote", source_dir]  # `#include "local.h"` next to the source file
    cmd.append("-")
    try:
        proc = subprocess.run(cmd, input=text, capture_output=True, text=True, encoding="utf-8")
    except OSError as e:
        raise SourceError(f"cannot run the C preprocessor gcc: {e.strerror}", filename) from None
    if proc.returncode != 0:
        m = _GCC_ERROR.search(proc.stderr)
        if m is None:
            first = proc.stderr.strip().splitlines()[:1] or ["C preprocessor failed"]
            raise SourceError(first[0], filename)
        raise SourceError(m.group(3), _where(m.group(1), filename), int(m.group(2)))
    return proc.stdout


def _parse(preprocessed: str, filename: str) -> c_ast.FileAST:
    parser = c_parser.CParser()
    try:
        ast = parser.parse(preprocessed, _MAIN)
        _break_cycle(parser)  # it and its lexer refer to each other
        return ast
    except c_parser.ParseError as e:
        m = _PARSE_ERROR.match(str(e))
        if m is not None:
            file, line, message = m.group(1), int(m.group(2)), f"syntax error {m.group(4)}"
        else:
            file, line = _next_token_place(parser)
            message = "syntax error: " + str(e).split(": ", 1)[-1]
            if line is None:  # no token left: the input stops in the middle of a construct
                file, line, message = _MAIN, _last_line(preprocessed), message + " at the end of the file"
    except RecursionError:
        raise UnsupportedError("statements or expressions nested too deeply", filename,
                               _last_line(preprocessed)) from None
    except Exception as e:  # pycparser failing otherwise on odd input: still the input's fault
        file, line = _next_token_place(parser)
        message = f"cannot parse: {e or type(e).__name__}"
        if line is None:
            file, line = _MAIN, _last_line(preprocessed)
    raise SourceError(*_located(message, file, line, preprocessed, filename)) from None


def _located(message: str, file: str, line: int, preprocessed: str, filename: str) -> tuple:
    """(message, file, line) for an error the parser placed at (file, line): inside a system
    header it is the user's code before the #include that is wrong, so point there."""
    if file != _MAIN and os.path.abspath(file).startswith(os.path.abspath(pycparser_fake_libc.directory)):
        return f"{message} (reached inside a system header: look before this #include)", filename, \
            _main_line_before(preprocessed, file, line)
    return message, _where(file or _MAIN, filename), line


def _main_line_before(preprocessed: str, file: str, line: int) -> int:
    """The main-file line the preprocessor was at when it entered the header holding (file, line)."""
    current_file, current_line, last_main = _MAIN, 1, 1
    for text in preprocessed.splitlines():
        marker = _LINE_MARKER.match(text)
        if marker is not None:
            current_file, current_line = marker.group(2), int(marker.group(1))
            continue
        if current_file == file and current_line >= line:
            return last_main
        if current_file == _MAIN and text.strip():
            last_main = current_line
        current_line += 1
    return last_main


def _last_line(preprocessed: str) -> int:
    """The last line of the main file that the preprocessor kept (from its line markers)."""
    line, last, in_main = 1, 1, True
    for text in preprocessed.splitlines():
        marker = _LINE_MARKER.match(text)
        if marker is not None:
            line, in_main = int(marker.group(1)), marker.group(2) == _MAIN
        else:
            if in_main and text.strip():
                last = line
            line += 1
    return last


def _next_token_place(parser) -> tuple:
    """(file, line) of the token the parser stopped at: some pycparser errors only name the
    file. This reads parser internals, so any surprise just gives no line."""
    try:
        coord = parser._tok_coord(parser._peek())
        return coord.file, coord.line
    except Exception:
        return None, None


# ---------------------------------------------------------------------------------------
# Lexing the original text: comments, brace pairs, #include lines
# ---------------------------------------------------------------------------------------
_LINE_MARKER = re.compile(r'^# (\d+) "([^"]*)"')
_TOKENS = re.compile(r"""//[^\n]*|/\*.*?(?:\*/|\Z)|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|[{}]""", re.S)
_INCLUDE = re.compile(r"^[ \t]*#[ \t]*include\b.*$", re.M)
_BOOL_WORD = re.compile(r"\b(true|false)\b")


@dataclass
class _Comment:
    index: int        # rank in source order
    pos: tuple        # (line, column) of the comment start
    text: str
    after_block: bool = False  # released by a block it closed: goes after that block

    @property
    def line(self) -> int:
        return self.pos[0]

    @property
    def directive(self) -> str | None:
        return self.text[3:].strip() if self.text.startswith("$AD") else None


class _SourceScan:
    """What pycparser cannot tell: comments, `{`..`}` pairs and #include lines of the text."""

    def __init__(self, text: str):
        self.text = text
        self._newlines = [m.start() for m in re.finditer("\n", text)]
        self.includes = tuple(m.group(0).strip() for m in _INCLUDE.finditer(text))
        self.uses_stdbool = any("stdbool.h" in inc for inc in self.includes)
        self.comments: list[_Comment] = []
        self.brace_close: dict[tuple, tuple] = {}  # position of `{` -> position of its `}`
        self.opens_by_line: dict[int, list] = {}
        self._literal_spans = []  # (start, end) of comments and literals: not code
        open_stack = []
        for m in _TOKENS.finditer(text):
            tok = m.group(0)
            pos = self.position(m.start())
            if tok == "{":
                open_stack.append(pos)
                self.opens_by_line.setdefault(pos[0], []).append(pos)
            elif tok == "}":
                if open_stack:
                    self.brace_close[open_stack.pop()] = pos
            else:
                self._literal_spans.append((m.start(), m.end()))
                if tok[0] == "/":
                    body = tok[2:-2] if tok.startswith("/*") and tok.endswith("*/") and len(tok) >= 4 \
                        else tok[2:]
                    self.comments.append(_Comment(len(self.comments), pos, body.strip()))

    def position(self, offset: int) -> tuple:
        """(line, column), both 1-based like pycparser coordinates."""
        row = bisect.bisect_left(self._newlines, offset)
        start = self._newlines[row - 1] + 1 if row else 0
        return row + 1, offset - start + 1

    def block_end(self, line: int, column: int) -> tuple | None:
        """Position of the `}` closing the `{` at (line, column), if it can be found."""
        close = self.brace_close.get((line, column))
        if close is None:  # columns moved (macro expansion): trust a lone brace on the line
            opens = self.opens_by_line.get(line, ())
            if len(opens) == 1:
                close = self.brace_close.get(opens[0])
        return close

    def closing_line_end(self, close: tuple) -> tuple:
        """End of the comments a block owns: its `}` line up to the next `{` on that line
        (`} // done` is the block's; `} else { // why` belongs to the else block)."""
        later = [p for p in self.opens_by_line.get(close[0], ()) if p > close]
        return later[0] if later else (close[0] + 1, 0)

    def code_parts(self) -> list:
        """The text outside comments and literals, as [offset, text] pairs to rewrite."""
        parts, last = [], 0
        for start, end in self._literal_spans + [(len(self.text), len(self.text))]:
            parts.append([last, self.text[last:start]])
            last = end
        return parts

    def with_code(self, parts: list, blanked_literals=()) -> str:
        """The text with its code parts replaced by `parts`; comments and literals kept, but
        those starting at an offset of `blanked_literals`, written as spaces."""
        out = []
        for (_, code), (start, end) in zip(parts, self._literal_spans + [(len(self.text), len(self.text))]):
            literal = self.text[start:end]
            out += [code, " " * len(literal) if start in blanked_literals else literal]
        return "".join(out)

    @staticmethod
    def bool_stand_ins(parts: list) -> None:
        """Rename the code words true/false, so stdbool's macros miss them."""
        for part in parts:
            part[1] = _BOOL_WORD.sub(lambda m: _TRUE if m.group(1) == "true" else _FALSE, part[1])


class _CommentPool:
    """Comments waiting for a place. Inner blocks claim theirs first (the walk builds
    children before their parent); a block releases the comments after its last statement
    that sit on or after its closing line, for the enclosing level to place."""

    def __init__(self, comments: list[_Comment]):
        self._comments = comments
        self._starts = [c.pos for c in comments]
        self._taken = [False] * len(comments)

    def claim(self, start: tuple, end: tuple) -> list[_Comment]:
        lo = bisect.bisect_right(self._starts, start)
        hi = bisect.bisect_left(self._starts, end)
        out = [self._comments[i] for i in range(lo, hi) if not self._taken[i]]
        for c in out:
            self._taken[c.index] = True
        return out

    def release(self, comments: list[_Comment]) -> None:
        for c in comments:
            self._taken[c.index] = False
            c.after_block = True


def _place_comments(items: list, comments: list[_Comment], close: tuple | None):
    """Merge comments into a statement/unit list: each goes before the first item whose line
    is >= its own; a `$AD` comment becomes a directive of that item. Returns the merged
    list and the comments that belong after the block closed at position `close`: those
    past the `}`, and those after the last item on or after the closing line."""
    if not comments:
        return items, []
    close_line = close[0] if close is not None else None
    released = [c for c in comments if close is not None and c.pos > close]
    # A comment released by an inner block comes after the statement holding that block.
    ordered = sorted((c for c in comments if close is None or c.pos < close),
                     key=lambda c: (c.line + (0.5 if c.after_block else 0), c.pos))
    out, directives = [], {}
    i = 0
    for c in ordered:
        key = c.line + (0.5 if c.after_block else 0)
        while i < len(items) and items[i].line is not None and items[i].line < key:
            out.append(_with_directives(items[i], directives.pop(i, ())))
            i += 1
        if i == len(items) and close_line is not None and c.line >= close_line:
            released.append(c)
        elif c.directive is not None and i < len(items):
            directives[i] = directives.get(i, ()) + (c.directive,)
        else:
            out.append(mk("comment", c.text, line=c.line))
    out.extend(_with_directives(items[j], directives.pop(j, ())) for j in range(i, len(items)))
    return out, released


def _with_directives(node: Node, directives: tuple) -> Node:
    if not directives:
        return node
    return node.with_ann(directives=node.ann.get("directives", ()) + directives)


# ---------------------------------------------------------------------------------------
# Types
# ---------------------------------------------------------------------------------------
_HEADER_TYPEDEFS = {  # typedef names from the standard headers that have an IL type
    "bool": ("logical", 1), "size_t": ("integer", 8), "ptrdiff_t": ("integer", 8),
    "int8_t": ("integer", 1), "int16_t": ("integer", 2), "int32_t": ("integer", 4),
    "int64_t": ("integer", 8), "uint8_t": ("integer", 1), "uint16_t": ("integer", 2),
    "uint32_t": ("integer", 4), "uint64_t": ("integer", 8),
}


def _type(base: str, kind: int | None = None) -> Node:
    return mk("type", base, kind, None)


def _builtin_type(names: list) -> tuple[Node, tuple] | None:
    """IL type and extra attributes (unsigned) of a list of C type specifier words."""
    words = [w for w in names if w not in ("signed", "unsigned")]
    attrs = ("unsigned",) if "unsigned" in names else ()
    longs = words.count("long")
    if "_Complex" in words or "_Imaginary" in words:
        return None  # not read as its real part
    if "void" in words:
        return mk("type", "void", None, None), attrs
    if "_Bool" in words:
        return _type("logical", 1), attrs
    if "char" in words:
        return _type("character", 1), attrs
    if "float" in words:
        return _type("real", 4), attrs
    if "double" in words:
        return _type("real", 16 if longs else 8), attrs
    if "short" in words:
        return _type("integer", 2), attrs
    if longs:
        return _type("integer", 8), attrs
    if not words or words == ["int"]:
        return _type("integer", 4), attrs
    if len(words) == 1:
        known = _HEADER_TYPEDEFS.get(words[0])
        return (_type(*known) if known else mk("typeRef", words[0])), attrs
    return None


def _pointer_to(t: Node, depth: int) -> Node:
    for _ in range(depth):
        t = mk("pointerType", t)
    return t


def _base_spec(t):
    """The type specifier node (IdentifierType, Struct, ...) under a declarator chain."""
    while isinstance(t, (c_ast.TypeDecl, c_ast.PtrDecl, c_ast.ArrayDecl, c_ast.FuncDecl)):
        t = t.type
    return t


def _pointer_quals(t) -> tuple:
    """Qualifiers of the pointer levels of a declarator chain as attrs: k stars then the
    word for the k-th `*` from the base type (`double *const *restrict p`: *const, **restrict)."""
    levels = []
    while isinstance(t, (c_ast.ArrayDecl, c_ast.PtrDecl)):
        if isinstance(t, c_ast.PtrDecl):
            levels.append(t.quals)
        t = t.type
    return tuple("*" * (k + 1) + q for k, quals in enumerate(reversed(levels)) for q in quals)


def _grouped_declarators(typ: Node, items: list, line) -> list:
    """varDecls of consecutive (attrs, declarator) items with the same attrs; other items
    (statements hoisted out of initializers) stay between them."""
    out, run_attrs, run = [], None, []

    def flush():
        if run:
            out.append(mk("varDecl", typ, run_attrs, tuple(run), line=line))
    for item in items:
        if isinstance(item, tuple) and item[0] == run_attrs and not _reads_any(item[1].kids[2], run):
            run.append(item[1])
            continue
        flush()
        if isinstance(item, tuple):
            run_attrs, run = item[0], [item[1]]
        else:
            out.append(item)
            run_attrs, run = None, []
    flush()
    return out


def _reads_any(init, declarators) -> bool:
    """The initial value reads a variable declared before it in the same declaration: the
    declaration is split there (C initialises in order; one IL statement is one instruction)."""
    names = {d.kids[0] for d in declarators}
    return init is not None and any(n.op == "ident" and n.kids[0] in names for n in walk(init))


def _pointer_sums_as_addresses(body: Node, decls) -> Node:
    """`p + k` and `k + p`, for p a pointer (or one-dimensional array) variable of the
    function, read as `&p[k]` (the same address in C), so that every analysis and rule sees
    one access path for an element; the `pointer_sum` annotation prints it back as `p + k`.
    A name declared both as a pointer and otherwise (shadowing) is left alone."""
    kinds = {}
    for decl in tuple(decls) + tuple(d for d in walk(body) if d.op == "varDecl"):
        for name, dims, _, ptr in (d.kids for d in decl.kids[2]):
            ptr_like = (ptr == 1 and not dims) or (ptr == 0 and dims is not None and len(dims) == 1)
            kinds.setdefault(name, set()).add(ptr_like)
    pointers = {name for name, k in kinds.items() if k == {True}}

    def rewrite(n):
        if isinstance(n, tuple):
            return tuple(rewrite(k) for k in n)
        if not isinstance(n, Node):
            return n
        n = Node(n.op, tuple(rewrite(k) for k in n.kids), n.ann)
        if n.op == "add":
            for base, index in (n.kids, n.kids[::-1]):
                if base.op == "ident" and base.kids[0] in pointers:
                    return Node("address", (mk("arrayAccess", base, (index,)),), n.ann.set("pointer_sum", True))
                if base.op == "address" and base.ann.get("pointer_sum"):  # (p + j) + k is p + (j + k)
                    element = base.kids[0]
                    offset = mk("add", element.kids[1][0], index)
                    return Node("address", (element.with_kids(element.kids[0], (offset,)),), base.ann)
        return n
    return rewrite(body) if pointers else body


def _declaration_groups(nodes):
    """Split a list of pycparser nodes, grouping the Decls of one C declaration
    (`int a, *b;` gives two Decls sharing the position of their type specifier)."""
    groups, last_key = [], None
    for n in nodes:
        key = None
        if isinstance(n, c_ast.Decl) and n.name is not None and not isinstance(n.type, c_ast.FuncDecl):
            spec = _base_spec(n.type)
            if spec is not None and spec.coord is not None:
                key = (spec.coord.line, spec.coord.column)
        if key is not None and key == last_key:
            groups[-1].append(n)
        else:
            groups.append([n])
        last_key = key
    return groups


# ---------------------------------------------------------------------------------------
# The walk
# ---------------------------------------------------------------------------------------
_BINARY = {"+": "add", "-": "sub", "*": "mul", "/": "div", "%": "mod", "==": "eq", "!=": "ne",
           "<": "lt", "<=": "le", ">": "gt", ">=": "ge", "&&": "and", "||": "or",
           "&": "bitAnd", "|": "bitOr", "^": "bitXor", "<<": "lShift", ">>": "rShift"}
_UNARY = {"-": "neg", "+": "pos", "!": "not", "~": "bitNot", "&": "address", "*": "deref"}
_INC_DEC = {"p++": "add", "++": "add", "p--": "sub", "--": "sub"}
_COMPOUND_ASSIGN = {op + "=": il for op, il in _BINARY.items()
                    if op not in ("==", "!=", "<", "<=", ">", ">=", "&&", "||")}
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "a": "\a", "b": "\b", "f": "\f",
            "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}
_ESCAPE = re.compile(r"\\(x[0-9a-fA-F]+|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[0-7]{1,3}|.)", re.S)


def _unescape(body: str) -> str:
    def one(m):
        e = m.group(1)
        if e[0] in "xuU":
            return chr(int(e[1:], 16))
        if e[0] in "01234567":
            return chr(int(e, 8))
        return _ESCAPES.get(e, e)
    return _ESCAPE.sub(one, body)


def _functions_of(ext) -> frozenset:
    """Names of the functions a list of top-level nodes defines or declares."""
    names = set()
    for e in ext:
        if isinstance(e, c_ast.FuncDef):
            names.add(e.decl.name)
        elif isinstance(e, c_ast.Decl) and isinstance(e.type, c_ast.FuncDecl):
            names.add(e.name)
    return frozenset(names)


class _Translator:
    """One walk over the main file's part of a pycparser tree, building IL. Statement
    builders return lists (a declaration may give a typeDef, a varDecl and allocations)."""

    def __init__(self, filename: str, scan: _SourceScan, ast: c_ast.FileAST, cuda_words: CudaWords | None = None):
        self.filename = filename
        self.cuda_words = cuda_words  # None for C; the dialect words of a .cu file
        self._claimed_words: dict = {}
        self.scan = scan
        self.pool = _CommentPool(scan.comments)
        self.ext = [e for e in ast.ext if e.coord is not None and e.coord.file == _MAIN]
        self.functions = _functions_of(self.ext)  # these shadow intrinsics of the same name
        self._effects: Hoisted | None = None  # side effects hoisted out of the current full expression
        self._statement = {
            "Compound": lambda n: [self.compound(n)],
            "Decl": lambda n: self.declaration([n], local=True),
            "Typedef": self.typedef,
            "Assignment": lambda n: self.hoisted(n, self.assignment, statement=True),
            "UnaryOp": lambda n: self.hoisted(n, self.inc_dec, statement=True),
            "FuncCall": lambda n: self.hoisted(n, self.call_statement),
            "Cast": self.void_cast,
            "ExprList": lambda n: [s for e in n.exprs for s in self.statement(e)],
            "If": self.if_,
            "For": self.for_,
            "While": self.while_,
            "DoWhile": self.do_while,
            "Break": lambda n: [mk("exit", line=self.line(n))],
            "Continue": lambda n: [mk("cycle", line=self.line(n))],
            "Return": self.return_,
            "Goto": lambda n: [mk("goto", n.name, line=self.line(n))],
            "Label": self.label,
            "Switch": self.switch,
            "EmptyStatement": lambda n: [mk("nop", line=self.line(n))],
            "Pragma": lambda n: [],
        }
        self._expr = {
            "ID": self.ident,
            "Constant": self.constant,
            "BinaryOp": lambda n: mk(_BINARY[n.op], self.expr(n.left), self.expr(n.right)),
            "UnaryOp": self.unary,
            "Assignment": self.nested_assignment,
            "ExprList": self.comma,
            "Cast": lambda n: mk("cast", self.typename(n.to_type), self.expr(n.expr)),
            "TernaryOp": lambda n: mk("ifExpr", self.expr(n.cond), self.expr(n.iftrue), self.expr(n.iffalse)),
            "ArrayRef": lambda n: mk("arrayAccess", self.expr(n.name), (self.expr(n.subscript),)),
            "StructRef": self.field,
            "FuncCall": self.call,
            "InitList": lambda n: mk("arrayConstructor", tuple(self.expr(e) for e in n.exprs)),
        }

    # --- helpers ---------------------------------------------------------------------
    def line(self, n) -> int | None:
        return n.coord.line if n.coord is not None else None

    def unsupported(self, what: str, n):
        self.refuse(f"{what} is not supported", n)

    def refuse(self, message: str, n):
        raise UnsupportedError(message, self.filename, self.line(n) if n is not None else None)

    # --- file and units ----------------------------------------------------------------
    def file(self) -> Node:
        units = []
        for group in _declaration_groups(self.ext):
            units.extend(self.unit(group))
        end = (float("inf"), 0)
        units, _ = _place_comments(units, self.pool.claim((0, 0), end), None)
        tree = mk("file", *units, lang="c", filename=self.filename).with_ann(includes=self.scan.includes)
        return tree if self.cuda_words is None else tree.with_ann(dialect="cuda")

    def unit(self, group: list) -> list:
        n = group[0]
        if isinstance(n, c_ast.FuncDef):
            if n.param_decls:
                self.unsupported("a K&R-style function definition", n)
            return [self.procedure(n.decl, n.body)]
        if isinstance(n, c_ast.Decl) and isinstance(n.type, c_ast.FuncDecl):
            return [self.procedure(n, None)]
        if isinstance(n, c_ast.Decl):
            return self.declaration(group, local=False)
        if isinstance(n, c_ast.Typedef):
            return self.typedef(n)
        if isinstance(n, c_ast.Pragma):
            return []
        self.unsupported(f"top-level {type(n).__name__}", n)

    def procedure(self, decl: c_ast.Decl, body) -> Node:
        fdecl = decl.type
        ptr, tdecl = self.unwrap_pointers(fdecl.type)
        rbase, type_attrs = self.spec_type(tdecl.type)
        attrs = self.attrs(decl, tdecl, type_attrs)
        params, decls = self.parameters(fdecl.args)
        body = _pointer_sums_as_addresses(self.compound(body), decls) if body is not None else None
        return mk("procedure", decl.name, "function", params, None, _pointer_to(rbase, ptr), attrs,
                  decls, body, (), line=self.line(decl))

    def parameters(self, plist) -> tuple[tuple, tuple]:
        params = list(plist.params) if plist is not None else []
        if len(params) == 1 and isinstance(params[0], c_ast.Typename):
            spec = _base_spec(params[0].type)
            if isinstance(params[0].type, c_ast.TypeDecl) and getattr(spec, "names", None) == ["void"]:
                params = []  # f(void)
        names, decls = [], []
        for p in params:
            if isinstance(p, c_ast.EllipsisParam):
                self.unsupported("a variadic function (...)", p)
            if isinstance(p, c_ast.ID):
                self.unsupported("an old-style (K&R) parameter list", p)
            name, var = self.single_var(p)
            names.append(name)
            decls.append(var)
        return tuple(names), tuple(decls)

    def single_var(self, p) -> tuple[str, Node]:
        """A parameter as a one-declarator varDecl (unnamed prototype parameters get name '')."""
        name, dims, ptr, tdecl = self.declarator(p.type)
        typ, type_attrs = self.spec_type(tdecl.type)
        attrs = self.attrs(p if isinstance(p, c_ast.Decl) else None, tdecl, type_attrs) + _pointer_quals(p.type)
        name = name or ""
        return name, mk("varDecl", typ, attrs, (mk("declarator", name, dims, None, ptr),), line=self.line(p))

    # --- declarations --------------------------------------------------------------------
    def declaration(self, decls: list, local: bool) -> list:
        """One C declaration (several Decls sharing a specifier) -> [typeDef/enumDef?] varDecl
        [allocate...]. A local `T *p = malloc(...)` becomes the varDecl then an allocate. The
        varDecl is split where declarators differ in pointer qualifiers, or where a local
        initializer's side effects are hoisted between them."""
        first = decls[0]
        spec = _base_spec(first.type)
        self.dialect_words(first)  # claimed before the fields of a struct it defines claim theirs
        out = self.tag_definitions(spec, first)
        if first.name is None:
            if not out:
                self.unsupported(f"declaration of {type(spec).__name__}", first)
            return out
        typ, type_attrs = self.spec_type(spec)
        items, allocations = [], []
        for d in decls:
            if d.bitsize is not None:
                self.unsupported("a bit field", d)
            name, dims, ptr, tdecl = self.declarator(d.type)
            before, init, after = [], None, []
            if d.init is not None:
                alloc = self.allocation(d.init, mk("ident", name), d) if local else None
                if alloc is not None:
                    allocations.append(alloc)
                elif local:
                    before, init, after = self.effects_of(d.init, self.expr)
                else:
                    init = self.expr(d.init)
            attrs = self.attrs(first, tdecl, type_attrs) + _pointer_quals(d.type)
            items += before + [(attrs, mk("declarator", name, dims, init, ptr))] + after
        return out + _grouped_declarators(typ, items, self.line(first)) + allocations

    def tag_definitions(self, spec, where) -> list:
        """The struct, union or enum a declaration's specifier defines (`struct s {...} v;`)."""
        if isinstance(spec, c_ast.Enum) and spec.values is not None:
            return [self.enum_def(spec, spec.name, "enumDef")]
        if isinstance(spec, (c_ast.Struct, c_ast.Union)) and spec.decls is not None:
            kind = "union" if isinstance(spec, c_ast.Union) else "struct"
            if spec.name is None:
                self.unsupported(f"an anonymous {kind} outside a typedef", where)
            return [self.struct_def(spec, spec.name, kind)]
        return []

    def typedef(self, n: c_ast.Typedef) -> list:
        ptr, tdecl = self.unwrap_pointers(n.type)
        spec = tdecl.type
        defined = isinstance(spec, c_ast.Enum) and spec.values is not None or \
            isinstance(spec, (c_ast.Struct, c_ast.Union)) and spec.decls is not None
        if defined and spec.name is None:
            if ptr:
                self.unsupported("a typedef of a pointer to an anonymous struct, union or enum", n)
            if isinstance(spec, c_ast.Enum):
                return [self.enum_def(spec, n.name, "typedefEnum", self.line(n))]
            style = "typedefUnion" if isinstance(spec, c_ast.Union) else "typedef"
            return [self.struct_def(spec, n.name, style, self.line(n))]
        out = self.tag_definitions(spec, n) if defined else []
        base, _ = self.spec_type(spec)
        if isinstance(spec, c_ast.Enum) and spec.name == n.name and not ptr:
            return out  # `typedef enum e {...} e;`: the tag already names the type
        return out + [mk("typeAlias", n.name, _pointer_to(base, ptr), line=self.line(n))]

    def struct_def(self, struct, name: str, style: str, line=None) -> Node:
        fields = []
        for group in _declaration_groups(struct.decls):
            fields.extend(self.declaration(group, local=False))
        if style in ("union", "typedefUnion"):
            for f in fields:
                if f.op != "varDecl" or f.type.op != "type" or any(d.ptr for d in f.declarators):
                    self.unsupported("a union member that is not a number or an array of numbers", struct)
        return mk("typeDef", name, tuple(fields), style, line=line or self.line(struct))

    def enum_def(self, enum: c_ast.Enum, name: str | None, op: str, line=None) -> Node:
        items = tuple(mk("enumerator", e.name, self.opt_expr(e.value), line=self.line(e))
                      for e in enum.values.enumerators)
        return mk(op, name, items, line=line or self.line(enum))

    def declarator(self, t) -> tuple:
        """(name, dims or None, pointer depth, TypeDecl) of a declarator chain."""
        dims = []
        while isinstance(t, c_ast.ArrayDecl):
            dims.append(mk("dim", None, self.opt_expr(t.dim)))
            t = t.type
        ptr, tdecl = self.unwrap_pointers(t)
        return tdecl.declname, tuple(dims) if dims else None, ptr, tdecl

    def unwrap_pointers(self, t) -> tuple:
        """(pointer depth, TypeDecl) of a chain of PtrDecl."""
        ptr = 0
        while isinstance(t, c_ast.PtrDecl):
            ptr += 1
            t = t.type
        if not isinstance(t, c_ast.TypeDecl):
            what = "a function pointer" if isinstance(t, c_ast.FuncDecl) \
                else "an array type in a cast, sizeof or typedef, or a pointer to an array"
            self.unsupported(what, t)
        return ptr, t

    def spec_type(self, spec) -> tuple[Node, tuple]:
        if isinstance(spec, c_ast.IdentifierType):
            found = _builtin_type(spec.names)
            if found is None:
                self.unsupported(f"type {' '.join(spec.names)}", spec)
            return found
        if isinstance(spec, (c_ast.Struct, c_ast.Union, c_ast.Enum)) and spec.name is not None:
            return mk("typeRef", spec.name), ()
        if isinstance(spec, c_ast.Enum):
            return _type("integer", 4), ()  # a variable of an anonymous enum type
        self.unsupported("this type", spec)

    def typename(self, tn: c_ast.Typename) -> Node:
        """Type of a cast or sizeof operand, pointers as pointerType."""
        ptr, tdecl = self.unwrap_pointers(tn.type)
        base, _ = self.spec_type(tdecl.type)
        return _pointer_to(base, ptr)

    def attrs(self, decl, tdecl, type_attrs: tuple) -> tuple:
        words = []
        if decl is not None:
            words += list(decl.storage) + list(decl.funcspec) + list(self.dialect_words(decl))
        words += list(tdecl.quals) + list(type_attrs)
        return tuple(dict.fromkeys(words))

    def dialect_words(self, decl) -> tuple:
        """The CUDA words (__global__, __shared__, ...) written before a declaration."""
        if self.cuda_words is None:
            return ()
        if id(decl) not in self._claimed_words:
            words = self.cuda_words.claim(self.position(decl))
            if C_LINKAGE in words or BLOCK_LINKAGE in words:
                if not isinstance(decl.type, c_ast.FuncDecl):
                    self.unsupported('a variable or type with C linkage (extern "C"; functions may have it)', decl)
                words = tuple(dict.fromkeys(C_LINKAGE if w == BLOCK_LINKAGE else w for w in words))
            self._claimed_words[id(decl)] = words
        return self._claimed_words[id(decl)]

    # --- statements -----------------------------------------------------------------------
    def statements(self, items) -> list:
        out = []
        for group in _declaration_groups(items or ()):
            n = group[0]
            if isinstance(n, c_ast.Decl):
                out.extend(self.declaration(group, local=True))
            else:
                out.extend(self.statement(n))
        return out

    def statement(self, n) -> list:
        f = self._statement.get(type(n).__name__)
        if f is None:
            kind = type(n).__name__
            if kind in ("Case", "Default"):
                self.unsupported("a case label outside the top level of a switch body", n)
            if kind in self._expr:
                self.unsupported("an expression statement without effect", n)
            self.unsupported(f"statement {kind}", n)
        return f(n)

    def for_part(self, n, where: str) -> Node | None:
        """A for init or step: one statement, or a block of the statements of `a, b`."""
        if n is None:
            return None
        out = self.declaration(n.decls, local=True) if isinstance(n, c_ast.DeclList) else self.statement(n)
        if len(out) == 1:
            return out[0]
        if any(s.op not in ("assign", "call", "intrinsic") for s in out):
            self.unsupported(f"this for {where}", n)
        return mk("block", *out, line=self.line(n))

    def compound(self, n: c_ast.Compound) -> Node:
        items = self.statements(n.block_items)
        start = (n.coord.line, n.coord.column) if n.coord is not None else None
        close = self.scan.block_end(*start) if start is not None else None
        if close is not None:
            claimed = self.pool.claim(start, self.scan.closing_line_end(close))
            items, released = _place_comments(items, claimed, close)
            self.pool.release(released)
        return mk("block", *items, line=self.line(n))

    def body(self, n) -> Node:
        if isinstance(n, c_ast.Compound):
            return self.compound(n)
        return mk("block", *self.statement(n), line=self.line(n))

    def if_(self, n) -> list:
        before, cond, after = self.effects_of(n.cond, self.expr)
        then = with_after_effects(after, self.body(n.iftrue))
        orelse = self.body(n.iffalse) if n.iffalse is not None else None
        if after:
            orelse = with_after_effects(after, orelse or mk("block", line=self.line(n)))
        return before + [mk("if", cond, then, orelse, line=self.line(n))]

    def for_(self, n) -> list:
        init, step = self.for_part(n.init, "initialisation"), self.for_part(n.next, "step")
        cond, body = self.loop_condition(n.cond, n.stmt)
        return [mk("for", init, cond, step, body, line=self.line(n))]

    def while_(self, n) -> list:
        cond, body = self.loop_condition(n.cond, n.stmt)
        return [mk("while", cond if cond is not None else mk("intCst", 1, None), body, line=self.line(n))]

    def loop_condition(self, cond, stmt) -> tuple:
        """(condition, body) of a loop; a condition with side effects is re-run at the top
        of each trip: `while (c) S` becomes `while (1) { before; if (!c) {after; break;} after; S }`."""
        body = self.body(stmt)
        if cond is None:
            return None, body
        before, value, after = self.effects_of(cond, self.expr)
        if not before and not after:
            return value, body
        return None, guarded_loop_body(before, value, after, body)

    def do_while(self, n) -> list:
        before, cond, after = self.effects_of(n.cond, self.expr)
        if before or after:
            self.unsupported("a side effect in a do-while condition", n.cond)
        return [mk("doWhile", self.body(n.stmt), cond, line=self.line(n))]

    def return_(self, n) -> list:
        before, value, after = self.effects_of(n.expr, self.opt_expr)
        if after:
            self.unsupported("a postfix ++/-- in a return value", n.expr)
        return before + [mk("return", value, line=self.line(n))]

    # --- side effects inside expressions ----------------------------------------------------
    def effects_of(self, n, build, statement: bool = False) -> tuple[list, Node, list]:
        """build(n) with the side effects of the full expression n hoisted out:
        (statements before, the node built, statements after)."""
        if n is not None:
            try:
                check_full_expression(n, statement)
            except SequencingError as e:
                self.refuse(e.message, e.node if e.node is not None and e.node.coord is not None else n)
        outer, self._effects = self._effects, Hoisted()
        try:
            node = build(n)
            return self._effects.before, node, self._effects.after
        finally:
            self._effects = outer

    def hoisted(self, n, build, statement: bool = False) -> list:
        before, node, after = self.effects_of(n, build, statement)
        return before + [node] + after

    def effects_here(self, what: str, n) -> Hoisted:
        if self._effects is None:
            self.refuse(f"{what} is not supported here (only the expressions of statements may have "
                        f"side effects)", n)
        return self._effects

    def target_of(self, stmt: Node, n) -> Node:
        """The target of a hoisted assignment, read again as the value of the expression."""
        target = stmt.kids[0]
        if any(x.op == "call" for x in walk(target)):
            self.unsupported("a function call in the target of an assignment inside an expression", n)
        return target

    def nested_assignment(self, n) -> Node:
        effects = self.effects_here("an assignment inside an expression", n)
        stmt = self.assignment(n)
        effects.before.append(stmt)
        return self.target_of(stmt, n)

    def nested_inc_dec(self, n) -> Node:
        effects = self.effects_here(f"{n.op.strip('p')} inside an expression", n)
        stmt = self.inc_dec(n)
        (effects.after if n.op.startswith("p") else effects.before).append(stmt)
        return self.target_of(stmt, n)

    def comma(self, n) -> Node:
        """`a, b` inside an expression: `a` as statements before, the value is `b`."""
        effects = self.effects_here("the comma operator", n)
        for e in n.exprs[:-1]:
            effects.before.extend(self.statement(e))
        return self.expr(n.exprs[-1])

    def switch(self, n) -> list:
        """switch(sel, cases, True): consecutive labels share one case; breaks stay `exit`s."""
        if not isinstance(n.stmt, c_ast.Compound):
            self.unsupported("a switch whose body is not a { } block", n)
        items = list(n.stmt.block_items or ())
        if items and not isinstance(items[0], (c_ast.Case, c_ast.Default)):
            self.unsupported("a statement before the first case label", items[0])
        ends = [self.position(m) for m in items[1:]] + [self.block_close(n.stmt)]
        starts = [self.position(n.stmt)] + ends[:-1]
        cases, values, start = [], [], None
        for item, begin, end in zip(items, starts, ends):
            start = start or begin
            if isinstance(item, c_ast.Case):
                values.append(self.expr(item.expr))
            else:
                values.append(None)  # default
            if not item.stmts and item is not items[-1]:
                continue  # `case 1: case 2: ...`: the labels share the next body
            stmts = self.statements(item.stmts)
            if start is not None and end is not None:
                stmts, _ = _place_comments(stmts, self.pool.claim(start, end), None)
            case_values = () if None in values else tuple(values)
            cases.append(mk("case", case_values, mk("block", *stmts, line=self.line(item)), line=self.line(item)))
            values, start = [], None
        before, selector, after = self.effects_of(n.cond, self.expr)
        if after:
            self.unsupported("a postfix ++/-- in a switch selector", n.cond)
        return before + [mk("switch", selector, tuple(cases), True, line=self.line(n))]

    def position(self, n) -> tuple | None:
        return (n.coord.line, n.coord.column) if n.coord is not None else None

    def block_close(self, n: c_ast.Compound) -> tuple | None:
        start = self.position(n)
        return self.scan.block_end(*start) if start is not None else None

    def label(self, n) -> list:
        out = self.statement(n.stmt) or [mk("nop", line=self.line(n))]
        return [out[0].with_ann(label=n.name)] + out[1:]

    def assignment(self, n) -> Node:
        lhs = self.expr(n.lvalue)
        if n.op == "=":
            alloc = self.allocation(n.rvalue, lhs, n)
            if alloc is not None:
                return alloc
            return mk("assign", lhs, self.expr(n.rvalue), line=self.line(n))
        op = _COMPOUND_ASSIGN.get(n.op)
        if op is None:
            self.unsupported(f"assignment operator {n.op}", n)
        return mk("assign", lhs, mk(op, lhs, self.expr(n.rvalue)), line=self.line(n))

    def inc_dec(self, n) -> Node:
        op = _INC_DEC.get(n.op)
        if op is None:
            self.unsupported("an expression statement without effect", n)
        target = self.expr(n.expr)
        return mk("assign", target, mk(op, target, mk("intCst", 1, None)), line=self.line(n))

    def call_statement(self, n) -> Node:
        if isinstance(n.name, c_ast.ID) and n.name.name == "free" and "free" not in self.functions:
            args = n.args.exprs if n.args is not None else []
            if len(args) != 1:
                self.unsupported("free with other than one argument", n)
            return mk("deallocate", self.expr(args[0]), line=self.line(n))
        if self.cuda_words is not None and _is_launch(n.name):
            return self.kernel_launch(n)
        return self.call(n).with_ann(line=self.line(n))

    def kernel_launch(self, n) -> Node:
        """`k<<<grid, block[, shmem]>>>(args)`, read as `__adspec_launch(k, grid, block[, shmem])(args)`."""
        config = n.name.args.exprs if n.name.args is not None else []
        if len(config) == 5:
            self.unsupported("a kernel launch on a stream (<<<grid, block, shared bytes, stream>>>)", n)
        if not 3 <= len(config) <= 4 or not isinstance(config[0], c_ast.ID):
            self.unsupported("this kernel launch (expected kernel<<<grid, block[, shared bytes]>>>(args))", n)
        grid, block = self.expr(config[1]), self.expr(config[2])
        shared = self.expr(config[3]) if len(config) == 4 else None
        args = tuple(self.expr(a) for a in (n.args.exprs if n.args is not None else []))
        return mk("kernelLaunch", config[0].name, grid, block, shared, args, line=self.line(n))

    def void_cast(self, n) -> list:
        """`(void) f(x);` is the call f(x)."""
        if isinstance(n.expr, c_ast.FuncCall) and getattr(_base_spec(n.to_type.type), "names", None) == ["void"]:
            return self.hoisted(n.expr, self.call_statement)
        self.unsupported("an expression statement without effect", n)

    def allocation(self, rvalue, target: Node, n) -> Node | None:
        """allocate(target, (count,), T) for target = [(T*)] malloc(count * sizeof(T)) in any
        order of the factors; None when rvalue is no allocation call."""
        call = rvalue.expr if isinstance(rvalue, c_ast.Cast) else rvalue
        if not (isinstance(call, c_ast.FuncCall) and isinstance(call.name, c_ast.ID)
                and call.name.name in _ALLOC_FUNCS and call.name.name not in self.functions):
            return None
        args = call.args.exprs if call.args is not None else []
        if call.name.name != "malloc" or len(args) != 1:
            self.unsupported(f"{call.name.name} (only p = malloc(n*sizeof(T)) is handled)", call)
        factors, sizes = [], []
        stack = [args[0]]
        while stack:  # flatten the product, keeping the source order of the factors
            f = stack.pop()
            if isinstance(f, c_ast.BinaryOp) and f.op == "*":
                stack += [f.right, f.left]
            elif isinstance(f, c_ast.UnaryOp) and f.op == "sizeof" and isinstance(f.expr, c_ast.Typename):
                sizes.append(f.expr)
            else:
                factors.append(f)
        if len(sizes) != 1:
            self.unsupported("this malloc form (expected malloc(n*sizeof(T)))", call)
        count = None
        for f in factors:
            e = self.expr(f)
            count = e if count is None else mk("mul", count, e)
        return mk("allocate", target, (count or mk("intCst", 1, None),), self.typename(sizes[0]),
                  line=self.line(n))

    # --- expressions -------------------------------------------------------------------------
    def expr(self, n) -> Node:
        f = self._expr.get(type(n).__name__)
        if f is None:
            kind = type(n).__name__
            what = {"Assignment": "an assignment inside an expression",
                    "ExprList": "the comma operator",
                    "CompoundLiteral": "a compound literal",
                    "NamedInitializer": "a designated initializer"}.get(kind, f"expression {kind}")
            self.unsupported(what, n)
        return f(n)

    def opt_expr(self, n) -> Node | None:
        return None if n is None else self.expr(n)

    def ident(self, n) -> Node:
        if n.name == _TRUE:
            return mk("boolCst", True)
        if n.name == _FALSE:
            return mk("boolCst", False)
        return mk("ident", n.name)

    def constant(self, n) -> Node:
        v, kind = n.value, n.type
        if kind == "string":
            if not v.startswith('"'):
                self.unsupported("a wide or unicode string", n)
            return mk("stringCst", _unescape(v[1:-1]))
        if kind == "char":
            body = _unescape(v[1:-1]) if v.startswith("'") else ""
            if len(body) != 1:
                self.unsupported(f"character constant {v}", n)
            return mk("intCst", ord(body), 1)
        if kind.endswith("int"):
            digits = v.rstrip("uUlL")
            suffix = v[len(digits):].lower()
            try:
                if digits[:2].lower() in ("0x", "0b"):
                    value = int(digits, 0)
                elif len(digits) > 1 and digits[0] == "0":
                    value = int(digits, 8)
                else:
                    value = int(digits)
            except ValueError:
                raise SourceError(f"bad integer constant {v}", self.filename, self.line(n)) from None
            return mk("intCst", value, 8 if "l" in suffix else None)
        if v[:2].lower() == "0x":
            self.unsupported(f"hexadecimal floating constant {v}", n)
        text = v.rstrip("fFlL")
        suffix = v[len(text):].lower()
        return mk("realCst", text.replace("E", "e"), 4 if suffix == "f" else 16 if suffix == "l" else 8)

    def unary(self, n) -> Node:
        op = _UNARY.get(n.op)
        if op is not None:
            return mk(op, self.expr(n.expr))
        if n.op == "sizeof":
            if isinstance(n.expr, c_ast.Typename):
                return mk("sizeof", self.typename(n.expr))
            outer, self._effects = self._effects, None  # sizeof does not evaluate its operand
            try:
                return mk("sizeof", self.expr(n.expr))
            finally:
                self._effects = outer
        if n.op in INC_DEC_OPS:
            return self.nested_inc_dec(n)
        self.unsupported(f"operator {n.op}", n)

    def field(self, n) -> Node:
        base = self.expr(n.name)
        if n.type == "->":
            base = mk("deref", base)
        return mk("fieldAccess", base, n.field.name)

    def call(self, n) -> Node:
        if not isinstance(n.name, c_ast.ID):
            if self.cuda_words is not None and _is_launch(n.name):
                self.unsupported("a kernel launch inside an expression", n)
            self.unsupported("a call through a function pointer", n)
        name = n.name.name
        if self.cuda_words is not None:
            return self.cuda_call(n, name)
        if name in self.functions:
            op = "call"
        elif name in _ALLOC_FUNCS or name == "free":
            self.unsupported(f"{name} inside an expression", n)
        else:
            op = "intrinsic" if name in C_INTRINSICS else "call"
        args = n.args.exprs if n.args is not None else []
        return mk(op, name, tuple(self.expr(a) for a in args))

    def cuda_call(self, n, name: str) -> Node:
        """A call in CUDA code: CUDA's runtime and atomics stay calls by name, its math
        functions are intrinsics, an unknown `__name` is an intrinsic nobody knows."""
        if name == DIM3:
            name = "dim3"
        elif name == LAUNCH:
            self.unsupported("a kernel launch without arguments", n)
        op = call_kind(name, self.functions)
        if op is None:
            self.unsupported(f"the unknown CUDA intrinsic {name}", n)
        if name not in self.functions and (name in _ALLOC_FUNCS or name == "free"):
            self.unsupported(f"{name} inside an expression", n)
        args = n.args.exprs if n.args is not None else []
        return mk(op, name, tuple(self.expr(a) for a in args))


def _is_launch(name) -> bool:
    return isinstance(name, c_ast.FuncCall) and isinstance(name.name, c_ast.ID) and name.name.name == LAUNCH
