"""Fortran: the labels that nothing refers to any more, dropped from generated procedures.

A derivative procedure can lose the jumps to a label (a GOTO differentiated away) or turn
`DO 10 ... 10 A(I) = ...` into a block DO ending on a labelled assignment. gfortran -Wall
warns of each unused label, so the generated code drops them. Only generated procedures go
through this: the originals are written back as they were read.
"""
from __future__ import annotations

import re

from ..engine.il import EMPTY_ANN, Node, jump_targets, walk_statements


def without_unused_labels(unit: Node) -> Node:
    """unit (a procedure or module) with the labels of each procedure that no statement of
    that procedure refers to removed."""
    if unit.op == "module":
        return unit.replace(contains=tuple(without_unused_labels(u) for u in unit.kids[2]))
    if unit.op != "procedure" or unit.kids[7] is None:
        return unit
    used = referenced_labels(unit.kids[7])
    return unit.replace(body=_relabelled(unit.kids[7], used),
                        contains=tuple(without_unused_labels(u) for u in unit.kids[8] or ()))


def referenced_labels(body: Node) -> set:
    """The labels statements of body refer to: jumps, the DO 10 ... 10 CONTINUE the writer
    prints as such, and (conservatively) every number in an I/O control list (FMT=, ERR=,
    END=) and the labels of I/O statements themselves (FORMAT). All of them are statements:
    the expressions, most of the nodes, are not visited."""
    used = set()
    for node in walk_statements(body):
        op = node.op
        used.update(jump_targets(node))
        if op == "io":
            used.update(re.findall(r"\d+", node.kids[1] or ""))
            used.add(node.ann.get("label"))
        elif op == "do" and node.kids[4].kids and node.kids[4].kids[-1].op == "nop":
            used.add(node.kids[4].kids[-1].ann.get("label"))
    return used


def _relabelled(node, used: set):
    if isinstance(node, tuple):
        return tuple(_relabelled(k, used) for k in node)
    if not isinstance(node, Node) or node.op not in _HOLDS_STATEMENTS and (
            node.ann is EMPTY_ANN or "label" not in node.ann):   # most generated statements have none
        return node
    kids = tuple(_relabelled(k, used) for k in node.kids) if node.op in _HOLDS_STATEMENTS else node.kids
    ann = node.ann
    if ann.get("label") is not None and ann["label"] not in used:
        ann = ann.discard("label")
    return Node(node.op, kids, ann)


# the operators whose kids hold statements (expressions hold none: they are left as they are)
_HOLDS_STATEMENTS = frozenset({"block", "if", "do", "while", "switch", "case", "where", "forall", "for", "doWhile"})
