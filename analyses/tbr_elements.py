"""TBR refined for the accumulations into one array element (paper 4.9; reconstructed, the
paper's TBR [Hascoët et al. 2005] works on whole variables as analyses/tbr.py does).

TBR keeps an array in TBR⁻ as long as some derivative instruction read it, since overwriting
one element kills nothing. A loop that sums into one element, `a(i) = a(i) + w(i,j)*h(j)`
over j, then saves every partial sum, although no derivative instruction reads any of them:
the sum is linear in a(i), and the value a later derivative reads (`tanh(a(i))`) is the one
the next `a(i) = b(i)` overwrites, which is saved there. The accumulation I: R = R ± E
overwrites a value read by no derivative instruction when

- I is a statement of the body of a DO loop L, E does not refer to R's array, and R's indices
  read no variable that L or the code below walks past assigns (nor L's index);
- every statement of L's body that refers to R's array is such an accumulation into R;
- before L in its block, going back, come only: statements that do not refer to R's array,
  assign none of R's index variables and hold no call; DO loops like L (accumulations into R
  only); and then an assignment R = ... that the forward sweep keeps (live for diff).

Then on every path the value I overwrites was written by that assignment or by one of these
accumulations, and only these accumulations, whose derivatives do not read R, come between:
no derivative instruction reads it, and its push and pop are spared. Fortran only (C pointers
may reach one array under two names).
"""
from __future__ import annotations

from ..engine.il import Node, walk


def enclosing(body: Node) -> dict:
    """id(statement) -> (its block, its index there, the statement holding the block)."""
    out, stack = {}, [(body, None)]
    while stack:
        block, owner = stack.pop()
        for k, stmt in enumerate(block.kids):
            if not isinstance(stmt, Node):
                continue
            out[id(stmt)] = (block, k, owner)
            for kid in stmt.kids:
                if isinstance(kid, Node) and kid.op == "block":
                    stack.append((kid, stmt))
    return out


def overwrites_dead_value(stmt: Node, parents: dict, is_live) -> bool:
    """The accumulation stmt overwrites a value no derivative instruction reads (see above)."""
    ref = _accumulated(stmt)
    place = parents.get(id(stmt))
    if ref is None or place is None or place[2] is None or place[2].op != "do":
        return False
    loop = place[2]
    indices = {n.kids[0] for index in ref.kids[1] for n in walk(index) if n.op == "ident"}
    if _index(loop) in indices or not _accumulates_only(loop, ref, indices):
        return False
    block, k, _ = parents[id(loop)]
    for earlier in reversed(block.kids[:k]):
        if not isinstance(earlier, Node):
            return False
        if earlier.op == "assign" and earlier.kids[0] == ref:
            return is_live(earlier)
        if earlier.op == "do":
            if not _accumulates_only(earlier, ref, indices) or _index(earlier) in indices:
                return False
        elif _refers(earlier, ref) or _assigns(earlier, indices) or any(n.op == "call" for n in walk(earlier)):
            return False
    return False


def _accumulated(stmt: Node):
    """R of an accumulation R = R ± E into an array element, E free of R's array."""
    if stmt.op != "assign" or stmt.kids[0].op != "arrayAccess" or stmt.kids[0].kids[0].op != "ident":
        return None
    ref, rhs = stmt.kids
    if rhs.op not in ("add", "sub") or rhs.kids[0] != ref or _refers(rhs.kids[1], ref):
        return None
    return ref


def _accumulates_only(loop: Node, ref: Node, indices: set) -> bool:
    """Every statement of the loop's body that refers to ref's array is an accumulation into
    ref, directly in the body; none assigns ref's index variables."""
    body = loop.kids[4]
    if any(_refers(stmt, ref) and _accumulated(stmt) != ref for stmt in body.kids):
        return False
    return not _assigns(body, indices) and not any(n.op == "call" for n in walk(body))


def _refers(tree, ref: Node) -> bool:
    root = ref.kids[0].kids[0]
    return any(n.op == "ident" and n.kids[0] == root for n in walk(tree))


def _assigns(tree, names: set) -> bool:
    return any(n.op == "assign" and n.kids[0].op == "ident" and n.kids[0].kids[0] in names for n in walk(tree)) \
        or any(n.op == "do" and _index(n) in names for n in walk(tree))


def _index(loop: Node):
    var = loop.kids[0]
    return var.kids[0] if isinstance(var, Node) and var.op == "ident" else None
