"""What declarations say about a scope, and the activations of scopes.

`ScopeInfo` reads the declarations of one procedure, module or C file once (variable specs,
COMMON layout, USEs, DATA, IMPLICIT rules); `Frame` is one activation of a scope: its
bindings, its host frame (host association), the present OPTIONAL arguments and the WHERE
mask of the statements running in it.
"""
from __future__ import annotations

import re

from ..il import Node
from ..symbols import data_names
from .values import err

class VarSpec:
    """What declarations say about one name."""
    __slots__ = ("name", "type", "dims", "init", "ptr", "attrs", "node")

    def __init__(self, name, type_, dims=None, init=None, ptr=0, attrs=frozenset(), node=None):
        self.name, self.type, self.dims, self.init, self.ptr = name, type_, dims, init, ptr
        self.attrs, self.node = attrs, node


_IMPLICIT_DEFAULT = {c: ("integer", 4) if "i" <= c <= "n" else ("real", 4) for c in "abcdefghijklmnopqrstuvwxyz_"}
_IMPLICIT_TYPE = re.compile(r"\s*(double\s*precision|double\s*complex|integer|real|complex|logical)"
                            r"\s*(?:\*\s*(\d+)|\(\s*(?:kind\s*=\s*)?(\d+)\s*\))?\s*\((.*)\)\s*$")


def attr_word(a: str) -> str:
    return a.split("(")[0].strip().lower()


class ScopeInfo:
    """Declarations of one scope: variable specs, COMMON layout, USEs, implicit rules."""

    def __init__(self, node: Node, lang: str, host: "ScopeInfo | None" = None):
        self.node, self.lang, self.host = node, lang, host
        self.specs: dict[str, VarSpec] = {}
        self.order: list[str] = []
        self.uses: list[tuple[str, tuple | None, dict]] = []  # (module, ONLY names, local -> remote)
        self.data: list[Node] = []                         # DATA statements, applied once
        self.data_done = False
        self.commons: dict[str, tuple[str, int]] = {}      # var -> (block, position)
        self.common_members: dict[str, list[str]] = {}     # block -> var names in order
        self.common_layout: dict[str, dict] = {}           # block -> {var: (byte offset, nbytes)}
        self.save_all = False
        self.saved: dict = {}                              # persistent bindings (SAVE, PARAMETER, init)
        self.implicit = host.implicit if host is not None else dict(_IMPLICIT_DEFAULT)
        self.externals: set[str] = set()
        self.contains: dict[str, Node] = {}
        op = node.op
        if op == "procedure":
            decls, contains = node.decls, node.contains
            self.params = node.params
        elif op == "module":
            decls, contains = node.decls, node.contains
            self.params = ()
        else:  # C file: globals
            decls, contains = tuple(u for u in node.units if u.op == "varDecl"), ()
            self.params = ()
        for d in decls:
            self._declare(d)
        for u in contains:
            if u.op == "procedure":
                self.contains[u.name] = u
        if op == "procedure" and node.kind == "function" and lang == "fortran":
            result = self._spec(node.result or node.name)
            if result.type is None:
                result.type = node.type

    def _spec(self, name):
        s = self.specs.get(name)
        if s is None:
            s = self.specs[name] = VarSpec(name, None)
            self.order.append(name)
        return s

    def _declare(self, d: Node):
        op = d.op
        if op == "varDecl":
            attrs = frozenset(attr_word(a) for a in d.attrs)
            for decl in d.declarators:
                s = self._spec(decl.name)
                s.type, s.ptr, s.attrs, s.node = d.type, decl.ptr, s.attrs | attrs, decl
                if decl.dims is not None:
                    s.dims = decl.dims
                if decl.init is not None:
                    s.init = decl.init
        elif op == "common":
            members = self.common_members.setdefault(d.name, [])
            for v in d.vars:
                if v.op == "arrayAccess":
                    name = v.base.kids[0]
                    self._spec(name).dims = tuple(
                        Node("dim", (i.lo, i.hi)) if i.op == "arrayTriplet" else Node("dim", (None, i))
                        for i in v.indices)
                else:
                    name = v.kids[0]
                    self._spec(name)
                self.commons[name] = (d.name, len(members))
                members.append(name)
        elif op == "use":
            self.uses.append((d.module, d.only, {r.local: r.remote for r in d.renames}))
        elif op == "data":
            self.data.append(d)
            for name in data_names(d.objects):  # DATA implies SAVE
                self._spec(name).attrs |= {"save"}
        elif op == "interface":
            # no run-time effect: the names are procedures (never variables of this scope)
            self.externals.update(p.name for p in d.procs if p.op == "procedure")
            if d.name:
                self.externals.add(d.name)
        elif op == "implicit":
            self._implicit(d)
        elif op == "attrDecl":
            attr = attr_word(d.attr)
            names = [decl.name for decl in d.declarators]
            if attr == "save" and not names:
                self.save_all = True
            elif attr == "external":
                self.externals.update(names)
            elif attr in ("save", "allocatable", "pointer", "target", "optional", "parameter", "dimension"):
                for decl in d.declarators:
                    if decl.name.startswith("/"):
                        continue  # SAVE /common/: common blocks persist anyway
                    s = self._spec(decl.name)
                    if attr != "dimension":
                        s.attrs |= {attr}
                    if decl.dims is not None:
                        s.dims = decl.dims
                    if decl.init is not None:
                        s.init = decl.init
        elif op in ("typeDef", "typeAlias", "comment", "equivalence", "procedure"):
            if op == "equivalence":
                raise err(d, "EQUIVALENCE is not supported by the interpreter")

    def _implicit(self, d: Node):
        text = d.text.strip().lower()
        if text == "none":
            self.implicit = {}
            return
        self.implicit = dict(self.implicit)
        for part in re.split(r"(?<=\))\s*,\s*", text):
            m = _IMPLICIT_TYPE.match(part)
            if not m:
                raise err(d, f"IMPLICIT {d.text} is not supported by the interpreter")
            base, star, kind, letters = m.groups()
            base = base.replace(" ", "")
            if base == "doubleprecision":
                base, k = "real", 8
            elif base == "doublecomplex":
                base, k = "complex", 8
            else:
                k = int(star or kind or 4)
                if base == "complex" and star:
                    k //= 2
            for rng in letters.split(","):
                lo, _, hi = rng.strip().partition("-")
                for c in range(ord(lo.strip()), ord((hi or lo).strip()) + 1):
                    self.implicit[chr(c)] = (base, k)

    def implicit_type(self, name: str):
        t = self.implicit.get(name[0])
        if t is None:
            return None
        return Node("type", (t[0], t[1], None))


class Frame:
    """One activation: its bindings, the scope info and the host frame (host association)."""
    __slots__ = ("info", "vars", "host", "retval", "copyback", "present", "mask")

    def __init__(self, info: ScopeInfo, host: "Frame | None"):
        self.info, self.host = info, host
        self.vars: dict = {}
        self.retval = None
        self.copyback = None
        self.present = None
        self.mask = None  # the WHERE control mask of the statements running now

