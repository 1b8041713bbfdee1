"""Names of differentiated symbols (paper 4.1, fig. 4): `v` -> `vd` (tangent) / `vb` (adjoint),
procedure `F` -> `F_D` / `F_B` (`f_d` in Fortran, which ignores case), type `T` -> `T_D`,
COMMON `/c/` -> `/c_d/`, module `m` -> `m_diff`; vector mode (4.7): `F_DV`, module
`m_diffv`, C struct `s` -> `s_dv` (its derivative with the directions inside; the tangent
uses `s`). When the name is taken, "0", then "1", ... is appended until it is free (paper 4.1).

One `Namer` serves a whole program, so that a global's derivative has one name in every
procedure; the names in use are every identifier of the original program, and every name
handed out.
"""
from __future__ import annotations

from ..engine.il import walk

__all__ = ["Namer", "program_names"]

_SUFFIXES = {"tangent": ("d", "_d"), "adjoint": ("b", "_b")}


def program_names(files) -> set[str]:
    """Every identifier, procedure, type and COMMON name of the files."""
    names = set()
    for node in walk(tuple(files)):
        op = node.op
        if op == "ident":
            names.add(node.kids[0])
        elif op == "declarator":
            names.add(node.kids[0])
        elif op in ("procedure", "module", "typeDef", "typeAlias", "common", "call"):
            names.add(node.kids[0])
            if op == "procedure":
                names.update(node.kids[2])
    return names


class Namer:
    """Fresh, deterministic names for the differentiated symbols of one program."""

    def __init__(self, used: set[str], mode: str = "tangent", lang: str = "fortran"):
        self.used = set(used)
        self.var_suffix, self.unit_suffix = _SUFFIXES[mode]
        self.lang = lang
        self._given: dict[tuple, str] = {}

    def _fresh(self, kind: str, base: str) -> str:
        key = (kind, base)
        name = self._given.get(key)
        if name is None:
            name, k = base, 0
            while name in self.used:
                name, k = f"{base}{k}", k + 1
            self.used.add(name)
            self._given[key] = name
        return name

    def var(self, name: str) -> str:
        """varName: the derivative variable of variable `name`."""
        return self._fresh("var", name + self.var_suffix)

    def proc(self, name: str) -> str:
        """procName: the differentiated procedure of `name`."""
        suffix = self.unit_suffix if self.lang == "fortran" else self.unit_suffix.upper()
        return self._fresh("proc", name + suffix)

    def type(self, name: str) -> str:
        return self._fresh("type", name + self.unit_suffix)

    def common(self, name: str) -> str:
        return self._fresh("common", name + self.unit_suffix)

    def module(self, name: str) -> str:
        """The module holding the derivatives of module `name`'s variables (Tapenade's M_DIFF)."""
        return self._fresh("module", name + "_diff")

    def result_pointer(self, function: str) -> str:
        """The argument of a differentiated C function that receives its value (one per function)."""
        return self._fresh("result", function + "_value")

    def vector_proc(self, name: str) -> str:
        """The vector tangent procedure of `name` (F_DV, paper 4.7)."""
        return self._fresh("vector", name + ("_dv" if self.lang == "fortran" else "_DV"))

    def vector_module(self, name: str) -> str:
        """The vector version of the tangent module `name` (m_diff -> m_diffv, Tapenade's M_DIFFV)."""
        return self._fresh("vector module", name + "v")

    def vector_type(self, name: str) -> str:
        """C: the type of the derivative of a struct `name` in vector mode, its real fields with
        the directions (the tangent's derivative has the struct's own type, 4.2)."""
        return self._fresh("vector type", name + "_dv")

    def derivative_types(self) -> frozenset:
        """Every name handed out for a derivative type T_D."""
        return frozenset(name for (kind, _), name in self._given.items() if kind == "type")

    def temp(self, base: str, derivative: bool = False) -> str:
        """newFreeVar: a new variable, never the same twice (`derivative`: it holds one)."""
        name, k = base, 0
        while name in self.used:
            name, k = f"{base}{k}", k + 1
        self.used.add(name)
        if derivative:
            self._given[("derivative temp", name)] = name
        return name

    def derivative_names(self) -> frozenset:
        """Every name handed out for a derivative variable."""
        return frozenset(name for (kind, _), name in self._given.items() if kind in ("var", "derivative temp"))
