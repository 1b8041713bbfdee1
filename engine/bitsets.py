"""Sets of zones as Python ints (bit k set = zone k in the set), and dependency relations.

Zones are small integers (paper 5.1), so a set of zones is one int: union is `|`,
intersection `&`, difference `& ~`. These are the lattices of the data-flow analyses.

A dependency relation R between zones before and after a piece of code (Dep, Diff-dep of
paper 5.2) is a `Relation`: for each zone v2, the set of zones v1 with (v1.v2) in R, i.e. what
the value of v2 after the code depends on. Zones without a row are unchanged: they depend on
themselves only (the identity). Relations are immutable and hashable.
"""
from __future__ import annotations

from typing import Iterable, Iterator, Mapping

EMPTY = 0


def bit(zone: int) -> int:
    return 1 << zone


def from_zones(zones: Iterable[int]) -> int:
    s = 0
    for z in zones:
        s |= 1 << z
    return s


def zones_of(s: int) -> Iterator[int]:
    """The zones of a set, in increasing order."""
    while s:
        low = s & -s
        yield low.bit_length() - 1
        s ^= low


def contains(s: int, zone: int) -> bool:
    return (s >> zone) & 1 == 1


def count(s: int) -> int:
    return s.bit_count()


class Relation:
    """(v1.v2) pairs as rows v2 -> set of v1; missing rows are the identity."""

    __slots__ = ("rows", "_hash")

    def __init__(self, rows: Mapping[int, int] | None = None):
        # rows equal to the identity are dropped so that equal relations compare equal
        clean = {} if rows is None else {v2: s for v2, s in rows.items() if s != (1 << v2)}
        object.__setattr__(self, "rows", clean)
        object.__setattr__(self, "_hash", None)

    def __setattr__(self, name, value):
        raise AttributeError("relations are immutable")

    def row(self, v2: int) -> int:
        """What v2 after depends on (before)."""
        return self.rows.get(v2, 1 << v2)

    def __eq__(self, other):
        return isinstance(other, Relation) and self.rows == other.rows

    def __hash__(self):
        if self._hash is None:
            object.__setattr__(self, "_hash", hash(frozenset(self.rows.items())))
        return self._hash

    def __repr__(self):
        return "Relation(" + ", ".join(f"{v2}<-{sorted(zones_of(s))}" for v2, s in sorted(self.rows.items())) + ")"

    # --- the operations of paper 5.2 ---------------------------------------------------
    @classmethod
    def _of_clean_rows(cls, rows: dict) -> "Relation":
        """A relation of rows that hold no identity row already (no filtering pass)."""
        relation = object.__new__(cls)
        object.__setattr__(relation, "rows", rows)
        object.__setattr__(relation, "_hash", None)
        return relation

    def then(self, after: "Relation") -> "Relation":
        """self ⊗ after: the relation of `self` followed by `after`."""
        # the rows of self are clean: only the rows written here may become the identity
        own = self.rows
        rows = dict(own)
        for v3, s in after.rows.items():
            acc = 0
            for v2 in zones_of(s):
                acc |= own.get(v2, 1 << v2)
            if acc == 1 << v3:
                rows.pop(v3, None)
            else:
                rows[v3] = acc
        return Relation._of_clean_rows(rows)

    def union(self, other: "Relation") -> "Relation":
        """Both relations' pairs (the meet at control-flow merges)."""
        if self is other:
            return self
        own = self.rows
        rows = dict(own)
        for v2, s in other.rows.items():
            row = own.get(v2, 1 << v2) | s
            if row == 1 << v2:
                rows.pop(v2, None)
            else:
                rows[v2] = row
        for v2 in own.keys() - other.rows.keys():
            row = rows[v2] | 1 << v2
            if row == 1 << v2:
                del rows[v2]
            else:
                rows[v2] = row
        return Relation._of_clean_rows(rows)

    def forward(self, s: int) -> int:
        """S ⊗ R: the zones after that depend on some zone of s before."""
        out = s
        for v2, deps in self.rows.items():
            if deps & s:
                out |= 1 << v2
            else:
                out &= ~(1 << v2)
        return out

    def backward(self, s: int) -> int:
        """R ⊗ S: the zones before on which some zone of s after depends."""
        # by the rows (a few written zones), not by the zones of s (a whole live set):
        # the zones of s without a row depend on themselves
        with_rows = found = 0
        for v2, deps in self.rows.items():
            with_rows |= 1 << v2
            if (s >> v2) & 1:
                found |= deps
        return (s & ~with_rows) | found


IDENTITY = Relation()
