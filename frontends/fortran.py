"""Fortran front end: source text -> IL `file` node, through fparser2 (F2008 grammar).

fparser builds a concrete syntax tree; `_Converter` turns it into IL in one linear walk,
dispatching on the fparser class name. The only context it keeps is a chain of symbol
scopes (procedure -> host -> modules USEd from the same file), filled by the declarations
it has already converted, to tell `a(i)` the array access from `f(i)` the function call
(fparser parses both as `Part_Ref`) and to resolve kind parameters such as `real(dp)`.
"""
from __future__ import annotations

import re

from fparser.common.readfortran import FortranStringReader
from fparser.common.sourceinfo import FortranFormat
from fparser.two.parser import ParserFactory
from fparser.two.symbol_table import SYMBOL_TABLES
from fparser.two.utils import FparserException

from ..engine.errors import SourceError, UnsupportedError
from ..engine.il import Node, mk
from ..engine.intrinsics import FORTRAN_INTRINSICS

__all__ = ["parse_fortran"]

FIXED_FORM_COLUMNS = 72  # standard fixed form ignores columns 73-80 (sequence numbers)

_PARSER = None


def _parser():
    """The fparser2 parser class; creating it is slow, so once per process."""
    global _PARSER
    if _PARSER is None:
        _PARSER = ParserFactory().create(std="f2008")
    return _PARSER


class _ReaderError(Exception):
    def __init__(self, message, line):
        super().__init__(message)
        self.line = line


class _Reader(FortranStringReader):
    """fparser's reader logs errors and calls sys.exit(); raise instead."""

    def error(self, message, item=None):
        line = item.span[0] if item is not None else self.linecount
        raise _ReaderError(message, line)


_SYNTAX_LINE = re.compile(r"at line (\d+)")


def _fparser_tree(text: str, filename: str, form: str):
    if form == "fixed":
        # Truncate statement lines at column 72; comment lines keep their full text.
        text = "\n".join(ln if ln[:1] in "cC*!" else ln[:FIXED_FORM_COLUMNS]
                         for ln in text.split("\n"))
    reader = _Reader(text, ignore_comments=False)
    # Non-strict fixed form keeps comments (strict F77 mode drops some) and '!' comments.
    reader.set_format(FortranFormat(form != "fixed", False))
    parser = _parser()
    SYMBOL_TABLES.clear()  # fparser's global tables would otherwise leak across files
    try:
        return parser(reader)
    except _ReaderError as e:
        message = str(e).replace(" Ignoring.", "")
        raise SourceError(f"Fortran syntax error: {message}", filename, e.line) from None
    except FparserException as e:
        message = str(e)
        m = _SYNTAX_LINE.search(message)
        line = int(m.group(1)) if m else reader.linecount
        src = message.split(">>>", 1)[1].strip() if ">>>" in message else ""
        detail = f" near '{src}'" if src else f" ({message.strip()})" if message.strip() else ""
        raise SourceError(f"Fortran syntax error{detail}", filename, line) from None
    except (RecursionError, Exception) as e:  # fparser bugs must not escape as crashes
        raise SourceError(f"cannot parse Fortran ({type(e).__name__}: {e})", filename,
                          reader.linecount) from None
    finally:
        SYMBOL_TABLES.clear()


def parse_fortran(text: str, filename: str = "<string>", form: str = "free") -> Node:
    """Parse Fortran source text (form 'free' or 'fixed') to an IL `file` node."""
    if form not in ("free", "fixed"):
        raise ValueError(f"unknown Fortran source form {form!r}")
    if not text.strip():
        raise SourceError("empty source file", filename, 1)
    tree = _fparser_tree(text, filename, form)
    if tree is None:
        raise SourceError("no Fortran program unit found", filename, 1)
    return _Converter(filename, form).file(tree)


# ---------------------------------------------------------------------------
# Symbol scopes
# ---------------------------------------------------------------------------
ARRAY, VAR, CHAR, TYPE, INTRINSIC, EXTERNAL = "array", "var", "char", "type", "intrinsic", "external"


class _Scope:
    """Names declared in one program unit: what each is, and integer parameter values."""

    __slots__ = ("names", "params", "parent", "used", "uses_other_files")

    def __init__(self, parent=None):
        self.names = {}
        self.params = {}
        self.parent = parent
        self.used = []  # module scopes made visible by USE
        self.uses_other_files = False  # USE of a module not in this file: names unknown

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
            for module in scope.used:
                found = getattr(module, table).get(name)
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
_BINARY_OPS = {
    "+": "add", "-": "sub", "*": "mul", "/": "div", "**": "power", "//": "concat",
    "==": "eq", ".EQ.": "eq", "/=": "ne", ".NE.": "ne", "<": "lt", ".LT.": "lt",
    "<=": "le", ".LE.": "le", ">": "gt", ".GT.": "gt", ">=": "ge", ".GE.": "ge",
    ".AND.": "and", ".OR.": "or", ".EQV.": "eqv", ".NEQV.": "neqv",
}
_UNARY_OPS = {"-": "neg", "+": "pos", ".NOT.": "not"}

_TYPE_BASES = {
    "INTEGER": ("integer", None), "REAL": ("real", None), "DOUBLEPRECISION": ("real", 8),
    "COMPLEX": ("complex", None), "DOUBLECOMPLEX": ("complex", 8),
    "LOGICAL": ("logical", None), "CHARACTER": ("character", None),
}
_SIMPLE_ATTRS = frozenset("parameter save pointer allocatable target optional external "
                          "intrinsic public private contiguous volatile value protected".split())

