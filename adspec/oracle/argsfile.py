"""The arguments file of `adspec check` (TOML): what the source does not fix about the inputs.

    [n]
    value = 4             # integers are never drawn: give the value
    [x]
    shape = [4]           # C pointers, assumed-size arrays: element counts; may name an integer arg
    range = [0.5, 1.5]    # reals drawn uniformly in this range
    [g.m]                 # an argument of another procedure (the bottom-up check calls it alone)
    value = 3
    [jacobian]            # --jacobian only: where the hand-written routine puts the Jacobian
    array = "fjac"

`Args` holds the parsed tables and says where each is (file:line) for error messages;
`init_args_template` writes the commented template `adspec check --init` prints.
"""
from __future__ import annotations

import math
import re
import tomllib
from pathlib import Path

from adspec.engine.errors import SourceError

DEFAULT_RANGE = (0.5, 1.5)
KEYS = {"value", "shape", "range", "fields"}
JACOBIAN_TABLE = "jacobian"     # not an argument: how --jacobian's routine stores the Jacobian
JACOBIAN_KEYS = ("array", "leading", "layout")


class Args:
    """The argument tables (the parsed TOML, or the `args=` dict of the Python API)."""

    def __init__(self, data: dict | None = None, filename: str = "<args>", text: str = ""):
        self.data = dict(data or {})
        self.filename, self.text = filename, text
        self.jacobian = self.data.pop(JACOBIAN_TABLE, {})
        if not isinstance(self.jacobian, dict):
            raise self.error(f"[{JACOBIAN_TABLE}] must be a table ({', '.join(JACOBIAN_KEYS)})", JACOBIAN_TABLE)
        unknown = sorted(set(self.jacobian) - set(JACOBIAN_KEYS))
        if unknown:
            raise self.error(f"[{JACOBIAN_TABLE}]: unknown key(s) {', '.join(unknown)} "
                             f"(expected {', '.join(JACOBIAN_KEYS)})", JACOBIAN_TABLE, unknown[0])
        for name, table in self.data.items():
            self._check_table(name, table)

    @classmethod
    def load(cls, path) -> "Args":
        path = str(path)
        try:
            text = Path(path).read_text()
        except OSError as e:
            raise SourceError(f"cannot read the arguments file: {e.strerror}", path) from None
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            m = re.search(r"\(at line (\d+), column \d+\)", str(e))
            raise SourceError(re.sub(r"\s*\(at line.*\)", "", str(e)), path, int(m.group(1)) if m else None) from None
        return cls(data, path, text)

    def error(self, message: str, table: str | None = None, key: str | None = None) -> SourceError:
        return SourceError(message, self.filename, self.line_of(table, key))

    def line_of(self, table: str | None, key: str | None = None) -> int | None:
        """The line of `[table]` (of `key = ` inside it when given) in the file's text."""
        if not self.text or table is None:
            return None
        lines = self.text.splitlines()
        head = re.compile(r"^\s*\[\s*" + r"\s*\.\s*".join(map(re.escape, table.split("."))) + r"\s*\]")
        start = next((i for i, line in enumerate(lines) if head.match(line)), None)
        if start is None:
            return None
        if key is not None:
            for i in range(start + 1, len(lines)):
                if lines[i].lstrip().startswith("["):
                    break
                if re.match(rf"^\s*{re.escape(key)}\s*=", lines[i]):
                    return i + 1
        return start + 1

    def _check_table(self, name: str, table) -> None:
        if not isinstance(table, dict):
            raise self.error(f"{name}: expected a table [{name}] (value, shape, range), got {table!r}", name)
        nested = {k: v for k, v in table.items() if isinstance(v, dict) and k != "fields"}
        for key, sub in nested.items():    # [proc.arg]
            self._check_table(f"{name}.{key}", sub)
        for key, value in table.items():
            if key in nested:
                continue
            if key not in KEYS:
                raise self.error(f"{name}: unknown key {key!r} (expected one of {', '.join(sorted(KEYS))})", name, key)
            if key == "range" and not (isinstance(value, list) and len(value) == 2
                                       and all(isinstance(v, (int, float)) for v in value) and value[0] < value[1]):
                raise self.error(f"{name}: range must be [low, high] with low < high, got {value!r}", name, key)
            if key == "shape" and not (isinstance(value, list) and value
                                       and all(isinstance(v, (int, str)) for v in value)):
                raise self.error(f"{name}: shape must be a list of sizes (integers or integer argument names), "
                                 f"got {value!r}", name, key)

    def table(self, name: str, proc: str | None = None) -> tuple[dict, str | None]:
        """The table of argument `name` ([proc.name] first when proc is given) and its key path."""
        if proc is not None:
            sub = self.data.get(proc, {})
            if isinstance(sub.get(name), dict):
                return sub[name], f"{proc}.{name}"
        table = self.data.get(name)
        return (table, name) if isinstance(table, dict) else ({}, None)

    def range(self, name: str, proc: str | None = None) -> tuple:
        table, _ = self.table(name, proc)
        return tuple(table.get("range", DEFAULT_RANGE))

    def value(self, name: str, proc: str | None = None):
        table, _ = self.table(name, proc)
        return table.get("value")

    def shape(self, name: str, integers: dict, proc: str | None = None) -> tuple | None:
        """The shape given for `name`, integer argument names replaced by their values."""
        table, where = self.table(name, proc)
        if "shape" not in table:
            return None
        sizes = []
        for size in table["shape"]:
            if isinstance(size, str):
                if size not in integers:
                    raise self.error(f"{name}: shape names {size!r}, which is no integer argument with a value",
                                     where, "shape")
                size = integers[size]
            if int(size) < 1:
                raise self.error(f"{name}: shape sizes must be at least 1, got {size}", where, "shape")
            sizes.append(int(size))
        return tuple(sizes)


