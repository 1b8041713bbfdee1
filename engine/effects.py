"""What one flow-graph instruction does to memory: the elementary Dep(I) and Diff-dep(I) of
paper 5.2, and the read/write/kill sets the other analyses use.

`instruction_effects(instr, proc) -> Effects` covers every instruction kind except "call" (the
analyses translate the callee's summary for those). `external_call_effects(instr, proc)` gives
those of a call whose callee is not in the program: the runtime procedures the engine knows
(`LIBRARY_EFFECTS`: CUDA's atomics, barrier and memory calls, docs/analyses.md "CUDA"; C's
intrinsic atomicAdd too), else the black-box assumption. Effects are memoized per instruction (in
`proc.zones.effects_cache`), since the solver asks for them at every iteration.

Elementary rules, for an instruction writing the zones W of a reference:
- Dep: each written zone w <- every zone read (values, indices of both sides, pointer values),
  plus w itself when w is not killed (a partial write keeps the rest of w: (w.w) in Dep).
- Diff-dep: a differentiable w <- the zones read differentiably by the value (diff_reads), plus
  w when not killed; a non-differentiable w <- nothing when killed, itself otherwise.
- Zones not written keep the identity (no row).
- A masked instruction (inside WHERE or FORALL, `Instr.masked`) may write only some elements:
  its writes kill nothing and each written zone keeps its old value (`may_effects`).
"""
from __future__ import annotations

import re

from dataclasses import dataclass

from .bitsets import IDENTITY, Relation
from .errors import SourceError
from .il import Node, mk

_NO_EFFECT_OPS = frozenset(("nop", "exit", "cycle", "goto", "stop", "comment", "typeDef", "typeAlias",
                            "enumDef", "typedefEnum"))


@dataclass(frozen=True)
class Effects:
    reads: int          # zones whose value may be read (incl. indices and pointer values)
    writes: int         # zones that may be written
    kills: int          # zones certainly and completely overwritten
    dep: Relation       # Dep(I)
    diff_dep: Relation  # Diff-dep(I)


NO_EFFECT = Effects(0, 0, 0, IDENTITY, IDENTITY)


def instruction_effects(instr, proc) -> Effects:
    zm = proc.zones
    cache = zm.effects_cache
    hit = cache.get(id(instr))
    if hit is not None and hit[0] is instr:
        return hit[1]
    eff = _compute(instr, proc)
    cache[id(instr)] = (instr, eff)     # keeps instr alive, so its id is never reused
    return eff


def _compute(instr, proc) -> Effects:
    eff = _elementary(instr, proc)
    return may_effects(eff) if instr.masked else eff


def may_effects(eff: Effects) -> Effects:
    """The effects of an instruction that may write only part of what it writes (a masked
    WHERE/FORALL assignment): no kill, and each written zone also keeps its old value."""
    if not eff.kills:
        return eff
    dep = {w: eff.dep.row(w) | (1 << w) for w in _bits(eff.writes)}
    diff = {w: eff.diff_dep.row(w) | (1 << w) for w in _bits(eff.writes)}
    return Effects(eff.reads, eff.writes, 0, Relation(dep), Relation(diff))


def _elementary(instr, proc) -> Effects:
    if instr.kind == "call":
        raise ValueError("effects of a call instruction come from the callee's summary")
    zm = proc.zones
    cr = proc.call_results
    node = instr.node
    if instr.kind == "test":
        return Effects(zm.reads(instr.expr, cr), 0, 0, IDENTITY, IDENTITY)
    if instr.kind == "loop":
        return _loop_header(node, zm, cr)
    if instr.kind == "loopEntry":
        return _loop_entry(node, zm, cr)
    op = node.op
    if op in _NO_EFFECT_OPS:
        return NO_EFFECT
    if op == "assign":
        return _assign(zm, node.kids[0], node.kids[1], cr)
    if op == "varDecl":
        return sequence([_assign(zm, mk("ident", d.kids[0]), d.kids[2], cr) for d in node.kids[2]
                         if d.op == "declarator" and d.kids[2] is not None])
    if op == "pointerAssign":
        return _pointer_assign(zm, node, cr)
    if op in ("allocate", "deallocate"):
        return _allocation(zm, node, cr)
    if op == "io":
        return _io(zm, node, cr)
    if op == "return":
        value = node.kids[0]
        if value is None or zm.result_zone is None:
            return NO_EFFECT
        return _write(zm, 1 << zm.result_zone, True, zm.reads(value, cr), zm.diff_reads(value, cr))
    if op == "intrinsic":
        return _intrinsic(zm, node, cr)
    raise ValueError(f"no effects for instruction {instr!r}")


