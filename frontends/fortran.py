"""Fortran front end: source text -> IL `file` node, through fxtran's XML (frontends/fxtran.py).

`_Converter` turns fxtran's tree into IL in one linear walk, dispatching on the element tag.
fxtran gives operator expressions flat (`-flat-op-expr`): their grouping is done here by
Fortran's precedence rules. The only context the walk keeps is a chain of symbol scopes
(procedure -> host -> USEd modules), filled by the declarations already converted, to tell
`a(i)` the array access from `f(i)` the function call (fxtran reads both alike), to resolve
kind parameters such as `real(dp)`, and to pick the specific procedure of a generic name.
Statement functions are expanded where they are used, each dummy replaced by the actual
argument's IL tree (the back end parenthesizes it as precedence asks), and are not declared
in the IL; INCLUDEd text is read in place.
"""
from __future__ import annotations

import re

from ..engine.constants import int_constant
from ..engine.errors import SourceError, UnsupportedError
from ..engine.il import Node, mk, substituted, walk
from ..engine.intrinsics import FORTRAN_INTRINSICS
from ..engine.symbols import used_name
from .fxtran import SourceLines, fxtran_tree

__all__ = ["parse_fortran"]


def parse_fortran(text: str, filename: str = "<string>", form: str = "free", modules: dict | None = None) -> Node:
    """Parse Fortran source text (form 'free' or 'fixed') to an IL `file` node.

    `modules` (name -> scope), shared between the files of one run, lets a file use the
    modules of files read before it; the modules this file defines are added to it."""
    if form not in ("free", "fixed"):
        raise ValueError(f"unknown Fortran source form {form!r}")
    if not text.strip():
        raise SourceError("empty source file", filename, 1)
    root = fxtran_tree(text, filename, form)
    converter = _Converter(filename, form, SourceLines(root), modules if modules is not None else {})
    try:
        return converter.file(root)
    except (AttributeError, TypeError, IndexError, ValueError, StopIteration, KeyError) as e:
        # fxtran accepted text whose tree lacks a part every valid statement has
        raise SourceError(f"Fortran syntax error: cannot read this statement ({type(e).__name__})",
                          filename, converter.line or 1) from None


# ---------------------------------------------------------------------------
# Symbol scopes
# ---------------------------------------------------------------------------
ARRAY, VAR, CHAR, TYPE, INTRINSIC, EXTERNAL, GENERIC = (
    "array", "var", "char", "type", "intrinsic", "external", "generic")


class _Scope:
    """Names declared in one program unit: what each is, its type, integer parameter values,
    statement functions and generic interfaces."""

    __slots__ = ("names", "params", "types", "generics", "signatures", "stmt_functions", "parent", "used",
                 "uses_other_files")

    def __init__(self, parent=None):
        self.names = {}
        self.params = {}
        self.types = {}            # name -> (base, kind, rank)
        self.generics = {}         # generic name -> specific procedure names
        self.signatures = {}       # procedure name -> (base, kind, rank) of each dummy argument
        self.stmt_functions = {}   # name -> (dummy names, IL expression, dummy types)
        self.parent = parent
        self.used = []  # (module scope, ONLY names or None, {local: remote})
        self.uses_other_files = False  # USE of a module not read yet: names unknown

    def sees_unknown_names(self):
        scope = self
        while scope is not None:
            if scope.uses_other_files:
                return True
            scope = scope.parent
        return False

    def lookup(self, name, table="names"):
        scope = self
        while scope is not None:
            found = getattr(scope, table).get(name)
            if found is not None:
                return found
            for module, only, renames in scope.used:
                remote = used_name(only, renames, name)
                if remote is not None:
                    found = module.lookup(remote, table)
                    if found is not None:
                        return found
            scope = scope.parent
        return None

    def declare(self, name, what):
        # Attribute-like facts do not hide that a name is an array.
        if self.names.get(name) != ARRAY or what in (INTRINSIC, EXTERNAL):
            self.names[name] = what


# ---------------------------------------------------------------------------
# Fixed tables
# ---------------------------------------------------------------------------
# binary operator -> (IL operator, precedence, right-associative); Fortran 2008 7.1.4
_BINARY = {
    "**": ("power", 9, True), "*": ("mul", 8, False), "/": ("div", 8, False),
    "+": ("add", 7, False), "-": ("sub", 7, False), "//": ("concat", 6, False),
    "==": ("eq", 5, False), ".eq.": ("eq", 5, False), "/=": ("ne", 5, False), ".ne.": ("ne", 5, False),
    "<": ("lt", 5, False), ".lt.": ("lt", 5, False), "<=": ("le", 5, False), ".le.": ("le", 5, False),
    ">": ("gt", 5, False), ".gt.": ("gt", 5, False), ">=": ("ge", 5, False), ".ge.": ("ge", 5, False),
    ".and.": ("and", 3, False), ".or.": ("or", 2, False), ".eqv.": ("eqv", 1, False), ".neqv.": ("neqv", 1, False),
}
_UNARY = {"-": ("neg", 8), "+": ("pos", 8), ".not.": ("not", 5)}  # operand precedence

_TYPE_BASES = {
    "integer": ("integer", None), "real": ("real", None), "doubleprecision": ("real", 8),
    "complex": ("complex", None), "doublecomplex": ("complex", 8),
    "logical": ("logical", None), "character": ("character", None),
}
_SIMPLE_ATTRS = frozenset("parameter save pointer allocatable target optional external "
                          "intrinsic public private contiguous volatile value protected".split())
_LAYOUT = frozenset(("m", "cnt", "rm", "smc"))  # fixed-form margins, continuation marks, columns past 72,
# the `;` that ends a statement (it only separates statements)
_NOT_CODE = _LAYOUT | {"C"}  # and comments
# tags that only wrap one expression
_WRAPPERS = frozenset("E-1 E-2 condition-E test-E init-E mask-E case-E element arg output-item input-item "
                      "ac-value lower-bound upper-bound step stride do-V V K-spec iterator-element case-value "
                      "data-stmt-constant data-stmt-obj data-stmt-repeat equivalence-obj numeric-E "
                      "procedure-designator action-stmt section-subscript".split())
_IO_KINDS = {"print-stmt": "print", "write-stmt": "write", "read-stmt": "read", "open-stmt": "open",
             "close-stmt": "close", "rewind-stmt": "rewind", "inquire-stmt": "inquire",
             "backspace-stmt": "backspace", "endfile-stmt": "endfile", "format-stmt": "format"}
_ATTRIBUTE_STATEMENTS = {"external-stmt": "external", "intrinsic-stmt": "intrinsic", "save-stmt": "save",
                         "optional-stmt": "optional", "public-stmt": "public", "private-stmt": "private",
                         "target-stmt": "target", "pointer-stmt": "pointer", "allocatable-stmt": "allocatable",
                         "value-stmt": "value", "volatile-stmt": "volatile", "protected-stmt": "protected"}

# Recognised constructs the IL has no place for, with the name users know them by.
_UNSUPPORTED_NAMES = {
    "assigned-goto-stmt": "assigned GOTO", "entry-stmt": "ENTRY", "associate-construct": "ASSOCIATE",
    "block-construct": "BLOCK construct", "namelist-stmt": "NAMELIST", "select-type-construct": "SELECT TYPE",
    "selecttype-construct": "SELECT TYPE", "submodule-stmt": "SUBMODULE", "block-data-stmt": "BLOCK DATA",
    "assign-stmt": "ASSIGN statement", "pause-stmt": "PAUSE statement", "enum-construct": "ENUM",
    "procedure-stmt": "PROCEDURE statement", "critical-construct": "CRITICAL construct",
}


def _construct_name(tag: str) -> str:
    if tag in _UNSUPPORTED_NAMES:
        return _UNSUPPORTED_NAMES[tag]
    if tag.endswith("-stmt"):
        return tag[:-5].replace("-", " ").upper() + " statement"
    return tag.replace("-", " ")