def init_args_template(primal, head: str) -> str:
    """The commented TOML template of the head's arguments (`adspec check --init`)."""
    from adspec.heads import parse_heads

    from .prototype import read_procedures
    paths = [primal] if isinstance(primal, (str, Path)) else list(primal)
    procs = read_procedures(paths)
    spec = parse_heads(head)[0]
    proc = procs.get(spec.procedure) or procs.get(spec.procedure.lower())
    if proc is None:
        raise SourceError(f"-head: no procedure {spec.procedure!r} in {', '.join(map(str, paths))}", "<command line>")
    lines = [f"# Arguments of {proc.name} for `adspec check` (edit the values; TOML).",
             "# Integers are never drawn: each needs a value. Reals are drawn uniformly in `range`",
             f"# (default {list(DEFAULT_RANGE)}). Arrays whose size the source does not fix need a `shape`."]
    integers = [f.name for f in proc.formals if f.type in ("i4", "i8") and f.dims is None]
    scalars = _element_zero_only(paths, proc)
    for f in proc.formals:
        lines.append("")
        lines.append(f"[{f.name}]")
        if f.type in ("i4", "i8", "l4"):
            if f.dims is None and not f.pointer:
                lines.append(_commented("value = 4", "an integer: give its value"))
            else:
                size = 1 if f.name in scalars else _size_hint(f, integers)
                lines.append(_commented(f"value = {[1] * (size if isinstance(size, int) else 4)}",
                                        "integers: give the values"))
                if not isinstance(size, int):
                    lines.append(_commented(f"shape = {_shape_text(size)}", "a guess: the element count"))
        elif f.real:
            known = _declared(f)
            if f.name in scalars:
                lines.append(_commented("shape = [1]", "only its element 0 is used"))
            elif known is None and (f.pointer or f.dims):
                lines.append(_commented(f"shape = {_shape_text(_size_hint(f, integers))}",
                                        "a guess: element count(s), or the name of an integer argument"))
            elif known is not None:
                lines.append(f"# shape {known} (declared)")
            lines.append(_commented(f"range = {list(DEFAULT_RANGE)}", "drawn uniformly in this range"))
        else:
            lines.append(f"# {f.type}: not supported by adspec check yet")
    return "\n".join(lines) + "\n"