# ---------------------------------------------------------------------------------------------
def _write(zm, written: int, killed: bool, reads: int, diff_value: int, extra_reads: int = 0) -> Effects:
    """A write of `written` (all killed or none) with a value computed from `reads` (all zones,
    indices included) of which `diff_value` flow differentiably."""
    reads |= extra_reads
    kills = written if killed else 0
    dep, diff = {}, {}
    dmask = zm.differentiable_mask
    for w in _bits(written):
        me = 0 if killed else 1 << w
        dep[w] = reads | me
        diff[w] = (diff_value | me) if (dmask >> w) & 1 else me
    return Effects(reads, written, kills, Relation(dep), Relation(diff))


def _assign(zm, lhs: Node, rhs: Node, cr) -> Effects:
    target = zm.ref(lhs)
    addr = zm.address_reads(lhs, cr)
    rows = _fieldwise(zm, lhs, rhs, cr) if target.total else None
    if rows is not None:
        return rows
    return _write(zm, target.zones, target.total, zm.reads(rhs, cr), zm.diff_reads(rhs, cr), addr)


def _fieldwise(zm, lhs, rhs, cr) -> Effects | None:
    """A whole-structure copy `s = t`: field i of s depends on field i of t only."""
    if not zm.is_ref(rhs):
        return None
    litems, _ = zm._ref(lhs)
    ritems, _ = zm._ref(rhs)
    if len(litems) != 1 or len(ritems) != 1 or not litems[0][0].fields or not ritems[0][0].fields:
        return None
    pairs = list(_leaf_pairs(litems[0][0], ritems[0][0]))
    if any(p is None for p in pairs):
        return None
    addr = zm.address_reads(lhs, cr) | zm.address_reads(rhs, cr)
    dmask = zm.differentiable_mask
    dep, diff, writes, reads = {}, {}, 0, addr
    for dst, src in pairs:
        reads |= src
        for w in _bits(dst):
            writes |= 1 << w
            dep[w] = src | addr
            diff[w] = (src & dmask) if (dmask >> w) & 1 else 0
    return Effects(reads, writes, writes, Relation(dep), Relation(diff))


def _leaf_pairs(a, b):
    if a.fields is None or b.fields is None:
        if a.fields is None and b.fields is None:
            yield a.all, b.all
        else:
            yield None
        return
    if a.fields.keys() != b.fields.keys():
        yield None
        return
    for name, sub in a.fields.items():
        yield from _leaf_pairs(sub, b.fields[name])


def _loop_entry(node: Node, zm, cr) -> Effects:
    """DO entry: index = lo, and the trip count is fixed from lo, hi and step. The trip count
    lives with the index (it is what the header's decision reads), so the index depends on
    all three."""
    var, lo, hi, step = node.kids[:4]
    target = zm.ref(var)
    reads = zm.reads(lo, cr) | zm.reads(hi, cr) | (0 if step is None else zm.reads(step, cr))
    diff_value = zm.diff_reads(lo, cr) | (0 if step is None else zm.diff_reads(step, cr))
    return _write(zm, target.zones, target.total, reads, diff_value, zm.address_reads(var, cr))


