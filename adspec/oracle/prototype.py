"""Prototypes of primal and derivative procedures, read with adspec's own readers.

A derivative procedure follows Tapenade's conventions (shared/TAPENADE.md): each formal that
has a derivative is followed at once by it (`x`, `xd` / `xb`, clashes get digits: `xd0`); a
function's tangent takes the value as an extra last argument (and returns the derivative), its
adjoint takes the result's adjoint last. Its header comment states the useful results, the
varying inputs and the RW status of every derivative argument.

    procs = read_procedures(["t_b.c"])            # name -> Procedure
    diff = match(procs["f_b"], primal["f"], "adjoint")   # DiffPrototype, or PrototypeMismatch
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from adspec.engine.errors import SourceError

TYPE_CODES = {("real", 8): "r8", ("real", 4): "r4", ("real", None): "r4", ("double", None): "r8",
              ("integer", 4): "i4", ("integer", None): "i4", ("integer", 8): "i8",
              ("logical", None): "l4", ("logical", 4): "l4"}
SUFFIX = {"tangent": "d", "adjoint": "b"}
# the runtime's and vector mode's headers: not needed to read a prototype, absent from the path
_READER_SKIPS = re.compile(r'^\s*#\s*include\s*[<"](adStack\.h|adBuffer\.h|DIFFSIZES\.h|adContext\.h)[>"].*$', re.M)


class PrototypeMismatch(Exception):
    """The candidate's prototype does not follow the primal's (the message says where)."""


@dataclass(frozen=True)
class Formal:
    name: str
    type: str            # a harness type code (r8, r4, i4, i8, l4), or "other: <type>"
    dims: tuple | None   # the declared dims (IL `dim` nodes), None for a scalar
    pointer: int = 0     # C pointer level
    fields: tuple | None = None   # a C struct of doubles: ((field, element count), ...) in memory order

    @property
    def real(self) -> bool:
        return self.type in ("r8", "r4")


@dataclass(frozen=True)
class Header:
    """The header comment of a derivative procedure (Tapenade's)."""
    primal: str | None = None
    mode: str | None = None                     # tangent | adjoint
    useful: tuple | None = None                 # formal names (C `*y` -> y), None: no such line
    varying: tuple | None = None
    statuses: dict = field(default_factory=dict)   # formal -> in|out|in-out|incr|in-zero|zero
    memory: dict = field(default_factory=dict)     # "Plus diff mem management of": formal -> status


@dataclass(frozen=True)
class Procedure:
    name: str
    kind: str                   # subroutine | function
    formals: tuple              # of Formal, in order
    result_type: str | None     # type code of a function's value (None: subroutine / void)
    lang: str
    filename: str
    line: int | None
    header: Header | None
    calls: frozenset            # names of the procedures it calls
    indexed: frozenset = frozenset()   # C pointer formals used as arrays (subscripted, offset, passed on)
    module: str | None = None          # the Fortran module that contains it
    static: bool = False               # a C static function: no driver can call it
    single: bool = False               # declares single-precision reals (its results round to them)

    @property
    def symbol(self) -> str | None:
        """The linker's name of a Fortran module procedure (gfortran's), None for the others."""
        return f"__{self.module.lower()}_MOD_{self.name.lower()}" if self.module else None

    def formal(self, name: str) -> Formal:
        return next(f for f in self.formals if f.name == name)


@dataclass(frozen=True)
class DiffPrototype:
    """A derivative procedure matched to its primal."""
    procedure: Procedure
    primal: Procedure
    mode: str
    derivative_of: dict          # derivative formal -> primal formal
    value_formal: str | None     # tangent of a function: the formal receiving the value
    result_adjoint: str | None   # adjoint of a function: the formal holding the result's adjoint

    def derivative(self, primal_formal: str) -> str | None:
        return next((d for d, p in self.derivative_of.items() if p == primal_formal), None)


def base_name(text: str) -> str:
    """A header list item's formal: `*y` -> y, `s->x` -> s, `a[i]` -> a, `x:(loc)` keeps x."""
    text = text.strip().lstrip("*(&").strip()
    return re.split(r"->|\.|\[|\(|\)|\s", text)[0]


def type_code(typ, aliases: dict | None = None) -> str:
    typ = _resolved(typ, aliases)
    if typ is None or typ.op != "type":
        return f"other: {typ}"
    return TYPE_CODES.get((typ.kids[0], typ.kids[1]), f"other: {typ.kids[0]}")


def _resolved(typ, aliases: dict | None):
    """A C typedef name followed to what it names (a type, or a typeRef of a struct)."""
    seen = 0
    while typ is not None and typ.op == "typeRef" and aliases and typ.kids[0] in aliases and seen < 20:
        typ, seen = aliases[typ.kids[0]], seen + 1
    return typ


def struct_fields(typ, aliases: dict, structs: dict) -> tuple | None:
    """((field, element count), ...) of a C struct whose fields are all doubles (scalars or
    arrays of constant size): laid out in memory as one array of doubles. None otherwise."""
    typ = _resolved(typ, aliases)
    if typ is None or typ.op != "typeRef" or typ.kids[0] not in structs:
        return None
    fields = []
    for decl in structs[typ.kids[0]]:
        if getattr(decl, "op", None) != "varDecl" or type_code(decl.kids[0], aliases) != "r8":
            return None
        for d in decl.kids[2]:
            if d.kids[3]:
                return None   # a pointer field: memory elsewhere
            count = 1
            for dim in d.kids[1] or ():
                if dim.kids[1] is None or dim.kids[1].op != "intCst":
                    return None
                count *= int(dim.kids[1].kids[0])
            fields.append((d.kids[0], count))
    return tuple(fields) or None


_TREES: dict = {}   # (path, text) -> IL: a file read once per check (check reads each twice)
_TREES_KEPT = 16    # the most recent files only: a campaign's worker checks thousands of programs


def read_tree(path: str):
    """The IL of a source file (C: the runtime's includes left out, they are not needed here)."""
    from adspec.frontends import language_of, parse_source, read_source
    text = read_source(str(path))
    key = (str(path), text)
    if key not in _TREES:
        while len(_TREES) >= _TREES_KEPT:
            del _TREES[next(iter(_TREES))]   # the oldest
        lang, form = language_of(str(path))
        if lang == "c":
            text = _READER_SKIPS.sub("", text)
        try:
            _TREES[key] = parse_source(text, str(path), lang, form)
        except SourceError:
            if lang != "c":
                raise
            # code adspec's reader refuses (calloc, ...): the prototypes and comments are enough
            _TREES[key] = parse_source(_without_bodies(text), str(path), lang, form)
    return _TREES[key]


def _without_bodies(text: str) -> str:
    """C text with every function body emptied (`{ ... }` after a `)` at file scope); comments,
    strings and line breaks kept, so lines stay where they were."""
    out, depth, i, n, body = [], 0, 0, len(text), False
    while i < n:
        two = text[i:i + 2]
        if two in ("/*", "//") or text[i] in "\"'":
            end = (text.find("*/", i + 2) + 2 if two == "/*" else text.find("\n", i) if two == "//"
                   else _string_end(text, i))
            end = n if end <= i else end
            chunk = text[i:end]
            out.append(re.sub(r"[^\n]", " ", chunk) if body else chunk)
            i = end
            continue
        ch = text[i]
        if ch == "{":
            if depth == 0 and re.search(r"\)\s*$", "".join(out[-200:])):
                body = True
                out.append("{")
                depth += 1
                i += 1
                continue
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0 and body:
                body = False
                out.append("}")
                i += 1
                continue
        out.append(ch if not body or ch == "\n" else "")
        i += 1
    return "".join(out)


def _string_end(text: str, i: int) -> int:
    quote, j = text[i], i + 1
    while j < len(text) and text[j] != quote:
        j += 2 if text[j] == "\\" else 1
    return j + 1


def read_procedures(paths) -> dict:
    """Every procedure of the files, name -> Procedure (Fortran names in lower case).
    SourceError when a file cannot be read."""
    procs = {}
    for path in paths:
        procs.update(procedures_of(read_tree(str(path)), str(path)))
    return procs


def procedures_of(tree, filename: str) -> dict:
    """The procedures of an IL file, with the header comments above them."""
    lang = tree.ann.get("lang", "fortran")
    procs, comments = {}, []
    aliases = {u.kids[0]: u.kids[1] for u in tree.kids if u.op == "typeAlias"}
    structs = {u.kids[0]: u.kids[1] for u in tree.kids if u.op == "typeDef" and lang == "c"}
    for unit, module in _units(tree):
        if unit.op == "comment":
            comments.append(unit.kids[0])
            continue
        if unit.op == "procedure":
            proc = _procedure(unit, lang, filename, comments, aliases, module, structs)
            procs[proc.name] = proc
        comments = []
    return procs


def _units(tree):
    """(unit, the name of the module that contains it or None)."""
    for unit in tree.kids:
        if unit.op == "module":
            for kid in unit.kids:
                for u in kid if isinstance(kid, tuple) else (kid,):
                    if getattr(u, "op", None) in ("procedure", "comment"):
                        yield u, unit.kids[0].lower()
        else:
            yield unit, None


def _procedure(node, lang: str, filename: str, comments: list, aliases: dict, module, structs: dict) -> Procedure:
    name, kind, formal_names, result, rtype = node.kids[:5]
    fold = str.lower if lang == "fortran" else (lambda s: s)
    decls = {}
    for decl in node.kids[6]:
        if getattr(decl, "op", None) != "varDecl":
            continue
        for d in decl.kids[2]:
            pointer = d.kids[3] if len(d.kids) > 3 else 0
            fields = struct_fields(decl.kids[0], aliases, structs) if pointer == 1 and not d.kids[1] else None
            decls[fold(d.kids[0])] = Formal(fold(d.kids[0]), "r8" if fields else type_code(decl.kids[0], aliases),
                                            tuple(d.kids[1]) if d.kids[1] else None, pointer, fields)
    formals = tuple(decls.get(fold(f), Formal(fold(f), _implicit_type(f) if lang == "fortran" else "other: untyped", None))
                    for f in formal_names)
    result_type = None
    if kind == "function":
        if rtype is None:   # Fortran: the result declared in the body
            declared = decls.get(fold(result or name))
            result_type = declared.type if declared else _implicit_type(result or name)
        elif not (rtype.op == "type" and rtype.kids[0] == "void"):
            result_type = type_code(rtype, aliases)
    calls = frozenset(fold(u.kids[0]) for u in _walk(node.kids[7]) if u.op == "call")
    return Procedure(fold(name), kind, formals, result_type, lang, filename, node.ann.get("line"),
                     parse_header(comments, lang), calls, _indexed(node.kids[7], {f.name for f in formals if f.pointer}),
                     module, "static" in (node.kids[5] or ()),
                     any(u.op == "varDecl" and type_code(u.kids[0], aliases) == "r4" for u in _walk(node)))


def _indexed(body, pointers: set) -> frozenset:
    """The pointer formals the body uses as arrays: subscripted, in pointer arithmetic, or passed
    on as they are (a callee may subscript them)."""
    used = set()
    for u in _walk(body):
        if u.op == "arrayAccess" and u.kids[0].op == "ident":
            used.add(u.kids[0].kids[0])
        elif u.op in ("add", "sub"):
            used.update(k.kids[0] for k in u.kids if getattr(k, "op", None) == "ident")
        elif u.op == "call":
            used.update(k.kids[0] for k in u.kids[1] if getattr(k, "op", None) == "ident")
    return frozenset(used & pointers)


def _implicit_type(name: str) -> str:
    return "i4" if name[:1].lower() in "ijklmn" else "r4"


def _walk(node):
    from adspec.engine.il import walk
    return walk(node)


_HEADER_LINE = re.compile(r"Differentiation of (\w+) in (forward|reverse)")
_LIST_KEYS = {"of useful results:": "useful", "with respect to varying inputs:": "varying",
              "RW status of diff variables:": "statuses", "Plus diff mem management of:": "memory"}


def parse_header(comments: list, lang: str) -> Header | None:
    """The Tapenade header comment among `comments` (the comment lines above a procedure)."""
    fold = str.lower if lang == "fortran" else (lambda s: s)
    found = None
    lists = {"useful": None, "varying": None, "statuses": [], "memory": []}
    key = None
    for raw in comments:
        for text in str(raw).splitlines():
            text = text.strip().strip("/*!").strip()
            m = _HEADER_LINE.search(text)
            if m:
                found = (fold(m.group(1)), "tangent" if m.group(2) == "forward" else "adjoint")
                key = None
                continue
            if found is None:
                continue
            for marker, name in _LIST_KEYS.items():
                if marker in text:
                    key, text = name, text.split(marker, 1)[1]
                    if lists[key] is None:
                        lists[key] = []
                    break
            else:
                if not text or key is None:   # a continuation line extends the list above it
                    key = None
                    continue
            lists[key].extend(text.replace(",", " ").split())
    if found is None:
        return None

    def names(items):
        return None if items is None else tuple(dict.fromkeys(fold(base_name(i)) for i in items if base_name(i)))

    def statuses(items):
        out = {}
        for item in items:
            if ":" in item:
                who, status = item.rsplit(":", 1)
                if status != "(loc)":
                    out[fold(base_name(who))] = status
        return out
    return Header(found[0], found[1], names(lists["useful"]), names(lists["varying"]),
                  statuses(lists["statuses"]), statuses(lists["memory"]))


def match(cand: Procedure, primal: Procedure, mode: str) -> DiffPrototype:
    """Pair the candidate's formals with the primal's: PrototypeMismatch where they do not
    follow Tapenade's conventions."""
    where = f"{cand.filename}:{cand.line or '?'}: {cand.name}"
    suffix = SUFFIX[mode]
    derivative_of, formals, k = {}, list(cand.formals), 0
    for pf in primal.formals:
        if k >= len(formals) or formals[k].name != pf.name:
            got = formals[k].name if k < len(formals) else "nothing"
            raise PrototypeMismatch(f"{where}: expected the primal's argument {pf.name!r} of {primal.name} "
                                    f"at position {k + 1}, found {got!r}")
        k += 1
        if k < len(formals) and re.fullmatch(re.escape(pf.name) + suffix + r"\d*", formals[k].name) \
                and formals[k].name not in {f.name for f in primal.formals}:
            derivative_of[formals[k].name] = pf.name
            k += 1
    extra = formals[k:]
    value_formal = result_adjoint = None
    if primal.result_type is not None and extra:
        if mode == "tangent":
            value_formal = extra[0].name
        else:
            result_adjoint = extra[0].name
        extra = extra[1:]
    if extra:
        raise PrototypeMismatch(f"{where}: unexpected extra argument(s) {', '.join(f.name for f in extra)} "
                                f"(not a formal of {primal.name} nor a derivative {suffix!r} argument after one)")
    for d, p in derivative_of.items():
        if not primal.formal(p).real and not primal.formal(p).type.startswith("other"):
            raise PrototypeMismatch(f"{where}: derivative argument {d!r} of the non-real argument {p!r}")
        if primal.formal(p).fields != cand.formal(d).fields:
            raise PrototypeMismatch(f"{where}: the derivative struct {d!r} is not laid out as {p!r} "
                                    f"({cand.formal(d).fields} vs {primal.formal(p).fields}): not supported yet")
    return DiffPrototype(cand, primal, mode, derivative_of, value_formal, result_adjoint)


def primal_name_of(cand: Procedure, primal_names, mode: str) -> str | None:
    """The primal of a derivative procedure: its header's, else its name less `_d`/`_b` (+ digits)."""
    if cand.header is not None and cand.header.primal in primal_names:
        return cand.header.primal
    m = re.fullmatch(r"(\w+?)_" + SUFFIX[mode] + r"\d*", cand.name, re.I)
    if m and (m.group(1) if cand.lang == "c" else m.group(1).lower()) in primal_names:
        return m.group(1) if cand.lang == "c" else m.group(1).lower()
    return None


def check_readable(paths, what: str) -> None:
    """SourceError naming the first of `paths` that is no file."""
    for path in paths:
        if not Path(path).is_file():
            raise SourceError(f"no such {what} file", str(path))
