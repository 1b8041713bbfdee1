"""Shrinking a failing program on its IL: delete statements (halves of a block first, then
single ones), replace a loop or an IF by its body, simplify real expressions, drop procedures
no one calls; a change is kept when the program still fails with the same symptom.

Every reduction keeps the program valid: no declaration is deleted, an unwrapped loop sets its
index to its first value, only real-valued expressions outside indices are simplified (an index
stays in bounds), and a reduced program adspec itself cannot differentiate is not tried."""
from __future__ import annotations

from ..engine.il import mk, walk

COMPOUND = ("if", "do", "for", "while", "switch", "where")
REAL_NAMES = frozenset(("x", "y", "s", "t", "z", "q", "p", "f"))
REAL_OPS = frozenset(("add", "sub", "mul", "div", "neg", "intrinsic", "call"))
HALF = "0.5"
# integers (and the C pointer p) whose assignment the statements reading them rely on: m keeps
# indices in bounds, w and b end their loops, i, j, l are set where a loop was unwrapped, p before its walk
SET_BEFORE_USE = frozenset(("m", "w", "b", "i", "j", "l", "p"))


def statement_count(tree) -> int:
    """Statements of the head (the last procedure), nested ones included, declarations not."""
    return sum(1 for path in _block_paths(tree.units[-1]) for s in _get(tree.units[-1], path).stmts
               if s.op != "varDecl")


def shrink(program, still_fails, mode: str, max_tries: int = 300):
    """(smallest program found, number of tries): `still_fails(program)` runs the tool and the
    check and says whether the failure persists; only programs adspec differentiates in `mode`
    are tried."""
    from .generate import differentiable
    tries, position, changed = 0, 0, False
    while tries < max_tries:
        reductions = list(_reductions(program.tree))
        for at in range(position, len(reductions)):
            candidate = program.with_tree(reductions[at])
            if candidate.text == program.text or not differentiable(candidate, mode):
                continue
            tries += 1
            if still_fails(candidate):
                program, position, changed = candidate, at, True   # the next cut is now at `at`
                break
            if tries >= max_tries:
                return program, tries
        else:   # a whole pass from `position` without a success: another pass from the start, if it changed
            if position == 0 and not changed:
                return program, tries
            position, changed = 0, False
    return program, tries


def _reductions(tree):
    """Smaller variants of `tree`, the largest cuts first."""
    head = tree.units[-1]
    with_head = lambda new_head: tree.with_kids(*tree.units[:-1], new_head)  # noqa: E731
    uncalled = _uncalled_units(tree)
    if uncalled:
        yield tree.with_kids(*(u for u in tree.units if u not in uncalled))
    paths = sorted(_block_paths(head), key=len)
    read = _names_read(head)
    for path in paths:
        stmts = _get(head, path).stmts
        size = len(stmts)
        while size >= 1:
            for start in range(0, len(stmts), size):
                kept = stmts[:start] + stmts[start + size:]
                if any(_kept(s, read) for s in stmts[start:start + size]):
                    continue
                yield with_head(_set(head, path, mk("block", *kept)))
            size //= 2
    for path in paths:
        stmts = _get(head, path).stmts
        for i, s in enumerate(stmts):
            for body in () if s.ann.get("setup") else _unwrapped(s):
                yield with_head(_set(head, path, mk("block", *stmts[:i], *body, *stmts[i + 1:])))
    for path in paths:
        stmts = _get(head, path).stmts
        for i, s in enumerate(stmts):
            if s.op == "assign" and not s.ann.get("setup"):
                for rhs in _simpler(s.kids[1]):
                    new = s.with_kids(s.kids[0], rhs)
                    yield with_head(_set(head, path, mk("block", *stmts[:i], new, *stmts[i + 1:])))


def _kept(s, read) -> bool:
    """Declarations, the setup that sets what is `read` (generate: t, m, z, q: every value read
    is set), and the integers (and the C pointer) whose assignment what reads them relies on."""
    if s.op == "varDecl":
        return True
    if s.ann.get("setup"):
        return bool(_assigned(s) & read)
    if s.op != "assign" or s.kids[0].op != "ident" or s.kids[0].kids[0] not in SET_BEFORE_USE & read:
        return False
    rhs = s.kids[1]
    return not (rhs.op == "mod" or rhs.op == "intrinsic" and rhs.kids[0] == "mod")