# ---------------------------------------------------------------------------
# Reading fxtran's elements
# ---------------------------------------------------------------------------
def _kids(e) -> list:
    """Element children, without layout."""
    return [k for k in e if k.tag not in _LAYOUT]


def _label(e) -> str:
    """A statement label as its number is written without zeros before it or blanks inside
    (fixed form ignores blanks): GO TO 010 and GO TO 1 0 go to 10."""
    text = _text(e).replace(" ", "").strip()
    return str(int(text)) if text.isdigit() else text


def _child(e, tag):
    """The first child with this tag (lxml's find goes through its Python path engine)."""
    for k in e:
        if k.tag == tag:
            return k
    return None


def _first(e, tag=None):
    for k in e:  # lxml builds a new string at every `.tag`: read it once
        t = k.tag
        if t not in _NOT_CODE and (tag is None or t == tag):
            return k
    return None


def _name(e) -> str:
    """The name of an `N`-like element (or of the first `n` below it), lower-cased."""
    if e.tag == "N" and len(e) == 1:
        n = e[0]
        text = n.text  # the common shape <N><n>name</n></N>, read fast
        if text and not len(n):
            return text.lower()
    n = e if e.tag == "n" else e.find(".//n")
    return ("" if n is None else "".join(n.itertext())).strip().lower()


def _text(e) -> str:
    """The source text of an element, continuation marks and line breaks removed."""
    parts = []

    def collect(x):
        if x.tag in _LAYOUT or x.tag == "C":
            if x.tail:
                parts.append(x.tail)
            return
        if x.text:
            parts.append(x.text)
        for k in x:
            collect(k)
        if x.tail and x is not e:
            parts.append(x.tail)

    collect(e)
    return re.sub(r"\s*\n\s*", "", "".join(parts))


def _operator(e) -> str:
    """The operator of an `op` element, lower-cased."""
    o = e[0] if len(e) == 1 else None
    text = o.text if o is not None and not len(o) and o.text else _text(e)
    return text.strip().lower()


def _own_text(e) -> str:
    """The text directly inside e, between its children (the keywords and punctuation)."""
    return (e.text or "") + "".join(k.tail or "" for k in e)


def _comment_text(raw: str, form: str) -> str:
    """The comment without its marker and the one space that usually follows it (the
    back end writes '! ' + text), so that comments survive a round trip unchanged."""
    text = raw.lstrip()
    if text.startswith("!"):
        text = text[1:]
    elif form == "fixed" and raw[:1] in "cC*":
        text = raw[1:]
    return text[1:] if text.startswith(" ") else text


def _canonical_real(text: str) -> tuple[str, int]:
    """(canonical text, kind) of a real literal: exponent letter e, a zero exponent dropped
    (1.5d0 -> '1.5'), so that every spelling of a constant gives one IL node."""
    text = text.lower()
    kind = 8 if "d" in text else 16 if "q" in text else 4
    mantissa, _, exponent = text.replace("d", "e").replace("q", "e").partition("e")
    if exponent and int(exponent) != 0:
        return f"{mantissa}e{exponent}", kind
    return (mantissa if "." in mantissa else mantissa + ".0"), kind


def _nested(op: str, arms: list) -> Node:
    """IF ... ELSE IF ... ELSE (or WHERE ... ELSEWHERE (m) ... ELSEWHERE): arms (condition or
    None for the last ELSE, annotations, block) -> one node, each later arm alone in the else
    block of the one before."""
    else_block = arms.pop()[2] if arms[-1][0] is None else None
    node = None
    for cond, ann, block in reversed(arms):
        node = mk(op, cond, block, else_block, **ann)
        else_block = mk("block", node)
    return node


def _is_data_object(node: Node) -> bool:
    if node.op == "impliedDo":
        return all(_is_data_object(o) for o in node.kids[0])
    while node.op in ("arrayAccess", "fieldAccess"):
        node = node.kids[0]
    return node.op == "ident"


def _without_statement_functions(decls: list, rest, stmt_functions: dict) -> list:
    """decls less the declarations of the statement functions (expanded where used, they are
    no variables) and of their dummies that nothing else names: the code written back
    declares nothing it does not use."""
    names = set(stmt_functions)
    dummies = {d for dummies, *_ in stmt_functions.values() for d in dummies} - names
    named = {k for node in walk((tuple(decls), rest)) if node.op != "declarator"
             for k in node.kids if isinstance(k, str)}
    names |= dummies - named
    out = []
    for d in decls:
        if d.op == "varDecl" and any(x.kids[0] in names for x in d.kids[2]):
            kept = tuple(x for x in d.kids[2] if x.kids[0] not in names)
            if not kept:
                continue
            d = Node(d.op, (*d.kids[:2], kept, *d.kids[3:]), d.ann)
        out.append(d)
    return out