def _loop_header(node: Node, zm, cr) -> Effects:
    """DO header, at every trip: index = index + step (the step fixed at entry) and the test
    of the remaining trip count: the index depends on itself only."""
    var = node.kids[0]
    target = zm.ref(var)
    reads = zm.reads(var, cr)
    return _write(zm, target.zones, target.total, reads, zm.diff_reads(var, cr), zm.address_reads(var, cr))


def _pointer_assign(zm, node: Node, cr) -> Effects:
    lhs, rhs = node.kids
    target = zm.pointer_ref(lhs)
    reads = zm.address_reads(lhs, cr, deref=False)
    if not (rhs.op == "intrinsic" and rhs.kids[0] == "null"):
        reads |= zm.address_reads(rhs, cr)      # the target's address: its pointer, indices
    return _write(zm, target.zones, target.total, reads, 0)


def _allocation(zm, node: Node, cr) -> Effects:
    """allocate/deallocate: the target (pointer or allocatable array) gets a new, undefined
    value; only the shape expressions are read. No differentiable dependence."""
    target_expr = node.kids[0]
    target = zm.pointer_ref(target_expr)
    reads = zm.address_reads(target_expr, cr, deref=False)
    if node.op == "allocate":
        reads |= zm.reads(node.kids[1], cr)
    return _write(zm, target.zones, target.total, reads, 0)


def _io(zm, node: Node, cr) -> Effects:
    kind, control, items = node.kids
    if kind != "read":
        s = _control_reads(zm, control, cr)
        for it in items:
            s |= zm.reads(it, cr)
        return Effects(s, 0, 0, IDENTITY, IDENTITY)
    # READ: each item gets a value from outside, or from the internal file it names (READ (s, *))
    unit = node.kids[1].split(",")[0].strip().lower() if isinstance(node.kids[1], str) else ""
    source = zm.reads(mk("ident", unit), cr) if unit.isidentifier() and unit in zm.vars else 0
    return sequence([_write(zm, zm.ref(it).zones, zm.ref(it).total, 0, 0, zm.address_reads(it, cr) | source)
                     for it in items])


_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")
_SPECIFIER_VALUE = re.compile(r"(?<![\w%])([a-zA-Z_]\w*)(?!\s*=[^=])")


def _control_reads(zm, control, cr) -> int:
    """The variables an I/O statement's control list reads (kept as text: `unit=u, iostat=k`):
    every name that is no specifier keyword nor inside a string."""
    if not isinstance(control, str):
        return 0
    reads = 0
    for name in _SPECIFIER_VALUE.findall(_QUOTED.sub("''", control)):
        if name.lower() in zm.vars:
            reads |= zm.reads(mk("ident", name.lower()), cr)
    return reads


def _intrinsic(zm, node: Node, cr) -> Effects:
    name, args = node.kids
    if zm.lang == "c" and name in LIBRARY_EFFECTS:    # C reads atomicAdd, __syncthreads as intrinsics
        return library_effects(zm, node, cr, None)
    if name == "free" and args:
        return _allocation(zm, mk("deallocate", args[0]), cr)
    s = 0
    for a in args:
        s |= zm.reads(a, cr)
    return Effects(s, 0, 0, IDENTITY, IDENTITY)


# ---------------------------------------------------------------------------------------------
# Calls of procedures outside the program
# ---------------------------------------------------------------------------------------------
def external_call_effects(instr, proc) -> Effects:
    """The effects of a call instruction whose callee is not in the program (it has no
    CallSite; a function call split out of an expression writes its value into
    `instr.result`): a procedure of the runtime the engine knows (LIBRARY_EFFECTS, C only),
    else a black box (`_unknown_call`). Memoized like instruction_effects."""
    zm = proc.zones
    cache = zm.effects_cache
    hit = cache.get(id(instr))
    if hit is not None and hit[0] is instr:
        return hit[1]
    node = instr.node
    if zm.lang == "c" and node.op == "call" and node.kids[0] in LIBRARY_EFFECTS:
        eff = library_effects(zm, node, proc.call_results, instr.result)
    else:
        configuration = zm.reads(launch_configuration(node), proc.call_results)
        eff = _unknown_call(zm, node.args, proc.call_results, instr.result, configuration)
    cache[id(instr)] = (instr, eff)
    return eff