COMMENT_COLUMN = 22


def _commented(text: str, comment: str) -> str:
    return f"{text:<{COMMENT_COLUMN}}# {comment}" if len(text) < COMMENT_COLUMN else f"{text}  # {comment}"


def _element_zero_only(paths, proc) -> set:
    """The C pointer formals of `proc` its body only ever uses as `*p` or `p[0]`: scalars."""
    from adspec.engine.il import walk

    from .prototype import read_tree
    pointers = {f.name for f in proc.formals if f.pointer and not f.dims}
    if proc.lang != "c" or not pointers:
        return set()
    node = next((u for p in paths for u in read_tree(p).kids if u.op == "procedure" and u.kids[0] == proc.name), None)
    if node is None:
        return set()
    used, element_zero = set(), set()
    for u in walk(node):
        if u.op == "ident" and u.kids[0] in pointers:
            used.add(id(u))
        first = u.kids[0] if u.op in ("deref", "arrayAccess") else None
        if getattr(first, "op", None) == "ident" and first.kids[0] in pointers and (
                u.op == "deref" or _is_zero_index(u.kids[1])):
            element_zero.add(id(first))
    others = {u.kids[0] for u in walk(node) if u.op == "ident" and id(u) in used - element_zero}
    seen = {u.kids[0] for u in walk(node) if id(u) in element_zero}
    return seen - others


def _is_zero_index(indices) -> bool:
    return len(indices) == 1 and getattr(indices[0], "op", None) == "intCst" and int(indices[0].kids[0]) == 0


def _declared(f) -> str | None:
    """The declared shape as text when the source fixes it (Fortran x(n), C a[3])."""
    if not f.dims:
        return None
    parts = []
    for d in f.dims:
        upper = d.kids[1]
        if upper is None or upper.op == "star":
            return None
        parts.append(_expr_text(upper))
    return "(" + ", ".join(parts) + ")"


def _expr_text(e) -> str:
    if e.op in ("intCst",):
        return str(e.kids[0])
    if e.op == "ident":
        return e.kids[0]
    return "expr"


def _size_hint(f, integers):
    """A shape for the template: the first integer argument (the usual size), else 4."""
    return integers[0] if integers else 4


def _shape_text(size) -> str:
    return f'["{size}"]' if isinstance(size, str) else f"[{size}]"


def evaluate_dims(dims, integers: dict, lang: str) -> tuple | None:
    """The extents of declared dims (IL dim nodes) from the integer arguments' values; None when
    one is not known (assumed size `*`, an expression of unknown names)."""
    if dims is None:
        return None
    extents = []
    for d in dims:
        lower, upper = d.kids[0], d.kids[1]
        lo = 1 if lower is None else _eval(lower, integers)
        hi = None if upper is None or upper.op == "star" else _eval(upper, integers)
        if lo is None or hi is None:
            return None
        extents.append(hi - lo + 1 if lang == "fortran" else hi)
    return tuple(extents)


def lower_bounds(dims, integers: dict, lang: str) -> tuple:
    if lang != "fortran" or not dims:
        return tuple(0 for _ in dims or ())
    bounds = (None if d.kids[0] is None else _eval(d.kids[0], integers) for d in dims)
    return tuple(1 if b is None else b for b in bounds)


_BINARY = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
           "div": lambda a, b: a // b if b else None}


def _eval(e, integers: dict):
    if e is None:
        return None
    if e.op == "intCst":
        return int(e.kids[0])
    if e.op == "ident":
        return integers.get(e.kids[0].lower() if isinstance(e.kids[0], str) else e.kids[0],
                            integers.get(e.kids[0]))
    if e.op in _BINARY:
        a, b = _eval(e.kids[0], integers), _eval(e.kids[1], integers)
        return None if a is None or b is None else _BINARY[e.op](a, b)
    if e.op in ("neg", "minus"):
        a = _eval(e.kids[0], integers)
        return None if a is None else -a
    return None


def size_of(shape) -> int:
    return math.prod(shape) if shape else 1
