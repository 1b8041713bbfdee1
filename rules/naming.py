"""Names of differentiated symbols, Tapenade 3.x's (paper 4.1, 4.2, 4.7).

- A variable `v` -> `vd` (tangent) / `vb` (adjoint).
- A procedure `f` -> `f_d` (tangent), `f_dv` (vector tangent), `f_b` (adjoint), `f_bv`
  (vector adjoint), and for the adjoint modes to come `f_fwd` / `f_bwd` (the two sweeps of a
  split call) and `f_nodiff` (a copy of the original). The suffixes are lower case in every
  language: C is case sensitive, and a driver written for Tapenade links by name (`f_d`, not
  `f_D`); Fortran ignores case.
- A structure type `T` (Fortran derived type, C `struct s` or typedef `T`) -> `T_diff`: one
  derivative type for every mode, holding only the components of T that can carry a
  derivative (reals, arrays of reals, nested structures that have a `_diff`). Fortran
  writes it `type(T_diff)`, the same as Tapenade's `TYPE(T_DIFF)`; C keeps the original's
  spelling, `struct s_diff` for a tagged struct and `T_diff` for a typedef. In vector mode
  the same name holds the directions in its real components (`double x[NBDirsMax]`,
  `real(8) :: x(nbdirsmax)`): F_DV is in its own output file, module m_diffv in Fortran, so
  the two `T_diff` never meet in one scope. The paper's fig. 4-5 show the older per-mode
  names `T_D` / `T_B` (and upper-case procedure suffixes); Tapenade 3.x replaced them.
- COMMON `/c/` -> `/c_d/`, module `m` -> `m_diff` (vector mode: `m_diffv`).

When a name is taken, "0", then "1", ... is appended until it is free (paper 4.1).
One `Namer` serves a whole program, so that a global's derivative has one name in every
procedure; the names in use are every identifier of the original program, and every name
handed out.
"""
from __future__ import annotations

from ..engine.il import walk

__all__ = ["Namer", "program_names"]

# mode -> (variable suffix, procedure suffix, vector procedure suffix)
_SUFFIXES = {"tangent": ("d", "_d", "_dv"), "adjoint": ("b", "_b", "_bv")}


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

    def __init__(self, used: set[str], mode: str = "tangent"):
        self.used = set(used)
        self.var_suffix, self.unit_suffix, self.vector_suffix = _SUFFIXES[mode]
        self._given: dict[tuple, str] = {}
        self._tried: dict[str, int] = {}   # temp base -> the last suffix tried (names are never freed)
        self._temps: set[str] = set()   # the temporaries that hold a derivative
        self._vars: set[str] = set()    # the names handed out by var()
        self._derivatives = None   # derivative_names(), until a name is handed out

    def _fresh(self, kind: str, base: str) -> str:
        key = (kind, base)
        name = self._given.get(key)
        if name is None:
            name, k = base, 0
            while name in self.used:
                name, k = f"{base}{k}", k + 1
            self.used.add(name)
            self._given[key] = name
            if kind == "var":
                self._vars.add(name)
            self._derivatives = None
        return name

    def var(self, name: str) -> str:
        """varName: the derivative variable of variable `name`."""
        return self._fresh("var", name + self.var_suffix)

    def proc(self, name: str) -> str:
        """procName: the differentiated procedure of `name` (f_d, f_b)."""
        return self._fresh("proc", name + self.unit_suffix)

    def sweep_proc(self, name: str, sweep: str) -> str:
        """Adjoint: the forward ("fwd") or backward ("bwd") sweep of a split call of `name`."""
        return self._fresh(sweep, f"{name}_{sweep}")

    def nodiff_proc(self, name: str) -> str:
        """A copy of the original procedure `name` that the differentiated code calls (f_nodiff)."""
        return self._fresh("nodiff", name + "_nodiff")

    def type(self, name: str) -> str:
        """The derivative type T_diff of structure type `name`, for every mode."""
        return self._fresh("type", name + "_diff")

    def common(self, name: str) -> str:
        return self._fresh("common", name + self.unit_suffix)

    def module(self, name: str) -> str:
        """The module holding the derivatives of module `name`'s variables (Tapenade's M_DIFF)."""
        return self._fresh("module", name + "_diff")

    def result_pointer(self, function: str) -> str:
        """The argument of a differentiated C function that receives its value (one per function)."""
        return self._fresh("result", function + "_value")

    def vector_proc(self, name: str) -> str:
        """The vector procedure of `name` (f_dv, f_bv; paper 4.7)."""
        return self._fresh("vector", name + self.vector_suffix)

    def vector_module(self, name: str) -> str:
        """The vector version of the tangent module `name` (m_diff -> m_diffv, Tapenade's M_DIFFV)."""
        return self._fresh("vector module", name + "v")

    def derivative_types(self) -> frozenset:
        """Every name handed out for a derivative type T_diff."""
        return frozenset(name for (kind, _), name in self._given.items() if kind == "type")

    def temp(self, base: str, derivative: bool = False) -> str:
        """newFreeVar: a new variable, never the same twice (`derivative`: it holds one)."""
        k = self._tried.get(base, -1)   # the names before it are taken: start there (-1: base itself)
        name = base if k < 0 else f"{base}{k}"
        while name in self.used:
            k += 1
            name = f"{base}{k}"
        self._tried[base] = k
        self.used.add(name)
        if derivative:   # kept out of _given: a program has thousands, and _given is read whole
            self._temps.add(name)
            self._derivatives = None
        return name

    def originals(self) -> dict:
        """derivative variable name -> the name of its variable."""
        cut = len(self.var_suffix)
        return {name: base[:len(base) - cut] for (kind, base), name in self._given.items() if kind == "var"}

    def derivative_names(self) -> frozenset:
        """Every name handed out for a derivative variable."""
        if self._derivatives is None:   # asked once per declaration: built again only after a new name
            self._derivatives = frozenset(self._vars) | self._temps
        return self._derivatives

    def is_derivative_name(self, name: str) -> bool:
        """name in derivative_names(), without building it: the temporaries of a program run
        to thousands, and each procedure's new ones would have it built again."""
        return name in self._vars or name in self._temps