def launch_configuration(node: Node) -> tuple:
    """The grid, block and shared-memory size expressions of a kernel launch (read, passive:
    they decide which threads run, not what a thread computes); () for any other node."""
    if node.op != "kernelLaunch":
        return ()
    return tuple(e for e in (node.grid, node.block, node.shared) if e is not None)


def _unknown_call(zm, args, cr, result, reads: int = 0) -> Effects:
    """A call of a procedure outside the program (or a launch of a kernel outside it, whose
    configuration reads `reads`): it may read all its arguments and write every argument
    passed by reference (Fortran) or through a pointer (C); each output, and the function's
    value, may depend on every input (the black-box assumption). It is assumed not to touch
    globals."""
    args = tuple(a.kids[1] if a.op == "namedArg" else a for a in args)
    written = diff = 0
    for a in args:
        if zm.lang == "fortran" and zm.is_ref(a):
            r = zm.ref(a)
            written |= r.zones
            reads |= r.zones | zm.address_reads(a, cr)
        else:
            reads |= zm.reads(a, cr)
            written |= zm.targets(a)
            reads |= zm.targets(a)
        diff |= zm.diff_reads(a, cr) | (zm.targets(a) & zm.differentiable_mask)
    arguments = _write(zm, written, False, reads, diff)
    return arguments if result is None else sequence([_write(zm, 1 << result, True, reads, diff), arguments])


# --- the CUDA runtime: atomics, barrier, memory (docs/analyses.md, "CUDA") ----------------------
# Each entry: (zone map, actual arguments, call results, result zone or None) -> Effects.
# A call's value goes to the result zone when the call is split out of an expression.
def _status(zm, eff: Effects, result) -> Effects:
    """eff, then the call's value (a cudaError_t status: no dependence) into the result."""
    return eff if result is None else sequence([eff, _write(zm, 1 << result, True, 0, 0)])


def _atomic(*differentiable: int, value_differentiable: bool = True):
    """atomicOp(p, v[, w]): *p = op(*p, v[, w]), returning the old *p. Many threads update the
    same *p: never a kill (*p keeps a dependence on itself). The arguments at the positions
    `differentiable` flow differentiably into *p; the old value flows into the result when
    `value_differentiable`."""
    def effects(zm, args, cr, result):
        memory = mk("deref", args[0])
        reads, diff = zm.reads(memory, cr), 0
        for i, a in enumerate(args[1:], 1):
            reads |= zm.reads(a, cr)
            if i in differentiable:
                diff |= zm.diff_reads(a, cr)
        update = _write(zm, zm.ref(memory).zones, False, reads, diff)
        if result is None:
            return update
        old = _write(zm, 1 << result, True, zm.reads(memory, cr),
                     zm.diff_reads(memory, cr) if value_differentiable else 0)
        return sequence([old, update])
    return effects


def _copy(dst: Node, src: Node, others, zm, cr, result) -> Effects:
    """The memory dst gets the values of the memory src (cudaMemcpy: not a kill, the byte
    count may cover part of it); `others` (count, kind) are read."""
    source = zm.ref(src).zones
    reads = source | zm.address_reads(src, cr) | zm.address_reads(dst, cr) | zm.reads(tuple(others), cr)
    return _status(zm, _write(zm, zm.ref(dst).zones, False, reads, source & zm.differentiable_mask), result)


def _cuda_malloc(zm, args, cr, result):
    """cudaMalloc(&p, bytes): p gets a new address (its target: a heap zone per call site,
    engine.zones); no value flows."""
    pointer = mk("deref", args[0])
    target = zm.ref(pointer)
    reads = zm.address_reads(pointer, cr) | zm.reads(tuple(args[1:]), cr)
    return _status(zm, _write(zm, target.zones, target.total, reads, 0), result)