def _assigned(s) -> set:
    """The variables `s` sets (a loop's: its body's, not its index)."""
    body = s.kids[-1] if s.op in ("do", "for") else s
    return {_base(n.kids[0]) for n in walk(body) if getattr(n, "op", None) == "assign"}


def _base(lhs) -> str:
    while lhs.op != "ident":
        lhs = lhs.kids[0]
    return lhs.kids[0]


def _names_read(head) -> set:
    """Names in the statements other than the setup, but for a variable's own assignment
    (w = w + 1 does not need w set: it goes when nothing else reads w)."""
    read = set()
    for path in _block_paths(head):
        for s in _get(head, path).stmts:
            if s.op == "varDecl" or s.ann.get("setup"):
                continue
            own = s.kids[0].kids[0] if s.op == "assign" and s.kids[0].op == "ident" else None
            kids = [k for kid in s.kids for k in (kid if isinstance(kid, tuple) else (kid,))]   # call arguments
            parts = [k for k in kids if hasattr(k, "op") and k.op != "block"]   # nested blocks come by their paths
            read |= {n.kids[0] for part in parts for n in walk(part)
                     if getattr(n, "op", None) == "ident" and n.kids[0] != own}
    return read


def _unwrapped(s):
    """Statement lists that could replace the compound statement `s`."""
    if s.op == "if":
        yield s.kids[1].stmts
        if s.kids[2] is not None:
            yield s.kids[2].stmts
    elif s.op == "do":
        yield (mk("assign", s.kids[0], s.kids[1]),) + s.kids[4].stmts
    elif s.op == "for":
        yield (s.kids[0],) + s.kids[3].stmts
    elif s.op == "while":
        yield s.kids[1].stmts
    elif s.op == "switch":
        for case in s.kids[1]:
            yield tuple(t for t in case.kids[1].stmts if t.op != "exit")
    elif s.op == "where":
        yield ()


def _simpler(e):
    """Real expressions simpler than `e`: 0.5, or one of its real operands (recursively, in place)."""
    if not _real(e) or e.op == "realCst":
        return
    yield mk("realCst", HALF, 8)
    if e.op in REAL_OPS:
        for k in _operands(e):
            if _real(k):
                yield k
        for i, k in enumerate(_operands(e)):
            for simpler in _simpler(k):
                yield _with_operand(e, i, simpler)


def _operands(e):
    return e.kids[1] if e.op in ("intrinsic", "call") else e.kids


def _with_operand(e, i, new):
    if e.op in ("intrinsic", "call"):
        ops = list(e.kids[1])
        ops[i] = new
        return e.with_kids(e.kids[0], tuple(ops))
    kids = list(e.kids)
    kids[i] = new
    return e.with_kids(*kids)


def _real(e) -> bool:
    if not hasattr(e, "op"):
        return False
    if e.op == "realCst" or e.op == "deref":
        return True
    if e.op == "ident":
        return e.kids[0] in REAL_NAMES
    if e.op == "arrayAccess":
        return _real(e.kids[0])
    if e.op == "intrinsic" and e.kids[0] == "mod":
        return False
    if e.op == "call":
        return True
    if e.op in REAL_OPS:
        return any(_real(k) for k in _operands(e))
    return False


def _uncalled_units(tree) -> list:
    called = {n.kids[0] for n in walk(tree) if getattr(n, "op", None) == "call"}
    return [u for u in tree.units[:-1] if u.op == "procedure" and u.name not in called]


# --- paths to the blocks of a procedure: (kid index, tuple index or None) steps ---------
def _block_paths(node, path=()):
    if not hasattr(node, "op") or node.ann.get("setup"):   # the setup is kept or deleted whole
        return
    if node.op == "block":
        yield path
    for i, kid in enumerate(node.kids):
        if isinstance(kid, tuple):
            for j, k in enumerate(kid):
                yield from _block_paths(k, path + ((i, j),))
        else:
            yield from _block_paths(kid, path + ((i, None),))


def _get(node, path):
    for i, j in path:
        node = node.kids[i] if j is None else node.kids[i][j]
    return node


def _set(node, path, new):
    if not path:
        return new
    (i, j), rest = path[0], path[1:]
    kids = list(node.kids)
    if j is None:
        kids[i] = _set(kids[i], rest, new)
    else:
        items = list(kids[i])
        items[j] = _set(items[j], rest, new)
        kids[i] = tuple(items)
    return node.with_kids(*kids)