# ---------------------------------------------------------------------------
# The converter
# ---------------------------------------------------------------------------
class _Converter:
    """One linear walk over fxtran's tree building IL."""

    def __init__(self, filename: str, form: str, lines: SourceLines, modules: dict):
        self.filename = filename
        self.form = form
        self.lines = lines
        self.scope = _Scope()
        self.modules = modules  # module name -> _Scope, shared by the files of one run
        self.line = None  # line of the statement being converted (for errors)
        self.label = None  # label waiting for the next statement
        self.directives = []  # $AD directives waiting for the next statement
        self.loop_names = []  # construct names of the enclosing DO loops
        self.plain_literals = {}  # source spelling -> IL constant
        self.idents = {}  # source spelling -> IL ident

    # --- errors and annotations ------------------------------------------------------
    def unsupported(self, what, e=None):
        line = self.lines(e) if e is not None else self.line
        raise UnsupportedError(f"{what} is not supported", self.filename, line)

    def syntax_error(self, what, e):
        raise SourceError(f"Fortran syntax error: {what}", self.filename, self.lines(e))

    def ann(self, e):
        """Annotations of a statement: line, pending label and $AD directives."""
        if e is not None:
            self.line = self.lines(e)
        label, self.label = self.label, None
        directives = tuple(self.directives)
        self.directives.clear()
        return {"line": self.line, "label": label, "directives": directives}

    # --- file and program units --------------------------------------------------------
    def file(self, root) -> Node:
        units = []
        self.unit_items(root, units)
        return mk("file", *units, lang="fortran", form=self.form, filename=self.filename)

    def unit_items(self, parent, out):
        """The children of a file or of an INCLUDEd file at the top level."""
        for e in _kids(parent):
            if e.tag == "C":
                self.comment(e, out)
            elif e.tag == "program-unit":
                self.program_unit(e, out)
            elif e.tag == "include":
                continue
            elif e.tag == "file":
                self.unit_items(e, out)
            elif e.tag == "label":
                self.label = _label(e)
            else:
                self.syntax_error(f"statement outside a program unit near '{_text(e)[:40]}'", e)

    def program_unit(self, e, out, interface_body=False):
        kids = _kids(e)
        header = next((k for k in kids if k.tag not in ("C", "label")), None)
        tag = header.tag if header is not None else ""
        if tag == "module-stmt":
            return self.module(e, header, out)
        if tag in _UNSUPPORTED_NAMES:
            self.unsupported(_construct_name(tag), header)
        if tag not in ("subroutine-stmt", "function-stmt", "program-stmt"):
            header = None
        self.procedure(e, header, out, interface_body)

    def module(self, e, header, out):
        ann = self.ann(header)
        name = _name(_child(header, "module-N"))
        outer, self.scope = self.scope, _Scope(self.scope)
        self.modules[name] = self.scope
        decls, contains = [], []
        self.body_items(e, header, decls, None, contains, name)
        self.scope = outer
        out.append(mk("module", name, tuple(decls), tuple(contains), **ann))

    def procedure(self, e, header, out, interface_body):
        name, kind, params, result, rtype, attrs = "main", "program", (), None, None, ()
        if header is not None:
            ann = self.ann(header)
            kind = header.tag[:-5]
            name = _name(_child(header, kind + "-N"))
        else:
            first = next((k for k in _kids(e) if k.tag != "C"), e)
            self.line = self.lines(first)
            ann = self.ann(None)
        outer = self.scope
        self.scope = _Scope(None if interface_body else self.scope)
        if header is not None and kind != "program":
            rtype, attrs = self.prefix(header)
            dummies = _child(header, "dummy-arg-LT")
            params = tuple(self.dummy_arg(a) for a in (_kids(dummies) if dummies is not None else ()))
            if kind == "function":
                spec = _child(header, "result-spec")
                if spec is not None:
                    result = _name(spec)
                self.scope.declare(result or name, VAR)
                if rtype is not None:
                    self.scope.types[result or name] = (rtype.kids[0], rtype.kids[1], 0)
        decls, stmts, contains = [], [], []
        self.body_items(e, header, decls, stmts, contains, name)
        if self.scope.stmt_functions:
            decls = _without_statement_functions(decls, (tuple(stmts), tuple(contains)), self.scope.stmt_functions)
        if kind != "program":
            outer.signatures[name] = tuple(self.scope.types.get(p) or self.implicit_type(p) for p in params)
            if kind == "function":
                outer.types.setdefault(name, self.scope.types.get(result or name) or self.implicit_type(name))
        self.scope = outer
        body = None if interface_body else mk("block", *stmts)
        out.append(mk("procedure", name, kind, params, result, rtype, attrs, tuple(decls), body,
                      tuple(contains), **ann))

    def body_items(self, e, header, decls, stmts, contains, unit_name):
        """Declarations, statements and contained units of a program unit. Comments go to
        the part being read: declarations until the first executable statement."""
        section = decls
        for k in _kids(e):
            tag = k.tag
            if k is header:
                continue
            if tag == "C":
                self.comment(k, section if section is not None else decls)
            elif tag == "label":
                self.label = _label(k)
            elif tag == "file":  # an INCLUDEd file's text
                self.body_items(k, None, decls, stmts, contains, unit_name)
            elif tag == "include":
                continue
            elif tag == "contains-stmt":
                section = None
            elif tag == "program-unit":
                self.program_unit(k, contains)
            elif tag.startswith("end-") and tag.endswith("-stmt"):
                self.end_statement(k, unit_name, stmts)
            elif tag == "a-stmt" and section is decls and self.statement_function(k):
                continue  # a statement function, among the declarations
            elif tag in _DECLARATIONS:
                _DECLARATIONS[tag](self, k, decls)
            else:
                if stmts is None and tag == "a-stmt":
                    self.syntax_error("an assignment outside the executable part of a program unit", k)
                if stmts is None:
                    self.unsupported(_construct_name(tag), k)
                section = stmts
                self.statement(k, stmts)

    def end_statement(self, e, unit_name, stmts):
        named = e.find(".//N")
        if named is not None and _name(named) != unit_name:
            raise SourceError(f"END statement names {_name(named)!r}, not {unit_name!r}", self.filename,
                              self.lines(e))
        if (self.label is not None or self.ending_piece()) and stmts is not None:
            stmts.append(mk("nop", **self.ann(e)))  # a GOTO target, a piece's end at END

    def dummy_arg(self, a):
        if a.find(".//N") is None:
            self.unsupported("alternate return", a)
        return _name(a)

    def prefix(self, header):
        """(result type, attributes) of a FUNCTION/SUBROUTINE statement."""
        rtype, attrs = None, []
        for k in _kids(header):
            if k.tag == "prefix":
                attrs.append(_text(k).lower())
            elif k.tag in ("intrinsic-T-spec", "derived-T-spec", "_T-spec_"):
                rtype = self.type_spec(k)[0]
        return rtype, tuple(attrs)

    # --- comments and directives -------------------------------------------------------
    def ending_piece(self) -> bool:
        """A `$AD CHECKPOINT-END` waits at the end of a block: it needs a statement of that
        block to sit on (a nop), or it would mark the statement after the construct."""
        return "CHECKPOINT-END" in self.directives

    def comment(self, e, out):
        raw = e.text or ""
        if not raw.strip():
            return
        text = _comment_text(raw, self.form)
        if text.lstrip().upper().startswith("$AD"):
            self.directives.append(text.lstrip()[3:].strip().upper())
            return
        out.append(mk("comment", text, line=self.lines(e)))

    # --- declarations --------------------------------------------------------------------
    def use(self, e, out):
        ann = self.ann(e)
        if "::" in _own_text(e):  # USE, INTRINSIC :: m or USE, NON_INTRINSIC :: m
            self.unsupported("USE with a module nature", e)
        module = _name(_child(e, "module-N"))
        has_only = "only" in _own_text(e).lower()
        only, renames = ([] if has_only else None), []
        listing = _child(e, "rename-LT")
        for r in (_kids(listing) if listing is not None else ()):
            local = _name(_child(r, "use-N"))
            names = [k for k in _kids(r) if k.tag == "N"]
            if "=>" in _own_text(r) and names:
                renames.append(mk("rename", local, _name(names[-1])))
            if only is not None:
                only.append(local)
        if module in self.modules:
            self.scope.used.append((self.modules[module], None if only is None else frozenset(only),
                                    {r.kids[0]: r.kids[1] for r in renames}))
        else:
            self.scope.uses_other_files = True
        out.append(mk("use", module, None if only is None else tuple(only), *renames, **ann))

    def implicit(self, e, out):
        ann = self.ann(e)
        text = re.sub(r"^\s*implicit\s*", "", _text(e), flags=re.IGNORECASE)
        out.append(mk("implicit", text.strip().lower(), **ann))

    def type_declaration(self, e, out):
        out.extend(self.var_decls(e, self.ann(e)))

    def var_decls(self, e, ann) -> list:
        """A type declaration (or a component declaration) -> varDecls; a name with its own
        character length (`character*8 a, b*16`) gets a varDecl of its own."""
        spec = _first(e, "_T-spec_")
        typ, is_char = self.type_spec(spec if spec is not None else e)
        attrs, attr_dims = self.attributes(e)
        is_param = "parameter" in attrs
        groups = []  # (type, declarators)
        names = _child(e, "EN-decl-LT")
        if names is None:
            self.syntax_error("a declaration without names", e)
        for d in _kids(names):
            name = _name(_child(d, "EN-N"))
            own_len = _child(d, "char-selector")
            dtype = typ if own_len is None else mk("type", "character", None, self.char_len(own_len))
            shape = _child(d, "array-spec")
            dims = self.dims(shape) if shape is not None else attr_dims
            init_e = _child(d, "init-E")
            init = self.expr(init_e) if init_e is not None else None
            if is_param and init is not None and dtype.kids[0] == "integer":
                value = self.const_int(init)
                if value is not None:
                    self.scope.params[name] = value
            self.scope.declare(name, ARRAY if dims is not None else
                               INTRINSIC if "intrinsic" in attrs else
                               EXTERNAL if "external" in attrs else CHAR if is_char or own_len is not None else VAR)
            if dtype.op == "type":
                self.scope.types[name] = (dtype.kids[0], dtype.kids[1], len(dims or ()))
            declarator = mk("declarator", name, dims, init, 0)
            if groups and groups[-1][0] == dtype:
                groups[-1][1].append(declarator)
            else:
                groups.append((dtype, [declarator]))
        return [mk("varDecl", t, attrs, tuple(ds), **ann) for t, ds in groups]

    def attributes(self, e):
        """(attribute strings, dims of a DIMENSION attribute or None)."""
        attrs, dims = [], None
        for a in e.findall("attribute"):
            word = _text(_child(a, "attribute-N")).lower()
            if word == "dimension":
                dims = self.dims(_child(a, "array-spec"))
            elif word == "intent":
                attrs.append("intent(" + _text(_child(a, "intent-spec")).lower().replace(" ", "") + ")")
            elif word in _SIMPLE_ATTRS:
                attrs.append(word)
            else:
                self.unsupported(f"attribute {_text(a).upper()}", a)
        return tuple(attrs), dims

    def type_spec(self, e):
        """(IL type node, is character) of a type specification."""
        spec = e.find(".//derived-T-spec") if e.tag != "derived-T-spec" else e
        if spec is not None:
            keyword = _own_text(spec).strip().lower()
            if not keyword.startswith("type"):
                self.unsupported(keyword.split("(")[0].upper() + " declarations", spec)
            return mk("typeRef", _name(_child(spec, "T-N"))), False
        spec = e if e.tag == "intrinsic-T-spec" else e.find(".//intrinsic-T-spec")
        if spec is None:
            self.unsupported(f"type {_text(e)}", e)
        word = re.sub(r"\s+", "", _text(_child(spec, "T-N")).lower())
        base_kind = _TYPE_BASES.get(word)
        if base_kind is None:
            self.unsupported(f"type {word.upper()}", spec)
        base, kind = base_kind
        length = None
        selector = _child(spec, "K-selector")
        if selector is not None:
            holder = _child(selector, "K-spec") if _child(selector, "K-spec") is not None else selector
            value = self.expr(next(k for k in _kids(holder) if k.tag not in ("arg-N", "C")))
            if _own_text(selector).strip().startswith("*"):  # real*8; complex*16 counts both parts
                if value.op != "intCst":
                    self.unsupported(f"type size *{_text(selector)}", selector)
                kind = value.kids[0] // 2 if base == "complex" else value.kids[0]
            else:
                kind = self.kind_value(value, selector)
        selector = _child(spec, "char-selector")
        if selector is not None:
            length = self.char_len(selector)
        return mk("type", base, kind, length), base == "character"

    def char_len(self, selector):
        """Length of a character selector: *N, *(*), (len=N), (N), (len=*, kind=...)."""
        spec = _child(selector, "char-spec")
        if spec is None:
            return self.expr(_first(selector))
        value = next((k for k in _kids(spec) if k.tag not in ("arg-N", "C")), None)
        if value is None:
            own = _own_text(spec).strip()
            if own.endswith("*"):
                return mk("star")
            self.unsupported("deferred character length", selector)
        return self.expr(value)

    def kind_value(self, value: Node, e) -> int:
        kind = self.const_int(value)
        if kind is None:
            self.unsupported(f"kind '{_text(e).strip('()').lower()}' (not a constant known in this file)", e)
        return kind

    def kind_suffix(self, text):
        """Kind of a literal suffix (_8, _dp)."""
        if text is None:
            return None
        text = text.lstrip("_").strip()
        if text.isdigit():
            return int(text)
        value = self.scope.lookup(text.lower(), "params")
        if value is None:
            self.unsupported(f"kind '{text.lower()}' (not a constant known in this file)")
        return value

    def const_int(self, node: Node):
        """Value of a constant integer IL expression (kind parameters), or None."""
        return int_constant(node, lambda name: self.scope.lookup(name, "params"), self.const_intrinsic)

    def const_intrinsic(self, name, args):
        """KIND and SELECTED_*_KIND of constants: the kinds of this file's declarations."""
        args = [a.kids[1] if a.op == "namedArg" else a for a in args]
        if name == "kind" and args:
            a = args[0].kids[0] if args[0].op == "neg" else args[0]
            if a.op == "realCst":
                return a.kids[1]
            if a.op == "intCst":
                return a.kids[1] or 4
            return 4 if a.op == "boolCst" else None
        ints = [self.const_int(v) for v in args]
        if not ints or ints[0] is None:
            return None
        if name == "selected_real_kind":
            return 4 if ints[0] <= 6 else 8 if ints[0] <= 15 else 16
        if name == "selected_int_kind":
            return 1 if ints[0] <= 2 else 2 if ints[0] <= 4 else 4 if ints[0] <= 9 else 8
        return None

    def dims(self, array_spec):
        """Tuple of `dim` nodes of an array specification."""
        out = []
        for s in _kids(_child(array_spec, "shape-spec-LT")):
            lo, hi = _child(s, "lower-bound"), _child(s, "upper-bound")
            own = _own_text(s)
            if hi is None and lo is None:
                out.append(mk("dim", None, mk("star") if "*" in own else None))
            elif hi is None and "*" in own:
                out.append(mk("dim", self.expr(lo), mk("star")))
            elif hi is None and ":" in own:
                out.append(mk("dim", self.expr(lo), None))
            else:
                out.append(mk("dim", None if lo is None else self.expr(lo), self.expr(hi if hi is not None else lo)))
        return tuple(out)

    def derived_type(self, e, out):
        header = _child(e, "T-stmt")
        ann = self.ann(header)
        if "extends" in _text(header).lower():
            self.unsupported("type extension (EXTENDS)", header)
        name = _name(_child(header, "T-N"))
        fields = []
        for k in _kids(e):
            if k.tag == "C":
                self.comment(k, fields)
            elif k.tag == "component-decl-stmt":
                outer, self.scope = self.scope, _Scope(self.scope)  # fields: own names
                fields.extend(self.var_decls(k, self.ann(k)))
                self.scope = outer
            elif k.tag not in ("T-stmt", "end-T-stmt", "sequence-stmt", "private-components-stmt",
                               "private-stmt", "label"):
                self.unsupported(_construct_name(k.tag), k)
        self.scope.declare(name, TYPE)
        out.append(mk("typeDef", name, tuple(fields), "fortran", **ann))

    def common(self, e, out):
        ann = self.ann(e)
        block = ""
        for k in _kids(e):
            if k.tag == "common-block-N":
                block = _name(k)
            elif k.tag == "common-block-obj-LT":
                members = []
                for o in _kids(k):
                    name = _name(_child(o, "common-block-obj-N"))
                    shape = _child(o, "array-spec")
                    if shape is not None:
                        bounds = tuple(d.kids[1] if d.kids[0] is None else mk("arrayTriplet", d.kids[0], d.kids[1], None)
                                       for d in self.dims(shape))
                        members.append(mk("arrayAccess", mk("ident", name), bounds))
                        self.scope.declare(name, ARRAY)
                    else:
                        members.append(mk("ident", name))
                        self.scope.names.setdefault(name, VAR)
                out.append(mk("common", block, tuple(members), **ann))
                block = ""

    def equivalence(self, e, out):
        ann = self.ann(e)
        groups = tuple(tuple(self.target(o) for o in _kids(_child(s, "equivalence-obj-LT")))
                       for s in _kids(_child(e, "equivalence-set-LT")))
        out.append(mk("equivalence", groups, **ann))

    def attribute_statement(self, e, out):
        """EXTERNAL, INTRINSIC, SAVE, OPTIONAL, PUBLIC, ... f1, f2 -> attrDecl."""
        ann = self.ann(e)
        attr = _ATTRIBUTE_STATEMENTS.get(e.tag)
        if e.tag == "intent-stmt":
            attr = "intent(" + _text(_child(e, "intent-spec")).lower().replace(" ", "") + ")"
        declarators = []
        for item in e.iter("EN-decl", "EN", "saved-EN", "pointer-decl", "allocatable-decl", "target-decl"):
            dims = None
            if item.tag == "saved-EN" and "/" in _own_text(item):
                name = "/" + _name(item) + "/"  # a saved common block
            else:
                name = _name(item)
                shape = _child(item, "array-spec")
                dims = self.dims(shape) if shape is not None else None
            if attr in (INTRINSIC, EXTERNAL):
                self.scope.declare(name, attr)
            elif dims is not None:
                self.scope.declare(name, ARRAY)
            declarators.append(mk("declarator", name, dims, None, 0))
        out.append(mk("attrDecl", attr, tuple(declarators), **ann))

    def parameter_statement(self, e, out):
        """PARAMETER (n = 10, ...) -> attrDecl('parameter', declarators with init)."""
        ann = self.ann(e)
        declarators = []
        for d in _kids(_child(e, "EN-decl-LT")):
            name = _name(_child(d, "EN-N"))
            value = self.expr(_child(d, "init-E"))
            const = self.const_int(value)
            if const is not None:
                self.scope.params[name] = const
            self.scope.names.setdefault(name, VAR)
            declarators.append(mk("declarator", name, None, value, 0))
        out.append(mk("attrDecl", "parameter", tuple(declarators), **ann))

    def dimension_statement(self, e, out):
        """DIMENSION a(n), b(0:m) -> attrDecl('dimension', declarators with dims)."""
        ann = self.ann(e)
        declarators = []
        for d in _kids(_child(e, "EN-decl-LT")):
            name = _name(_child(d, "EN-N"))
            self.scope.declare(name, ARRAY)
            declarators.append(mk("declarator", name, self.dims(_child(d, "array-spec")), None, 0))
        out.append(mk("attrDecl", "dimension", tuple(declarators), **ann))

    def data(self, e, out):
        """DATA objects /values/, ... -> one `data` node per set."""
        ann = self.ann(e)
        for s in e.iter("data-stmt-set"):
            objects = tuple(self.expr(o) for o in _kids(_child(s, "data-stmt-obj-LT")))
            for o in objects:
                if not _is_data_object(o):
                    self.syntax_error("a DATA object must be a variable, an array element or an implied DO", e)
            values = []
            for v in _kids(_child(s, "data-stmt-value-LT")):
                value = self.expr(_child(v, "data-stmt-constant"))
                repeat = _child(v, "data-stmt-repeat")
                values.append(value if repeat is None else mk("dataRepeat", self.expr(repeat), value))
            out.append(mk("data", objects, tuple(values), **ann))

    def interface(self, e, out):
        header = _child(e, "interface-stmt")
        ann = self.ann(header)
        generic = _child(header, "generic-spec")
        name = None
        if generic is not None:
            if "(" in _text(generic):
                self.unsupported(f"operator interface {_text(generic)}", header)
            name = _name(generic)
        elif "abstract" in _text(header).lower():
            self.unsupported("ABSTRACT INTERFACE", header)
        names, procs = [], []
        for k in _kids(e):
            if k.tag == "procedure-stmt":
                names.extend(_name(n) for n in k.iter("N"))
            elif k.tag == "program-unit":
                self.program_unit(k, procs, interface_body=True)
                self.scope.declare(procs[-1].kids[0], EXTERNAL)
            elif k.tag == "C":
                self.comment(k, procs)
        specifics = tuple(names) + tuple(p.kids[0] for p in procs if p.op == "procedure")
        if name is not None:
            self.scope.declare(name, GENERIC)
            self.scope.generics[name] = self.scope.generics.get(name, ()) + specifics
        out.append(mk("interface", name, tuple(names), tuple(procs), **ann))

    def statement_function(self, e) -> bool:
        """f(x, y) = expr among the declarations, f no array: remembered, expanded at uses."""
        lhs = _first(_child(e, "E-1"))
        refs = _child(lhs, "R-LT") if lhs is not None and lhs.tag == "named-E" else None
        if refs is None or len(_kids(refs)) != 1 or _kids(refs)[0].tag != "parens-R":
            return False
        name = _name(_child(lhs, "N"))
        local = self.scope.names.get(name)
        if local is not None and local != VAR:
            return False
        if local is None and (self.scope.lookup(name) is not None or self.scope.sees_unknown_names()):
            return False
        self.ann(e)
        dummies = tuple(_name(a) for a in _kids(_kids(refs)[0]) for a in _kids(a))
        body = self.expr(_child(e, "E-2"))
        declared = _with_default_kind(self.scope.types.get(name) or self.implicit_type(name))
        found = self.type_of(body)
        if found is not None and found[:2] != declared[:2] and declared[:2] in _CONVERTERS:
            body = mk("intrinsic", _CONVERTERS[declared[:2]], (body,))  # the function's own type
        types = tuple(_with_default_kind(self.scope.types.get(d) or self.implicit_type(d)) for d in dummies)
        self.scope.stmt_functions[name] = (dummies, body, types)
        return True

    def check_statement_function_arguments(self, name, typed_dummies, args, r):
        """Each actual argument of a statement function has its dummy's type and kind (as
        gfortran demands): the expansion, which takes the actual as it is, would otherwise
        compute in another precision than the one the program was written for.
        `typed_dummies`: (dummy name, (base, kind, rank)) in order."""
        for position, ((dummy, want), actual) in enumerate(zip(typed_dummies, args), 1):
            found = _with_default_kind(self.type_of(actual))
            if found is not None and {want[0], found[0]} <= _NUMERIC and want[:2] != found[:2]:
                raise SourceError(f"statement function {name}: argument {position} is {found[0]}({found[1]}), "
                                  f"its dummy {dummy} is {want[0]}({want[1]})", self.filename, self.lines(r))

    # --- statements ------------------------------------------------------------------------
    def statements(self, parent, out, skip=()):
        for k in _kids(parent):
            if k.tag == "C":
                self.comment(k, out)
            elif k.tag == "label":
                self.label = _label(k)
            elif k.tag not in skip:
                self.statement(k, out)

    def statement(self, e, out):
        handler = _STATEMENTS.get(e.tag)
        if handler is None:
            if e.tag == "broken-stmt":
                self.syntax_error(f"cannot read '{_text(e).strip()[:60]}'", e)
            if e.tag in _DECLARATIONS:
                self.syntax_error(f"{_construct_name(e.tag)} among executable statements", e)
            self.unsupported(_construct_name(e.tag), e)
        handler(self, e, out)

    def action(self, e) -> Node:
        """The one statement of a logical IF, WHERE or FORALL statement, as a block."""
        stmts = []
        self.statement(_first(_child(e, "action-stmt")), stmts)
        return mk("block", *stmts)

    def block(self, parent, skip=()) -> Node:
        stmts = []
        self.statements(parent, stmts, skip)
        return mk("block", *stmts)

    def assignment(self, e, out):
        ann = self.ann(e)
        out.append(mk("assign", self.target(_child(e, "E-1")), self.expr(_child(e, "E-2")), **ann))

    def pointer_assignment(self, e, out):
        ann = self.ann(e)
        out.append(mk("pointerAssign", self.target(_child(e, "E-1")), self.expr(_child(e, "E-2")), **ann))

    def call_statement(self, e, out):
        ann = self.ann(e)
        designator = _first(_child(e, "procedure-designator"))
        if designator is None or designator.tag != "named-E" or _child(designator, "R-LT") is not None:
            self.unsupported("type-bound procedure call", e)
        name = _name(_child(designator, "N"))
        spec = _child(e, "arg-spec")
        args = self.args(spec) if spec is not None else ()
        specific = self.specific(name, args)
        out.append(mk("call", specific, args, generic=name if specific != name else None, **ann))

    def if_statement(self, e, out):
        """Logical IF: if (c) stmt."""
        ann = self.ann(e)
        cond = self.expr(_child(e, "condition-E"))
        out.append(mk("if", cond, self.action(e), None, **ann))

    def if_construct(self, e, out):
        arms = []  # [condition or None, ann, statements]
        end_label = None
        for b in _kids(e):
            if b.tag == "C":
                self.comment(b, arms[-1][2] if arms else out)
                continue
            for k in _kids(b):
                if k.tag in ("if-then-stmt", "else-if-stmt"):
                    arms.append([self.expr(_child(k, "condition-E")), self.ann(k), []])
                elif k.tag == "else-stmt":
                    arms.append([None, self.ann(k), []])
                elif k.tag == "end-if-stmt":
                    if self.ending_piece():   # $AD CHECKPOINT-END closing the last arm
                        arms[-1][2].append(mk("nop", **self.ann(k)))
                    if self.label is not None:
                        end_label = mk("nop", **self.ann(k))
                elif k.tag == "C":
                    self.comment(k, arms[-1][2])
                elif k.tag == "label":
                    self.label = _label(k)
                else:
                    self.statement(k, arms[-1][2])
        out.append(_nested("if", [(cond, ann, mk("block", *stmts)) for cond, ann, stmts in arms]))
        if end_label is not None:
            out.append(end_label)

    def loop(self, header, body, ann) -> Node:
        test = _child(header, "test-E")
        if test is not None:
            return mk("while", self.expr(test), body, **ann)
        var = _child(header, "do-V")
        if var is None:
            return mk("while", mk("boolCst", True), body, **ann)
        step = _child(header, "step")
        return mk("do", self.expr(var), self.expr(_child(header, "lower-bound")), self.expr(_child(header, "upper-bound")),
                  None if step is None else self.expr(step), body, **ann)

    def do_construct(self, e, out):
        header = _first(e)
        ann = self.ann(header)
        construct = _first(header, "N")
        self.loop_names.append(None if construct is None else _name(construct))
        stmts = []
        for k in _kids(e):
            if k is header:
                continue
            if k.tag == "end-do-stmt":
                if self.label is not None or self.ending_piece():
                    stmts.append(mk("nop", **self.ann(k)))  # a GOTO target, a piece's end at the end of the body
            elif k.tag == "C":
                self.comment(k, stmts)
            elif k.tag == "label":
                self.label = _label(k)
            else:
                self.statement(k, stmts)
        self.loop_names.pop()
        out.append(self.loop(header, mk("block", *stmts), ann))

    def loop_jump(self, e, out):
        """EXIT / CYCLE; a construct name is accepted when it names the innermost loop."""
        ann = self.ann(e)
        op = "exit" if e.tag == "exit-stmt" else "cycle"
        named = e.find(".//N")
        if named is not None and (not self.loop_names or self.loop_names[-1] != _name(named)):
            self.unsupported(f"{op.upper()} of an outer named loop", e)
        out.append(mk(op, **ann))

    def continue_statement(self, e, out):
        out.append(mk("nop", **self.ann(e)))

    def goto(self, e, out):
        ann = self.ann(e)
        out.append(mk("goto", _label(_child(e, "label")), **ann))

    def computed_goto(self, e, out):
        ann = self.ann(e)
        index = self.scalar_of(_child(e, "test-E"), ("integer",), "the index of a computed GOTO")
        out.append(mk("computedGoto", self.jump_labels(e), index, **ann))

    def arithmetic_if(self, e, out):
        ann = self.ann(e)
        value = self.scalar_of(_child(e, "numeric-E"), ("integer", "real"), "the expression of an arithmetic IF")
        labels = self.jump_labels(e)
        if len(labels) != 3:
            self.syntax_error("an arithmetic IF takes three labels", e)
        out.append(mk("arithmeticIf", value, *labels, **ann))

    def jump_labels(self, e) -> tuple:
        return tuple(_label(k) for k in _kids(_child(e, "label-LT")) if k.tag == "label")

    def scalar_of(self, e, bases, what) -> Node:
        """The expression of e, refused where its declared type is not a scalar of one of bases."""
        value = self.expr(e)
        found = self.type_of(value)
        if found is not None and (found[0] not in bases or found[2] != 0):
            self.syntax_error(f"{what} must be a scalar {' or '.join(bases)}", e)
        return value

    def return_statement(self, e, out):
        ann = self.ann(e)
        if _kids(e):
            self.unsupported("alternate RETURN", e)
        out.append(mk("return", None, **ann))

    def stop(self, e, out):
        ann = self.ann(e)
        code = _child(e, "stop-code")
        node = None
        if code is not None:
            inner = _first(code)
            if inner is None:
                node = mk("intCst", int(_text(code)), None)
            elif inner.tag == "S":
                node = self.string(code)
            else:
                node = self.expr(inner)
        out.append(mk("stop", node, **ann))

    def allocate(self, e, out):
        ann = self.ann(e)
        if _child(e, "T-spec") is not None or "=" in _own_text(_child(e, "arg-spec")):
            self.unsupported("ALLOCATE with a type or STAT=/SOURCE= options", e)
        for a in _kids(_child(e, "arg-spec")):
            ref = _first(a)
            if _child(ref, "arg-N") is not None or _child(a, "arg-N") is not None:
                self.unsupported("ALLOCATE with a type or STAT=/SOURCE= options", e)
            refs = _kids(_child(ref, "R-LT")) if _child(ref, "R-LT") is not None else []
            shape = refs[-1] if refs and refs[-1].tag in ("parens-R", "array-R") else None
            target = self.designator(ref, refs[:-1] if shape is not None else refs)
            dims = ()
            if shape is not None:
                dims = tuple(mk("dim", lo, hi) for lo, hi in self.bounds(shape))
            out.append(mk("allocate", target, dims, None, **ann))

    def bounds(self, r):
        """(lo or None, hi) of each subscript of an ALLOCATE shape."""
        out = []
        for s in _kids(_first(r)):
            lo, hi = _child(s, "lower-bound"), _child(s, "upper-bound")
            if ":" in _own_text(s):
                out.append((None if lo is None else self.expr(lo), self.expr(hi)))
            else:
                out.append((None, self.expr(lo if lo is not None else s)))
        return out

    def deallocate(self, e, out):
        ann = self.ann(e)
        for a in _kids(_child(e, "arg-spec")):
            if _child(a, "arg-N") is not None:
                self.unsupported("DEALLOCATE with STAT= options", e)
            out.append(mk("deallocate", self.target(a), **ann))

    def nullify(self, e, out):
        ann = self.ann(e)
        for a in _kids(_child(e, "arg-spec")):
            out.append(mk("pointerAssign", self.target(a), mk("intrinsic", "null", ()), **ann))

    def io(self, e, out):
        kind = _IO_KINDS[e.tag]
        ann = self.ann(e)
        if kind == "format":
            control = _text(_child(e, "format-spec")).strip()
            control = control[1:-1] if control.startswith("(") and control.endswith(")") else control
        else:
            spec = next((k for k in _kids(e) if k.tag.endswith("-spec-spec") or k.tag in ("io-control-spec", "format")),
                        None)
            control = "" if spec is None else _text(spec).strip()
            if spec is None and kind in ("rewind", "backspace", "endfile"):
                control = re.sub(rf"^\s*{kind}\s*", "", _text(e), flags=re.IGNORECASE)
        listing = next((k for k in _kids(e) if k.tag in ("output-item-LT", "input-item-LT")), None)
        listing = _kids(listing) if listing is not None else []
        if kind == "read" and spec is None and listing:  # READ fmt, items: fxtran lists the format first
            control, listing = _text(listing[0]).strip(), listing[1:]
        items = tuple(self.expr(x) for x in listing)
        out.append(mk("io", kind, control, items, **ann))

    def select_case(self, e, out):
        blocks = [b for b in _kids(e) if b.tag == "selectcase-block"]
        header = _child(blocks[0], "select-case-stmt")
        ann = self.ann(header)
        selector = self.expr(_child(header, "case-E"))
        cases = []
        for b in blocks[1:]:
            case = _child(b, "case-stmt")
            case_ann = self.ann(case)
            values = ()
            ranges = case.find(".//case-value-range-LT")
            if ranges is not None:
                values = tuple(self.case_value(r) for r in _kids(ranges))
            cases.append(mk("case", values, self.block(b, skip=("case-stmt", "end-select-case-stmt")), **case_ann))
        out.append(mk("switch", selector, tuple(cases), False, **ann))

    def case_value(self, r):
        ends = [k for k in _kids(r) if k.tag == "case-value"]
        if ":" not in _own_text(r):
            return self.expr(ends[0])
        lo, hi = (ends + [None, None])[:2]
        return mk("caseRange", None if lo is None or _first(lo) is None else self.expr(lo),
                  None if hi is None or _first(hi) is None else self.expr(hi))

    def where_construct(self, e, out):
        arms = []  # [mask or None, ann, block]
        for b in _kids(e):
            if b.tag != "where-block":
                continue
            header = _first(b)
            mask = _child(header, "mask-E")
            arms.append([None if mask is None else self.expr(mask), self.ann(header),
                         self.block(b, skip=(header.tag, "end-where-stmt"))])
        out.append(_nested("where", arms))

    def where_statement(self, e, out):
        ann = self.ann(e)
        out.append(mk("where", self.expr(_child(e, "mask-E")), self.action(e), None, **ann))

    def forall(self, e, out):
        header = _child(e, "forall-construct-stmt") if e.tag == "forall-construct" else e
        ann = self.ann(header)
        ranges = tuple(mk("impliedDo", (), self.expr(_child(t, "V")), self.expr(_child(t, "lower-bound")),
                          self.expr(_child(t, "upper-bound")),
                          None if _child(t, "step") is None and _child(t, "stride") is None
                          else self.expr(_child(t, "step") if _child(t, "step") is not None else _child(t, "stride")))
                       for t in header.iter("forall-triplet-spec"))
        mask = _child(header, "mask-E")
        if e.tag == "forall-construct":
            body = self.block(e, skip=("forall-construct-stmt", "end-forall-stmt"))
        else:
            body = self.action(e)
        out.append(mk("forall", ranges, None if mask is None else self.expr(mask), body, **ann))

    # --- expressions ------------------------------------------------------------------------
    def expr(self, e) -> Node:
        tag = e.tag
        while tag in _WRAPPERS:
            inner = _first(e)
            if inner is None:
                if tag == "data-stmt-repeat" or tag == "stop-code":
                    return mk("intCst", int(_text(e)), None)
                self.syntax_error(f"missing expression near '{_text(e)}'", e)
            e = inner
            tag = e.tag
        handler = _EXPRESSIONS.get(tag)
        if handler is None:
            self.unsupported(_construct_name(tag), e)
        return handler(self, e)

    def target(self, e) -> Node:
        """An assigned/allocated object: a subscripted name here is always an array."""
        while e.tag in _WRAPPERS:
            e = _first(e)
        if e.tag == "named-E":
            refs = _child(e, "R-LT")
            return self.designator(e, _kids(refs) if refs is not None else [])
        return self.expr(e)

    def operation(self, e) -> Node:
        tokens = []
        for k in e:
            tag = k.tag
            if tag == "op":
                tokens.append((True, _operator(k)))
            elif tag not in _NOT_CODE:
                tokens.append((False, k))
        node, pos = self.precedence(tokens, 0, 0, e)
        if pos != len(tokens):
            self.syntax_error(f"cannot read the expression '{_text(e)}'", e)
        return node

    def precedence(self, tokens, pos, min_prec, e):
        """Precedence climbing over fxtran's flat operator expression."""
        if pos >= len(tokens):
            self.syntax_error(f"missing operand in '{_text(e)}'", e)
        is_op, value = tokens[pos]
        if is_op:
            if value not in _UNARY:
                self.unsupported(f"defined operator {value}", e)
            op, operand_prec = _UNARY[value]
            operand, pos = self.precedence(tokens, pos + 1, operand_prec, e)
            node = mk(op, operand)
        else:
            node, pos = self.expr(value), pos + 1
        while pos < len(tokens):
            is_op, value = tokens[pos]
            spec = _BINARY.get(value)
            if spec is None:
                self.unsupported(f"defined operator {value}", e)
            op, prec, right = spec
            if prec < min_prec:
                break
            operand, pos = self.precedence(tokens, pos + 1, prec if right else prec + 1, e)
            node = Node(op, (node, operand))
        return node, pos

    def literal(self, e) -> Node:
        if len(e) == 1 and e[0].tag == "l" and not len(e[0]):
            # the common case: no kind suffix. IL leaves are immutable, so one node per spelling
            node = self.plain_literals.get(e[0].text)
            if node is None:
                node = self.plain_literals[e[0].text] = self.literal_node(e)
            return node
        return self.literal_node(e)

    def literal_node(self, e) -> Node:
        text = _first(e, "l")
        kind_e = _child(e, "K-spec")
        suffix = None if kind_e is None else _text(kind_e)
        if text is None:
            word = _own_text(e).strip().lower()
            if word.startswith(".t") or word.startswith(".f"):
                return mk("boolCst", word.startswith(".t"))
            self.unsupported(f"literal {_text(e)}", e)
        text = _text(text).strip()
        low = text.lower()
        if low.startswith((".t", ".f")):
            return mk("boolCst", low.startswith(".t"))
        if low[:1] in "bozx" or low.endswith(("'", '"')):
            self.unsupported("BOZ literal", e)
        if re.fullmatch(r"\d+", text):
            return mk("intCst", int(text), self.kind_suffix(suffix))
        canonical, kind = _canonical_real(text)
        if suffix is not None:
            kind = self.kind_suffix(suffix)
        return mk("realCst", canonical, kind)

    def string(self, e) -> Node:
        text = _text(_child(e, "S")).strip()
        quote = text[0]
        return mk("stringCst", text[1:-1].replace(quote + quote, quote))

    def parenthesis(self, e) -> Node:
        iterator = _child(e, "iterator")
        if iterator is not None:
            return self.implied_do(iterator)
        elements = _child(e, "element-LT")
        if elements is not None:
            parts = _kids(elements)
            if len(parts) == 2:
                return mk("complexCst", self.expr(parts[0]), self.expr(parts[1]))
            self.syntax_error(f"cannot read '{_text(e)}'", e)
        return self.expr(_first(e))  # grouping is kept by the tree shape

    def implied_do(self, iterator) -> Node:
        parts = _kids(_child(iterator, "iterator-definition-LT"))
        at = next((i for i, p in enumerate(parts) if _child(p, "V-N") is not None), None)
        if at is None or len(parts) < at + 2:
            self.syntax_error(f"cannot read the implied DO '{_text(iterator)}'", iterator)
        control = parts[at]
        var = mk("ident", _name(_child(control, "V-N")))
        bound = next((k for k in _kids(control) if k.tag != "V-N"), None)
        if bound is None:  # `I =, 1, 4`
            self.syntax_error(f"implied DO '{_text(iterator)}' has no lower bound", iterator)
        lo = self.expr(bound)
        step = self.expr(parts[at + 2]) if len(parts) > at + 2 else None
        return mk("impliedDo", tuple(self.expr(p) for p in parts[:at]), var, lo, self.expr(parts[at + 1]), step)

    def array_constructor(self, e) -> Node:
        values = _child(e, "ac-value-LT")
        return mk("arrayConstructor", tuple(self.expr(v) for v in _kids(values)) if values is not None else ())

    def args(self, spec) -> tuple:
        """Actual arguments of a call or a function reference (element-LT or arg-spec)."""
        out = []
        for a in _kids(spec):
            keyword = _child(a, "arg-N")
            if keyword is not None:
                value = next((k for k in _kids(a) if k.tag != "arg-N"), None)
                if value is None:
                    self.syntax_error(f"keyword argument {_text(keyword).strip()}= has no value", a)
                out.append(mk("namedArg", _text(keyword).strip().lower(), self.expr(value)))
            else:
                out.append(self.expr(a))
        return tuple(out)

    def subscripts(self, r) -> tuple:
        """Subscripts of an array reference: expressions and sections lo:hi:stride."""
        out = []
        for s in _kids(_first(r)):
            if s.tag != "section-subscript" or ":" not in _own_text(s):
                out.append(self.expr(s))
                continue
            lo, hi = _child(s, "lower-bound"), _child(s, "upper-bound")
            stride = _child(s, "stride") if _child(s, "stride") is not None else _child(s, "step")
            out.append(mk("arrayTriplet", *(None if x is None else self.expr(x) for x in (lo, hi, stride))))
        return tuple(out)

    def named(self, e) -> Node:
        if len(e) == 1:
            return self.ident(_name(e[0]))
        refs = _child(e, "R-LT")
        refs = _kids(refs) if refs is not None else []
        name = _name(_child(e, "N"))
        if not refs:
            return self.ident(name)
        first = refs[0]
        if first.tag == "parens-R" and len(refs) == 1:
            spec = _first(first)
            return self.reference(name, spec, first)
        return self.designator(e, refs)

    def ident(self, name) -> Node:
        node = self.idents.get(name)
        if node is None:  # IL leaves are immutable: one node per name
            node = self.idents[name] = Node("ident", (name,))
        return node

    def designator(self, e, refs) -> Node:
        """name(subscripts)%field(subscripts)...: array accesses and field accesses."""
        node = self.ident(_name(_child(e, "N")))
        for r in refs:
            if r.tag == "component-R":
                node = mk("fieldAccess", node, _text(_child(r, "ct")).strip().lower())
            elif r.tag in ("parens-R", "array-R"):
                node = Node("arrayAccess", (node, self.subscripts(r) if _first(r) is not None else ()))
            else:
                self.unsupported(_construct_name(r.tag), r)
        return node

    def reference(self, name, spec, r):
        """name(args): array access, statement function, intrinsic or user call, from what
        the scopes declare."""
        what = self.scope.lookup(name, "names")
        if what in (ARRAY, CHAR):
            return Node("arrayAccess", (self.ident(name), self.subscripts(r) if spec is not None else ()))
        args = self.args(spec) if spec is not None else ()
        expansion = self.scope.lookup(name, "stmt_functions")
        if expansion is not None:
            dummies, body, dummy_types = expansion
            if len(dummies) != len(args):
                self.unsupported(f"statement function {name} called with {len(args)} arguments", r)
            self.check_statement_function_arguments(name, zip(dummies, dummy_types), args, r)
            return substituted(body, dict(zip(dummies, args)))  # statement function expansion
        if what == TYPE:
            self.unsupported("structure constructor", r)
        if what == INTRINSIC or (what is None and name in FORTRAN_INTRINSICS):
            return mk("intrinsic", name, args)
        specific = self.specific(name, args)
        return mk("call", specific, args, generic=name if specific != name else None)

    # --- generic interfaces ------------------------------------------------------------------
    def specific(self, name, args) -> str:
        """The specific procedure a generic name stands for, chosen by the actual arguments'
        types; other names are returned as they are."""
        specifics = self.scope.lookup(name, "generics")
        if not specifics:
            return name
        actual = tuple(self.type_of(a) for a in args if a.op != "namedArg")
        matches = [s for s in specifics if _signature_matches(self.signature(s), actual)]
        if len(matches) != 1:
            shown = ", ".join("?" if t is None else f"{t[0]}({t[1] or 'default'}){'[]' * t[2]}" for t in actual)
            self.unsupported(f"call of generic {name}({shown}): {'no' if not matches else 'several'} "
                             f"specific procedures match among {', '.join(specifics)}")
        return matches[0]

    def signature(self, proc_name):
        return self.scope.lookup(proc_name, "signatures")

    def type_of(self, node):
        """(base, kind, rank) of an actual argument, as far as the declarations tell (None:
        unknown); default kinds are 4."""
        op = node.op
        if op == "realCst":
            return ("real", node.kids[1], 0)
        if op == "intCst":
            return ("integer", node.kids[1] or 4, 0)
        if op == "boolCst":
            return ("logical", 4, 0)
        if op == "ident":
            return _with_default_kind(self.scope.lookup(node.kids[0], "types") or self.implicit_type(node.kids[0]))
        if op == "call":
            found = self.scope.lookup(node.kids[0], "types")
            return None if found is None else _with_default_kind(found[:2] + (0,))
        if op == "intrinsic":
            return self.intrinsic_type(node.kids[0], node.kids[1])
        if op == "arrayAccess" and node.kids[0].op == "ident":
            declared = self.type_of(node.kids[0])
            rank = sum(1 for s in node.kids[1] if s.op == "arrayTriplet")
            return None if declared is None else (declared[0], declared[1], rank)
        if op in ("neg", "pos"):
            return self.type_of(node.kids[0])
        if op in ("add", "sub", "mul", "div", "power"):
            left, right = self.type_of(node.kids[0]), self.type_of(node.kids[1])
            if left is None or right is None:
                return None
            order = ("integer", "real", "complex")
            base = max(left[0], right[0], key=lambda b: order.index(b) if b in order else -1)
            kind = max(t[1] for t in (left, right) if t[0] == base)
            return (base, kind, max(left[2], right[2]))
        return None

    def intrinsic_type(self, name, args):
        """Result type of an intrinsic: conversions and reductions by name, the elemental
        functions that of their first argument."""
        if name in _CONVERSIONS:
            base, kind = _CONVERSIONS[name]
            rank = self.type_of(args[0])[2] if args and self.type_of(args[0]) else 0
            return (base, kind, rank)
        first = self.type_of(args[0]) if args and args[0].op != "namedArg" else None
        if first is None:
            return None
        return first[:2] + (0,) if name in _REDUCTIONS else first

    @staticmethod
    def implicit_type(name):
        return ("integer", 4, 0) if name[:1] in "ijklmn" else ("real", 4, 0)