# Recognised constructs the IL has no place for, with the name users know them by.
_UNSUPPORTED_NAMES = {
    "Case_Construct": "SELECT CASE", "Select_Type_Construct": "SELECT TYPE",
    "Computed_Goto_Stmt": "computed GOTO", "Assigned_Goto_Stmt": "assigned GOTO",
    "Arithmetic_If_Stmt": "arithmetic IF", "Stmt_Function_Stmt": "statement function",
    "Where_Construct": "WHERE", "Where_Stmt": "WHERE", "Forall_Construct": "FORALL",
    "Forall_Stmt": "FORALL", "Interface_Block": "INTERFACE block", "Entry_Stmt": "ENTRY",
    "Data_Stmt": "DATA statement", "Format_Stmt": "FORMAT statement",
    "Associate_Construct": "ASSOCIATE", "Block_Construct": "BLOCK construct",
    "Block_Data": "BLOCK DATA", "Namelist_Stmt": "NAMELIST",
    "Io_Implied_Do": "implied DO in an I/O list", "Ac_Implied_Do": "implied DO in an array constructor",
    "Procedure_Designator": "type-bound procedure call", "Submodule": "SUBMODULE",
    "Boz_Literal_Constant": "BOZ literal",
}


def _construct_name(class_name):
    if class_name in _UNSUPPORTED_NAMES:
        return _UNSUPPORTED_NAMES[class_name]
    if class_name.endswith("_Stmt"):
        return class_name[:-5].replace("_", " ").upper() + " statement"
    return class_name.replace("_Construct", " construct").replace("_", " ")


def _seq(f):
    """The elements of an fparser list node (or the node itself when it is a single item)."""
    if f is None:
        return ()
    if type(f).__name__.endswith("_List"):
        return f.items
    return (f,)


def _label(item):
    """The statement label of an fparser reader item (comments and missing items have none)."""
    return getattr(item, "label", None)


def _name(f) -> str:
    return f.string.lower()


def _first_line(f):
    """Line of the first statement inside f (only used to report errors)."""
    while f is not None and not isinstance(f, str):
        item = getattr(f, "item", None)
        if item is not None:
            return item.span[0]
        kids = getattr(f, "children", None) or getattr(f, "items", None)
        f = kids[0] if kids else None
    return None


def _comment_text(raw: str, form: str) -> str:
    """The comment without its marker and the one space that usually follows it (the
    back end writes '! ' + text), so that comments survive a round trip unchanged."""
    text = raw.lstrip()
    if text.startswith("!"):
        text = text[1:]
    elif form == "fixed" and raw[:1] in "cC*":
        text = raw[1:]
    return text[1:] if text.startswith(" ") else text


def _outside_strings(text: str, start: int = 0):
    """(position, character, parenthesis depth after it) of every character of text[start:]
    that is not inside a string literal."""
    depth, quote = 0, None
    for i in range(start, len(text)):
        ch = text[i]
        if quote:
            if ch == quote:
                quote = None
            continue
        if ch in "'\"":
            quote = ch
            continue
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        yield i, ch, depth


def _balanced(text: str, start: int) -> str:
    """The text inside the parentheses opening at text[start], skipping strings."""
    for i, ch, depth in _outside_strings(text, start):
        if ch == ")" and depth == 0:
            return text[start + 1:i]
    return text[start + 1:]


def _until_comma(text: str) -> str:
    """The text up to the first top-level comma (a PRINT or READ format)."""
    for i, ch, depth in _outside_strings(text):
        if ch == "," and depth == 0:
            return text[:i].strip()
    return text.strip()


_IO_KEYWORD = {kind: re.compile(rf"\b{kind}\b\s*", re.IGNORECASE) for kind in ("print", "write", "read")}


def _io_control(line: str, kind: str) -> str:
    """The raw control text of an I/O statement: inside WRITE(...)/READ(...), or the format
    of PRINT fmt, ... / READ fmt, ..."""
    m = None
    for m in _IO_KEYWORD[kind].finditer(line):
        pass  # the last match: a logical IF's condition comes before the I/O keyword
    if m is None:
        return ""
    rest = line[m.end():]
    if kind != "print" and rest.startswith("("):
        return _balanced(rest, 0).strip()
    return _until_comma(rest)