def _cuda_memset(zm, args, cr, result):
    """cudaMemset(p, byte, count): *p gets integer bytes (no differentiable value), maybe in part."""
    memory = mk("deref", args[0])
    reads = zm.address_reads(memory, cr) | zm.reads(tuple(args[1:]), cr)
    return _status(zm, _write(zm, zm.ref(memory).zones, False, reads, 0), result)


def _reads_only(zm, args, cr, result):
    """No data effect (a barrier, cudaFree, a synchronisation): the arguments are read."""
    return _status(zm, Effects(zm.reads(tuple(args), cr), 0, 0, IDENTITY, IDENTITY), result)


def _dim3(zm, args, cr, result):
    """dim3(x[, y[, z]]): an integer value (its three components) from the arguments."""
    reads = zm.reads(tuple(args), cr)
    if result is None:
        return Effects(reads, 0, 0, IDENTITY, IDENTITY)
    return _write(zm, 1 << result, True, reads, 0)


def library_effects(zm, node: Node, cr, result) -> Effects:
    """The effects of `node`, a call (or C intrinsic) of a procedure of LIBRARY_EFFECTS."""
    name, args = node.kids[0], node.args
    needed = _LEAST_ARGUMENTS.get(name, 2 if name.startswith("atomic") else 0)
    if len(args) < needed:
        raise SourceError(f"{name} takes at least {needed} arguments", zm.filename, node.line)
    return LIBRARY_EFFECTS[name](zm, args, cr, result)


_LEAST_ARGUMENTS = {"atomicCAS": 3, "cudaMalloc": 2, "cudaMemcpy": 3, "cudaMemcpyToSymbol": 3,
                    "cudaMemcpyFromSymbol": 3, "cudaMemset": 3}

LIBRARY_EFFECTS = {
    "__syncthreads": _reads_only,
    "__syncthreads_count": _reads_only, "__syncthreads_and": _reads_only,   # an integer vote of
    "__syncthreads_or": _reads_only,                                         # the block's threads
    "atomicAdd": _atomic(1), "atomicSub": _atomic(1),                 # *p += v, *p -= v
    "atomicMax": _atomic(1), "atomicMin": _atomic(1),                 # piecewise *p or v
    "atomicExch": _atomic(1),                                         # *p = v
    "atomicCAS": _atomic(1, 2, value_differentiable=False),           # not differentiable
    "atomicAnd": _atomic(), "atomicOr": _atomic(), "atomicXor": _atomic(),     # integer bits
    "atomicInc": _atomic(), "atomicDec": _atomic(),
    "cudaMalloc": _cuda_malloc,
    "cudaMemcpy": lambda zm, a, cr, r: _copy(mk("deref", a[0]), mk("deref", a[1]), a[2:], zm, cr, r),
    "cudaMemcpyToSymbol": lambda zm, a, cr, r: _copy(a[0], mk("deref", a[1]), a[2:], zm, cr, r),
    "cudaMemcpyFromSymbol": lambda zm, a, cr, r: _copy(mk("deref", a[0]), a[1], a[2:], zm, cr, r),
    "cudaMemset": _cuda_memset,
    "cudaFree": _reads_only, "cudaDeviceSynchronize": _reads_only,
    "cudaGetLastError": _reads_only, "cudaPeekAtLastError": _reads_only,
    "dim3": _dim3,
}


def sequence(effects: list[Effects]) -> Effects:
    """The effects of instructions one after the other."""
    if not effects:
        return NO_EFFECT
    if len(effects) == 1:
        return effects[0]
    reads = writes = kills = 0
    dep = diff = IDENTITY
    for e in effects:
        reads |= e.reads
        writes |= e.writes
        kills |= e.kills
        dep = dep.then(e.dep)
        diff = diff.then(e.diff_dep)
    return Effects(reads, writes, kills, dep, diff)


def _bits(s: int):
    while s:
        low = s & -s
        yield low.bit_length() - 1
        s ^= low