_CONVERSIONS = {"int": ("integer", 4), "nint": ("integer", 4), "floor": ("integer", 4), "ceiling": ("integer", 4),
                "real": ("real", 4), "float": ("real", 4), "sngl": ("real", 4), "dble": ("real", 8),
                "dfloat": ("real", 8)}
_NUMERIC = frozenset({"integer", "real", "complex", "logical"})
_CONVERTERS = {("real", 8): "dble", ("real", 4): "real", ("integer", 4): "int"}
_REDUCTIONS = frozenset("sum product maxval minval dot_product norm2 size count".split())


def _with_default_kind(t):
    return None if t is None else (t[0], t[1] or 4, t[2])


def _signature_matches(signature, actual) -> bool:
    """The dummy types of a specific procedure accept the actual arguments (those of unknown
    type match anything)."""
    if signature is None or len(actual) > len(signature):
        return False
    return all(a is None or (a[0], a[1], a[2]) == (d[0], d[1] or 4, d[2]) for a, d in zip(actual, signature))


_C = _Converter
_DECLARATIONS = {
    "use-stmt": _C.use, "implicit-stmt": _C.implicit, "implicit-none-stmt": _C.implicit,
    "T-decl-stmt": _C.type_declaration, "T-construct": _C.derived_type, "common-stmt": _C.common,
    "equivalence-stmt": _C.equivalence, "intent-stmt": _C.attribute_statement,
    "parameter-stmt": _C.parameter_statement, "DIM-stmt": _C.dimension_statement,
    "data-stmt": _C.data, "interface-construct": _C.interface,
}
_DECLARATIONS.update({tag: _C.attribute_statement for tag in _ATTRIBUTE_STATEMENTS})
_STATEMENTS = {
    "a-stmt": _C.assignment, "pointer-a-stmt": _C.pointer_assignment, "call-stmt": _C.call_statement,
    "if-stmt": _C.if_statement, "if-construct": _C.if_construct,
    "do-construct": _C.do_construct, "do-label-construct": _C.do_construct,
    "continue-stmt": _C.continue_statement, "exit-stmt": _C.loop_jump, "cycle-stmt": _C.loop_jump,
    "goto-stmt": _C.goto, "computed-goto-stmt": _C.computed_goto, "arithmetic-if-stmt": _C.arithmetic_if,
    "return-stmt": _C.return_statement, "stop-stmt": _C.stop,
    "allocate-stmt": _C.allocate, "deallocate-stmt": _C.deallocate, "nullify-stmt": _C.nullify,
    "selectcase-construct": _C.select_case, "where-construct": _C.where_construct,
    "where-stmt": _C.where_statement, "forall-construct": _C.forall, "forall-stmt": _C.forall,
}
_STATEMENTS.update({tag: _C.io for tag in _IO_KINDS})
_EXPRESSIONS = {
    "named-E": _C.named, "literal-E": _C.literal, "string-E": _C.string, "op-E": _C.operation,
    "parens-E": _C.parenthesis, "array-constructor-E": _C.array_constructor,
    "star-E": lambda self, e: mk("star"),
}
del _C