# ---------------------------------------------------------------------------
# The converter
# ---------------------------------------------------------------------------
class _Converter:
    """One linear walk over an fparser tree building IL."""

    def __init__(self, filename: str, form: str):
        self.filename = filename
        self.form = form
        self.scope = _Scope()
        self.modules = {}  # module name -> _Scope, for USE of a module of the same file
        self.line = None  # line of the statement being converted (for errors)
        self.text = ""  # its source text (for I/O control text)
        self.directives = []  # $AD directives waiting for the next statement
        self.loop_names = []  # construct names of the enclosing DO loops

    # --- errors and annotations ------------------------------------------------------
    def unsupported(self, what, f=None):
        line = _first_line(f) if f is not None else None
        raise UnsupportedError(f"{what} is not supported", self.filename, line or self.line)

    def ann(self, item):
        """Annotations of a statement: line, label, pending $AD directives."""
        if item is not None:
            self.line = item.span[0]
            self.text = item.line
            label = _label(item)
        else:
            label = None
        directives = tuple(self.directives)
        self.directives.clear()
        return {"line": self.line, "label": None if label is None else str(label),
                "directives": directives}

    # --- file and program units --------------------------------------------------------
    def file(self, tree) -> Node:
        units = []
        for f in tree.children:
            self.unit(f, units)
        return mk("file", *units, lang="fortran", form=self.form, filename=self.filename)

    def unit(self, f, out):
        cls = type(f).__name__
        if cls == "Comment":
            self.comment(f, out)
        elif cls == "Module":
            self.module(f, out)
        elif cls in _UNIT_KINDS:
            self.procedure(f, out)
        else:
            self.unsupported(_construct_name(cls), f)

    def module(self, f, out):
        start = self.header(f.children, out)
        header = f.children[start]
        ann = self.ann(header.item)
        name = _name(header.items[1])
        outer, self.scope = self.scope, _Scope(self.scope)
        self.modules[name] = self.scope
        decls, contains = [], []
        for part in f.children[start + 1:]:
            cls = type(part).__name__
            if cls == "Specification_Part":
                self.declarations(part.children, decls)
            elif cls == "Module_Subprogram_Part":
                self.contained(part.children, contains)
            elif cls == "Comment":
                self.comment(part, decls)
            elif cls != "End_Module_Stmt":
                self.unsupported(_construct_name(cls), part)
        self.scope = outer
        out.append(mk("module", name, tuple(decls), tuple(contains), **ann))

    def header(self, parts, out) -> int:
        """Index of a construct's first statement: fparser puts the comments that precede
        a construct inside it; they go to `out`, where they stand."""
        i = 0
        while type(parts[i]).__name__ == "Comment":
            self.comment(parts[i], out)
            i += 1
        return i

    def contained(self, parts, out):
        for f in parts:
            if type(f).__name__ != "Contains_Stmt":
                self.unit(f, out)

    def procedure(self, f, out):
        kind = _UNIT_KINDS[type(f).__name__]
        parts = f.children
        start = self.header(parts, out)
        parts = parts[start:]
        header = parts[0]
        name, params, result, rtype, attrs = "main", (), None, None, ()
        if type(header).__name__ in ("Subroutine_Stmt", "Function_Stmt", "Program_Stmt"):
            ann = self.ann(header.item)
            parts = parts[1:]
        else:  # a main program without PROGRAM statement
            self.line = _first_line(f)
            ann = self.ann(None)
            header = None
        outer, self.scope = self.scope, _Scope(self.scope)
        if header is not None:
            name = _name(header.items[1])
            if kind != "program":
                rtype, attrs = self.prefix(header.items[0])
                params = tuple(self.dummy_arg(a) for a in _seq(header.items[2]))
            if kind == "function":
                suffix = header.items[3]
                if suffix is not None and suffix.items[0] is not None:
                    result = _name(suffix.items[0])
                self.scope.declare(result or name, VAR)
        decls, stmts, contains = [], [], []
        for part in parts:
            cls = type(part).__name__
            if cls == "Specification_Part":
                self.declarations(part.children, decls)
            elif cls == "Execution_Part":
                self.statements(part.children, stmts)
            elif cls == "Internal_Subprogram_Part":
                self.contained(part.children, contains)
            elif cls == "Comment":
                self.comment(part, stmts)
            elif cls.startswith("End_"):
                if _label(part.item) is not None:
                    stmts.append(mk("nop", **self.ann(part.item)))  # GOTO target at END
            else:
                self.unsupported(_construct_name(cls), part)
        self.scope = outer
        out.append(mk("procedure", name, kind, params, result, rtype, attrs, tuple(decls),
                      mk("block", *stmts), tuple(contains), **ann))

    def dummy_arg(self, f):
        if isinstance(f, str) or type(f).__name__ != "Name":
            self.unsupported("alternate return")
        return _name(f)

    def prefix(self, f):
        """(result type, attributes) of a FUNCTION/SUBROUTINE prefix."""
        rtype, attrs = None, []
        for p in (f.items if f is not None and type(f).__name__ == "Prefix" else _seq(f)):
            if type(p).__name__ == "Prefix_Spec":
                attrs.append(str(p).lower())
            else:
                rtype = self.type_spec(p)[0]
        return rtype, tuple(attrs)

    # --- comments and directives -------------------------------------------------------
    def comment(self, f, out):
        raw = f.items[0] if f.items else ""
        if not raw.strip():
            return  # a blank line
        text = _comment_text(raw, self.form)
        if text.lstrip().upper().startswith("$AD"):
            self.directives.append(text.lstrip()[3:].strip().upper())
            return
        self.line = f.item.span[0] if f.item is not None else self.line
        out.append(mk("comment", text, line=self.line))

    # --- declarations --------------------------------------------------------------------
    def declarations(self, parts, out):
        for f in parts:
            handler = _DECLARATIONS.get(type(f).__name__)
            if handler is None:
                self.unsupported(_construct_name(type(f).__name__), f)
            handler(self, f, out)

    def implicit_part(self, f, out):
        self.declarations(f.children, out)

    def use(self, f, out):
        ann = self.ann(f.item)
        nature, _, module, only_kw, names = f.items
        if nature is not None:
            self.unsupported("USE with a module nature")
        module = _name(module)
        only = None
        if only_kw and "ONLY" in only_kw.upper():
            only = []
            for n in _seq(names):
                if type(n).__name__ != "Name":
                    self.unsupported("USE renaming")
                only.append(_name(n))
            only = tuple(only)
        elif names is not None:
            self.unsupported("USE renaming")
        if module in self.modules:
            self.scope.used.append(self.modules[module])
        else:
            self.scope.uses_other_files = True
        out.append(mk("use", module, only, **ann))

    def implicit(self, f, out):
        ann = self.ann(f.item)
        text = re.sub(r"^\s*implicit\s*", "", f.item.line, flags=re.IGNORECASE)
        out.append(mk("implicit", text.strip().lower(), **ann))

    def type_declaration(self, f, out):
        ann = self.ann(f.item)
        out.append(self.var_decl(f, ann))

    def var_decl(self, f, ann) -> Node:
        """A Type_Declaration_Stmt or a Data_Component_Def_Stmt (same shape) -> varDecl."""
        type_spec, attr_list, entities = f.items
        typ, is_char = self.type_spec(type_spec)
        attrs, attr_dims = self.attributes(attr_list)
        is_param = "parameter" in attrs
        declarators = []
        for e in _seq(entities):
            name_f, shape, char_len, init_f = e.items
            name = _name(name_f)
            if char_len is not None:
                self.unsupported("a character length on one declared name")
            dims = self.dims(shape) if shape is not None else attr_dims
            init = self.expr(init_f.items[1]) if init_f is not None else None
            if is_param and init_f is not None and typ.kids[0] == "integer":
                value = self.const_int(init_f.items[1])
                if value is not None:
                    self.scope.params[name] = value
            self.scope.declare(name, ARRAY if dims is not None else
                               INTRINSIC if "intrinsic" in attrs else
                               EXTERNAL if "external" in attrs else CHAR if is_char else VAR)
            declarators.append(mk("declarator", name, dims, init, 0))
        return mk("varDecl", typ, attrs, tuple(declarators), **ann)

    def attributes(self, f):
        """(attribute strings, dims of a DIMENSION attribute or None)."""
        attrs, dims = [], None
        for a in _seq(f):
            cls = type(a).__name__
            if cls.startswith("Dimension"):
                dims = self.dims(a.items[1])
            elif cls == "Intent_Attr_Spec":
                attrs.append("intent(" + str(a.items[1]).lower().replace(" ", "") + ")")
            else:
                text = str(a).lower()
                if text not in _SIMPLE_ATTRS:
                    self.unsupported(f"attribute {text.upper()}")
                attrs.append(text)
        return tuple(attrs), dims

    def type_spec(self, f):
        """(IL type node, is character) of an fparser type specification."""
        cls = type(f).__name__
        if cls == "Declaration_Type_Spec":
            if f.items[0].upper() != "TYPE":
                self.unsupported(f.items[0].upper() + " declarations")
            return mk("typeRef", _name(f.items[1])), False
        if cls != "Intrinsic_Type_Spec":
            self.unsupported(_construct_name(cls), f)
        base_kind = _TYPE_BASES.get(f.items[0].upper().replace(" ", ""))
        if base_kind is None:
            self.unsupported(f"type {f.items[0].upper()}")
        base, kind = base_kind
        selector = f.items[1]
        length = None
        if selector is not None:
            scls = type(selector).__name__
            if scls == "Kind_Selector":
                if selector.items[0] == "*":  # real*8; complex*16 counts both parts
                    size = selector.items[1]
                    if type(size).__name__ != "Int_Literal_Constant":
                        self.unsupported(f"type size *{size}")
                    kind = int(size.items[0])
                    if base == "complex":
                        kind //= 2
                else:
                    kind = self.kind_value(selector.items[1])
            elif scls == "Length_Selector":
                length = self.char_len(selector.items[1])
            elif scls == "Char_Selector":
                length = self.char_len(selector.items[0])
            else:
                self.unsupported(_construct_name(scls), f)
        return mk("type", base, kind, length), base == "character"

    def char_len(self, f):
        if f is None:
            return None
        cls = type(f).__name__
        if cls == "Char_Length":
            return self.char_len(f.items[1])
        if cls == "Type_Param_Value":
            if f.string == "*":
                return mk("star")
            self.unsupported("deferred character length")
        return self.expr(f)

    def kind_value(self, f) -> int:
        value = self.const_int(f)
        if value is None:
            self.unsupported(f"kind '{str(f).lower()}' (not a constant known in this file)")
        return value

    def kind_suffix(self, text):
        """Kind of a literal suffix (_8, _dp)."""
        if text is None:
            return None
        if text.isdigit():
            return int(text)
        value = self.scope.lookup(text.lower(), "params")
        if value is None:
            self.unsupported(f"kind '{text.lower()}' (not a constant known in this file)")
        return value

    def const_int(self, f):
        """Value of a constant integer expression (kind parameters), or None."""
        cls = type(f).__name__
        if cls == "Int_Literal_Constant":
            return int(f.items[0])
        if cls == "Name":
            return self.scope.lookup(_name(f), "params")
        if cls == "Parenthesis":
            return self.const_int(f.items[1])
        if cls in ("Level_2_Expr", "Add_Operand") and len(f.items) == 3:
            left, op, right = self.const_int(f.items[0]), f.items[1], self.const_int(f.items[2])
            if left is None or right is None:
                return None
            return {"+": left + right, "-": left - right, "*": left * right,
                    "/": left // right if right else None}.get(op)
        if cls == "Level_2_Unary_Expr" and f.items[0] == "-":
            value = self.const_int(f.items[1])
            return None if value is None else -value
        if cls == "Intrinsic_Function_Reference":
            return self.const_intrinsic(_name(f.items[0]), _seq(f.items[1]))
        return None

    def const_intrinsic(self, name, args):
        values = [a.items[1] if type(a).__name__ == "Actual_Arg_Spec" else a for a in args]
        if name == "kind" and values:
            cls = type(values[0]).__name__
            if cls == "Real_Literal_Constant":
                return self.real_literal(values[0]).kids[1]
            if cls in ("Int_Literal_Constant", "Logical_Literal_Constant"):
                return self.kind_suffix(values[0].items[1]) or 4
            return None
        ints = [self.const_int(v) for v in values]
        if not ints or ints[0] is None:
            return None
        if name == "selected_real_kind":
            return 4 if ints[0] <= 6 else 8 if ints[0] <= 15 else 16
        if name == "selected_int_kind":
            return 1 if ints[0] <= 2 else 2 if ints[0] <= 4 else 4 if ints[0] <= 9 else 8
        return None

    def dims(self, f):
        """Tuple of `dim` nodes of an array specification."""
        cls = type(f).__name__
        if cls == "Assumed_Size_Spec":  # (explicit dims..., lo:*)
            explicit, lo = f.items
            last = mk("dim", None if lo is None else self.expr(lo), mk("star"))
            return (self.dims(explicit) if explicit is not None else ()) + (last,)
        out = []
        for d in _seq(f):
            dcls = type(d).__name__
            if dcls in ("Explicit_Shape_Spec", "Assumed_Shape_Spec", "Deferred_Shape_Spec"):
                lo, hi = (d.items + (None, None))[:2]
                out.append(mk("dim", self.opt_expr(lo), self.opt_expr(hi)))
            else:
                self.unsupported(_construct_name(dcls), d)
        return tuple(out)

    def derived_type(self, f, out):
        start = self.header(f.children, out)
        header = f.children[start]
        ann = self.ann(header.item)
        attrs = header.items[0]
        if attrs is not None and "EXTENDS" in str(attrs).upper():
            self.unsupported("type extension (EXTENDS)")
        name = _name(header.items[1])
        fields = []
        for part in f.children[start + 1:]:
            cls = type(part).__name__
            if cls == "Component_Part":
                for c in part.children:
                    if type(c).__name__ == "Comment":
                        self.comment(c, fields)
                    elif type(c).__name__ == "Data_Component_Def_Stmt":
                        outer, self.scope = self.scope, _Scope(self.scope)  # fields: own names
                        fields.append(self.var_decl(c, self.ann(c.item)))
                        self.scope = outer
                    else:
                        self.unsupported(_construct_name(type(c).__name__), c)
            elif cls == "Comment":
                self.comment(part, fields)
            elif cls not in ("Sequence_Stmt", "Private_Components_Stmt", "End_Type_Stmt"):
                self.unsupported(_construct_name(cls), part)
        self.scope.declare(name, TYPE)
        out.append(mk("typeDef", name, tuple(fields), "fortran", **ann))

    def common(self, f, out):
        ann = self.ann(f.item)
        for block_name, objects in f.items[0]:
            members = []
            for o in _seq(objects):
                if type(o).__name__ == "Common_Block_Object":
                    name = _name(o.items[0])
                    bounds = tuple(d.hi if d.lo is None else mk("arrayTriplet", d.lo, d.hi, None)
                                   for d in self.dims(o.items[1]))
                    members.append(mk("arrayAccess", mk("ident", name), bounds))
                    self.scope.declare(name, ARRAY)
                else:
                    name = _name(o)
                    members.append(mk("ident", name))
                    self.scope.names.setdefault(name, VAR)
            block = "" if block_name is None else _name(block_name)
            out.append(mk("common", block, tuple(members), **ann))

    def equivalence(self, f, out):
        ann = self.ann(f.item)
        groups = tuple((self.target(g.items[0]),) + tuple(self.target(o) for o in _seq(g.items[1]))
                       for g in _seq(f.items[1]))
        out.append(mk("equivalence", groups, **ann))

    def attribute_statement(self, f, out):
        """EXTERNAL, INTRINSIC, SAVE, OPTIONAL, ... f1, f2 -> attrDecl."""
        ann = self.ann(f.item)
        cls = type(f).__name__
        if cls == "Intent_Stmt":
            attr = "intent(" + str(f.items[0]).lower().replace(" ", "") + ")"
        else:
            attr = f.items[0].lower()
        declarators = []
        for n in _seq(f.items[1]):
            dims = None
            if type(n).__name__ == "Name":
                name = _name(n)
            elif attr == "save" and str(n).startswith("/"):
                name = str(n).lower().replace(" ", "")  # a saved common block /name/
            elif type(n).__name__ in ("Target_Entity_Decl", "Allocatable_Decl", "Pointer_Decl"):
                name, dims = _name(n.items[0]), self.dims(n.items[1])
            else:
                self.unsupported(f"{attr.upper()} statement entity {str(n)!r}")
            if attr in (INTRINSIC, EXTERNAL):
                self.scope.declare(name, attr)
            elif dims is not None:
                self.scope.declare(name, ARRAY)
            declarators.append(mk("declarator", name, dims, None, 0))
        out.append(mk("attrDecl", attr, tuple(declarators), **ann))

    def parameter_statement(self, f, out):
        """PARAMETER (n = 10, ...) -> attrDecl('parameter', declarators with init)."""
        ann = self.ann(f.item)
        declarators = []
        for definition in _seq(f.items[1]):
            name_f, value_f = definition.items
            name = _name(name_f)
            value = self.const_int(value_f)
            if value is not None:
                self.scope.params[name] = value
            self.scope.names.setdefault(name, VAR)
            declarators.append(mk("declarator", name, None, self.expr(value_f), 0))
        out.append(mk("attrDecl", "parameter", tuple(declarators), **ann))

    def dimension_statement(self, f, out):
        """DIMENSION a(n), b(0:m) -> attrDecl('dimension', declarators with dims)."""
        ann = self.ann(f.item)
        declarators = []
        for name_f, shape in f.items[0]:
            name = _name(name_f)
            self.scope.declare(name, ARRAY)
            declarators.append(mk("declarator", name, self.dims(shape), None, 0))
        out.append(mk("attrDecl", "dimension", tuple(declarators), **ann))

    # --- statements ------------------------------------------------------------------------
    def statements(self, parts, out):
        for f in parts:
            self.statement(f, out)

    def statement(self, f, out):
        handler = _STATEMENTS.get(type(f).__name__)
        if handler is None:
            self.unsupported(_construct_name(type(f).__name__), f)
        handler(self, f, out)

    def block(self, parts) -> Node:
        stmts = []
        self.statements(parts, stmts)
        return mk("block", *stmts)

    def assignment(self, f, out):
        ann = self.ann(f.item)
        lhs = f.items[0]
        if (type(lhs).__name__ == "Part_Ref" and self.scope.lookup(_name(lhs.items[0])) is None
                and not self.scope.sees_unknown_names()):
            self.unsupported("statement function")  # f(x) = ... with f no declared array
        out.append(mk("assign", self.target(lhs), self.expr(f.items[2]), **ann))

    def pointer_assignment(self, f, out):
        ann = self.ann(f.item)
        if f.items[1] is not None:
            self.unsupported("pointer assignment with bounds")
        out.append(mk("pointerAssign", self.target(f.items[0]), self.expr(f.items[2]), **ann))

    def call_statement(self, f, out):
        ann = self.ann(f.item)
        if type(f.items[0]).__name__ != "Name":
            self.unsupported(_construct_name(type(f.items[0]).__name__))
        out.append(mk("call", _name(f.items[0]), self.args(f.items[1]), **ann))

    def if_statement(self, f, out):
        """Logical IF: if (c) stmt."""
        ann = self.ann(f.item)
        cond = self.expr(f.items[0])
        out.append(mk("if", cond, self.block((f.items[1],)), None, **ann))

    def if_construct(self, f, out):
        # Split the flat content at each ELSE IF / ELSE into (condition, ann, statements).
        arms = []
        end_label = None
        for part in f.children[self.header(f.children, out):]:
            cls = type(part).__name__
            if cls in ("If_Then_Stmt", "Else_If_Stmt"):
                arms.append([self.expr(part.items[0]), self.ann(part.item), []])
            elif cls == "Else_Stmt":
                arms.append([None, self.ann(part.item), []])
            elif cls == "End_If_Stmt":
                if _label(part.item) is not None:
                    end_label = mk("nop", **self.ann(part.item))
            else:
                self.statement(part, arms[-1][2])
        else_block = None
        if arms[-1][0] is None:
            else_block = mk("block", *arms.pop()[2])
        node = None
        for cond, ann, stmts in reversed(arms):
            node = mk("if", cond, mk("block", *stmts), else_block, **ann)
            else_block = mk("block", node)
        out.append(node)
        if end_label is not None:
            out.append(end_label)

    def loop(self, control, body, ann) -> Node:
        if control is None:
            return mk("while", mk("boolCst", True), body, **ann)
        cond, counter = control.items[0], control.items[1]
        if cond is not None:
            return mk("while", self.expr(cond), body, **ann)
        var, bounds = counter
        step = self.expr(bounds[2]) if len(bounds) > 2 else None
        return mk("do", self.expr(var), self.expr(bounds[0]), self.expr(bounds[1]), step, body, **ann)

    def nonlabel_do(self, f, out):
        start = self.header(f.children, out)
        header = f.children[start]
        ann = self.ann(header.item)
        self.loop_names.append(getattr(header.item, "name", None))
        stmts = []
        for part in f.children[start + 1:]:
            self.statement(part, stmts)
        self.loop_names.pop()
        out.append(self.loop(header.items[1], mk("block", *stmts), ann))

    def label_do(self, f, out):
        """F77 DO 10 ... 10 CONTINUE. fparser keeps loops sharing one terminal statement
        flat in one construct, so the nesting is rebuilt from the labels."""
        parts = f.children
        i = 0
        while i < len(parts):
            if type(parts[i]).__name__ == "Label_Do_Stmt":
                node, i, _ = self.label_loop(parts, i)
                out.append(node)
            else:
                self.statement(parts[i], out)
                i += 1

    def label_loop(self, parts, i):
        """Loop starting at parts[i]: (node, index after its terminal, terminal label)."""
        header = parts[i]
        ann = self.ann(header.item)
        target = str(header.items[1].string)
        self.loop_names.append(None)
        stmts = []
        ended = None
        i += 1
        while i < len(parts):
            part = parts[i]
            if type(part).__name__ == "Label_Do_Stmt":
                node, i, ended = self.label_loop(parts, i)
                stmts.append(node)
            else:
                self.statement(part, stmts)
                item = getattr(part, "item", None)
                ended = None if _label(item) is None else str(_label(item))
                i += 1
            if ended == target:
                break
        self.loop_names.pop()
        return self.loop(header.items[2], mk("block", *stmts), ann), i, ended

    def end_do(self, f, out):
        if _label(f.item) is not None:
            out.append(mk("nop", **self.ann(f.item)))  # a GOTO target at the end of the body

    def loop_jump(self, f, out):
        """EXIT / CYCLE; a construct name is accepted when it names the innermost loop."""
        ann = self.ann(f.item)
        op = "exit" if f.items[0].upper() == "EXIT" else "cycle"
        name = f.items[1]
        if name is not None and (not self.loop_names or self.loop_names[-1] != _name(name)):
            self.unsupported(f"{op.upper()} of an outer named loop")
        out.append(mk(op, **ann))

    def continue_statement(self, f, out):
        out.append(mk("nop", **self.ann(f.item)))

    def goto(self, f, out):
        ann = self.ann(f.item)
        out.append(mk("goto", str(f.items[0].string), **ann))

    def return_statement(self, f, out):
        ann = self.ann(f.item)
        if f.items[0] is not None:
            self.unsupported("alternate RETURN")
        out.append(mk("return", None, **ann))

    def stop(self, f, out):
        ann = self.ann(f.item)
        code = f.items[1]
        if type(code).__name__ == "Stop_Code":  # a digit string
            code = mk("intCst", int(code.string), None)
        else:
            code = self.opt_expr(code)
        out.append(mk("stop", code, **ann))

    def allocate(self, f, out):
        ann = self.ann(f.item)
        type_spec, allocations, options = f.items
        if type_spec is not None or options is not None:
            self.unsupported("ALLOCATE with a type or STAT=/SOURCE= options")
        for a in _seq(allocations):
            if type(a).__name__ == "Allocation":
                target, shape = a.items[0], a.items[1]
                dims = tuple(mk("dim", self.opt_expr(s.items[0]), self.expr(s.items[1]))
                             for s in _seq(shape))
            else:
                target, dims = a, ()
            out.append(mk("allocate", self.target(target), dims, None, **ann))

    def deallocate(self, f, out):
        ann = self.ann(f.item)
        if f.items[1] is not None:
            self.unsupported("DEALLOCATE with STAT= options")
        for o in _seq(f.items[0]):
            out.append(mk("deallocate", self.target(o), **ann))

    def nullify(self, f, out):
        ann = self.ann(f.item)
        for o in _seq(f.items[1]):
            out.append(mk("pointerAssign", self.target(o), mk("intrinsic", "null", ()), **ann))

    def io(self, f, out):
        kind, items_index = _IO_STATEMENTS[type(f).__name__]
        ann = self.ann(f.item)
        items = tuple(self.expr(x) for x in _seq(f.items[items_index]))
        out.append(mk("io", kind, _io_control(self.text, kind), items, **ann))

    # --- expressions ------------------------------------------------------------------------
    def expr(self, f) -> Node:
        handler = _EXPRESSIONS.get(type(f).__name__)
        if handler is None:
            self.unsupported(_construct_name(type(f).__name__))
        return handler(self, f)

    def opt_expr(self, f):
        return None if f is None else self.expr(f)

    def target(self, f) -> Node:
        """An assigned/allocated object: a subscripted name here is always an array."""
        if type(f).__name__ == "Part_Ref":
            return self.array_ref(f)
        return self.expr(f)

    def ident(self, f):
        return mk("ident", _name(f))

    def int_literal(self, f):
        return mk("intCst", int(f.items[0]), self.kind_suffix(f.items[1]))

    def real_literal(self, f):
        text = f.items[0].lower()
        kind = 8 if "d" in text else 16 if "q" in text else 4
        # canonical text: exponent letter e, and a zero exponent dropped (1.5d0 -> "1.5"),
        # so that every spelling of a constant gives one IL node
        mantissa, _, exponent = text.replace("d", "e").replace("q", "e").partition("e")
        if exponent and int(exponent) != 0:
            text = f"{mantissa}e{exponent}"
        else:
            text = mantissa if "." in mantissa else mantissa + ".0"
        if f.items[1] is not None:
            kind = self.kind_suffix(f.items[1])
        if text[0] in "+-":  # signed literals inside complex constants
            node = mk("realCst", text[1:], kind)
            return mk("neg", node) if text[0] == "-" else node
        return mk("realCst", text, kind)

    def signed_int_literal(self, f):
        text = f.items[0]
        node = mk("intCst", int(text.lstrip("+-")), self.kind_suffix(f.items[1]))
        return mk("neg", node) if text.startswith("-") else node

    def complex_literal(self, f):
        return mk("complexCst", self.expr(f.items[0]), self.expr(f.items[1]))

    def logical_literal(self, f):
        return mk("boolCst", f.items[0].upper().startswith(".T"))

    def char_literal(self, f):
        text = f.items[0]
        quote = text[0]
        return mk("stringCst", text[1:-1].replace(quote + quote, quote))

    def parenthesis(self, f):
        return self.expr(f.items[1])  # grouping is kept by the tree shape

    def operation(self, f):
        items = f.items
        if len(items) == 3:
            op = _BINARY_OPS.get(items[1].upper())
            if op is None:
                self.unsupported(f"defined operator {items[1]}")
            return mk(op, self.expr(items[0]), self.expr(items[2]))
        op = _UNARY_OPS.get(items[0].upper())
        if op is None:
            self.unsupported(f"defined operator {items[0]}")
        return mk(op, self.expr(items[1]))

    def array_ref(self, f):
        return mk("arrayAccess", self.expr(f.items[0]), self.subscripts(f.items[1]))

    def subscripts(self, f):
        return tuple(self.expr(s) for s in _seq(f))

    def triplet(self, f):
        lo, hi, stride = f.items
        return mk("arrayTriplet", self.opt_expr(lo), self.opt_expr(hi), self.opt_expr(stride))

    def args(self, f):
        return tuple(self.expr(a) for a in _seq(f))

    def named_arg(self, f):
        if f.items[0] is None:
            return self.expr(f.items[1])
        return mk("namedArg", _name(f.items[0]), self.expr(f.items[1]))

    def reference(self, name, args_f, subscripts_f=None):
        """name(args): array access, intrinsic or user call, from what the scopes declare."""
        what = self.scope.lookup(name, "names")
        if what in (ARRAY, CHAR):
            return mk("arrayAccess", mk("ident", name), self.subscripts(args_f))
        if what == TYPE:
            self.unsupported("structure constructor")
        if what == INTRINSIC or (what is None and name in FORTRAN_INTRINSICS):
            return mk("intrinsic", name, self.args(args_f))
        if what is None and any(type(a).__name__ == "Subscript_Triplet" for a in _seq(args_f)):
            return mk("arrayAccess", mk("ident", name), self.subscripts(args_f))  # a section
        return mk("call", name, self.args(args_f))

    def part_ref(self, f):
        return self.reference(_name(f.items[0]), f.items[1])

    def function_reference(self, f):
        return self.reference(_name(f.items[0]), f.items[1])

    def data_ref(self, f):
        parts = f.items
        first = parts[0]
        base = self.array_ref(first) if type(first).__name__ == "Part_Ref" else self.expr(first)
        for p in parts[1:]:
            if type(p).__name__ == "Part_Ref":
                base = mk("arrayAccess", mk("fieldAccess", base, _name(p.items[0])),
                          self.subscripts(p.items[1]))
            else:
                base = mk("fieldAccess", base, _name(p))
        return base

    def array_constructor(self, f):
        return mk("arrayConstructor", tuple(self.expr(x) for x in _seq(f.items[1])))

    def format_star(self, f):
        return mk("star")


_UNIT_KINDS = {"Main_Program": "program", "Main_Program0": "program",
               "Subroutine_Subprogram": "subroutine", "Function_Subprogram": "function"}

_C = _Converter
_DECLARATIONS = {
    "Comment": _C.comment, "Implicit_Part": _C.implicit_part, "Use_Stmt": _C.use,
    "Implicit_Stmt": _C.implicit, "Type_Declaration_Stmt": _C.type_declaration,
    "Derived_Type_Def": _C.derived_type, "Common_Stmt": _C.common,
    "External_Stmt": _C.attribute_statement, "Intrinsic_Stmt": _C.attribute_statement,
    "Save_Stmt": _C.attribute_statement, "Optional_Stmt": _C.attribute_statement,
    "Intent_Stmt": _C.attribute_statement, "Access_Stmt": _C.attribute_statement,
    "Target_Stmt": _C.attribute_statement, "Pointer_Stmt": _C.attribute_statement,
    "Allocatable_Stmt": _C.attribute_statement,
    "Parameter_Stmt": _C.parameter_statement, "Dimension_Stmt": _C.dimension_statement, "Equivalence_Stmt": _C.equivalence,
}
_STATEMENTS = {
    "Comment": _C.comment, "Assignment_Stmt": _C.assignment,
    "Pointer_Assignment_Stmt": _C.pointer_assignment, "Call_Stmt": _C.call_statement,
    "If_Stmt": _C.if_statement, "If_Construct": _C.if_construct,
    "Block_Nonlabel_Do_Construct": _C.nonlabel_do, "Block_Label_Do_Construct": _C.label_do,
    "Action_Term_Do_Construct": _C.label_do, "End_Do_Stmt": _C.end_do,
    "Continue_Stmt": _C.continue_statement, "Exit_Stmt": _C.loop_jump,
    "Cycle_Stmt": _C.loop_jump, "Goto_Stmt": _C.goto,
    "Return_Stmt": _C.return_statement, "Stop_Stmt": _C.stop,
    "Allocate_Stmt": _C.allocate, "Deallocate_Stmt": _C.deallocate, "Nullify_Stmt": _C.nullify,
    "Print_Stmt": _C.io, "Write_Stmt": _C.io, "Read_Stmt": _C.io,
}
# I/O statement class -> (IL io kind, index of the item list among the fparser items)
_IO_STATEMENTS = {"Print_Stmt": ("print", 1), "Write_Stmt": ("write", 1), "Read_Stmt": ("read", 2)}
_EXPRESSIONS = {
    "Name": _C.ident, "Int_Literal_Constant": _C.int_literal,
    "Real_Literal_Constant": _C.real_literal, "Signed_Real_Literal_Constant": _C.real_literal,
    "Signed_Int_Literal_Constant": _C.signed_int_literal,
    "Complex_Literal_Constant": _C.complex_literal, "Logical_Literal_Constant": _C.logical_literal,
    "Char_Literal_Constant": _C.char_literal, "Parenthesis": _C.parenthesis,
    "Part_Ref": _C.part_ref, "Intrinsic_Function_Reference": _C.function_reference,
    "Function_Reference": _C.function_reference, "Structure_Constructor": _C.function_reference,
    "Component_Spec": _C.named_arg, "Data_Ref": _C.data_ref,
    "Subscript_Triplet": _C.triplet, "Actual_Arg_Spec": _C.named_arg,
    "Array_Constructor": _C.array_constructor, "Format": _C.format_star, "Io_Unit": _C.format_star,
}
for _cls in ("Level_2_Expr", "Add_Operand", "Mult_Operand", "Level_3_Expr", "Level_4_Expr",
             "And_Operand", "Or_Operand", "Equiv_Operand", "Level_5_Expr", "Expr",
             "Level_2_Unary_Expr"):
    _EXPRESSIONS[_cls] = _C.operation
del _C, _cls
