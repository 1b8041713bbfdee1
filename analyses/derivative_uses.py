"""use(I'): the original variables that the derivative instruction I' of I reads (paper 5.2).

Diff-liveness, TBR and adjoint-out need it. For an assignment `lhs = rhs` that has a derivative
instruction, I' reads the indices of the derivative references it builds (the lhs and every
active reference in rhs: `ad(i)` needs i) and the values that appear in the partial
derivatives of rhs with respect to its active operands: for `a*b` with `a` active, `b`;
for `a/b` with `b` active, both; for `sin(a)`, `a`; a sum or a difference reads nothing.
These reads are not written here: they are the variables of the partial derivatives that the
derivative table (rules/derivatives.py) builds for the active operands.
An instruction has a derivative instruction when it writes a zone that is useful after it
and varied around it (an active result, or a derivative reset to zero as `ed = 0.0` in
fig. 9).

Calls: `call_uses` is the one definition of use(I') of a call, read by Diff-live, TBR and
Adj-out alike (docs/analyses.md, "use(I') of a call"). A call that is not active
(`is_active_call`) has no derivative instruction: use(I') = ∅. An active call of a procedure
in the source reads what the callee's derivative reads: its DiffUse summary (diffliveness.py)
seen from the call site. An active call of an external procedure (no source) becomes, as in
Tapenade, a call of the user-provided `g_d` / `g_b` with the actual arguments and their
derivatives: nothing is known of it, so it reads every actual argument (its value and the
indices and pointers that reach it): the reads of `external_call_effects`.
"""
from __future__ import annotations

from ..engine.effects import instruction_effects
from ..engine.errors import SourceError
from ..engine.il import Node
from ..engine.intrinsics import INQUIRY_INTRINSICS
from ..rules.derivatives import LinearOnly, derivative, differentiable_args
from .common import call_arguments, external_call_effects, launch_configuration, visible_zones

_REFERENCES = frozenset(("ident", "arrayAccess", "fieldAccess", "deref"))
_PASS_THROUGH = frozenset(("arrayConstructor", "impliedDo", "cast"))
_TABLE_OPS = frozenset(("add", "sub", "mul", "div", "power", "neg", "pos"))
_ITEM_LISTS = frozenset(("arrayConstructor", "impliedDo"))  # their first child is the list of items


class DerivativeUses:
    def __init__(self, program, activity, inout=None):
        self.program, self.activity, self.inout = program, activity, inout
        self._cache: dict[int, int] = {}
        self._has: dict[int, tuple] = {}   # id(instr) -> (instr, has_derivative): Diff-live, uses and Facts ask it

    def has_derivative(self, proc, instr) -> bool:
        """I' exists: I writes a zone useful after it and varied before or after it (C's
        `return E` writes the function's result)."""
        known = self._has.get(id(instr))
        if known is None or known[0] is not instr:
            known = self._has[id(instr)] = (instr, self._has_derivative(proc, instr))
        return known[1]

    def _has_derivative(self, proc, instr) -> bool:
        if instr.kind != "plain" and not (instr.node.op == "return" and instr.node.kids[0] is not None):
            return False
        effects = instruction_effects(instr, proc)
        varied = self.activity.varied[proc.name]
        useful = self.activity.useful[proc.name].after(instr)
        return bool(effects.writes & useful & (varied.before(instr) | varied.after(instr)))

    # --- calls: the one definition, shared by Diff-live, TBR and Adj-out ----------------------
    def call_zones(self, proc, instr) -> int:
        """The caller zones a call passes to its callee, as arguments or globals: the values
        of the actual arguments (the memory of reference actuals) and, for a callee in the
        source, the global zones it shares with the caller and reads or writes (itself or
        through its callees: a COMMON block it declares but does not touch is not passed).
        Only differentiable zones."""
        zones = proc.zones
        site = self.program.call_sites.get(id(instr))
        passed = 0
        if site is not None:
            passed = site.to_caller(self._passed_to(site.callee))
        for arg in call_arguments(instr):
            passed |= self._actual_zones(proc, arg)
        return passed & zones.differentiable_mask

    def _passed_to(self, callee) -> int:
        visible = visible_zones(callee)
        summary = self.inout.summary(callee) if self.inout is not None else None
        if summary is not None:
            visible &= ~callee.zones.caller_globals_mask | summary[0] | summary[1]
        return visible

    def _actual_zones(self, proc, arg) -> int:
        value = arg.kids[1] if arg.op == "namedArg" else arg
        zones = proc.zones
        found = zones.diff_reads(value, proc.call_results)
        target = value.kids[0] if value.op == "address" else value
        if target.op in _REFERENCES:
            try:
                found |= zones.ref(target).zones
                if proc.lang == "c" and value.op != "address" and target.op == "ident":
                    found |= zones.ref(Node("deref", (target,))).zones  # a pointer passes what it points to
            except SourceError:  # a procedure name passed as an argument
                pass
        return found & zones.differentiable_mask

    def actual_is_active(self, proc, instr, index: int) -> bool:
        """Actual argument `index` of a call is (or uses in a differentiable way) a reference
        to a variable in Active⁻ or Active⁺ of the call."""
        args = call_arguments(instr)
        if not 0 <= index < len(args):
            return False
        active = self.activity.active_before(proc, instr) | self.activity.active_after(proc, instr)
        return bool(self._actual_zones(proc, args[index]) & active)

    def is_active_call(self, proc, instr) -> bool:
        """isActiveCall (paper 5.3): one argument of the call is (or uses in a differentiable
        way) a reference to a variable in Active⁻ or Active⁺ of the call; the globals the
        callee shares with the caller count as arguments."""
        active = self.activity.active_before(proc, instr) | self.activity.active_after(proc, instr)
        return bool(self.call_zones(proc, instr) & active)

    def call_uses(self, proc, instr, summaries) -> int:
        """use(I') of a call instruction (module docstring): ∅ for a passive call; the
        callee's DiffUse summary (from `summaries`, callee name -> zones) seen from the call
        site; every actual argument read for a procedure outside the source. The derivative
        of a kernel launch is a launch on the same configuration: it reads the grid, block and
        shared-memory sizes too."""
        if not self.is_active_call(proc, instr):
            return 0
        configuration = proc.zones.reads(launch_configuration(instr.node), proc.call_results)
        site = self.program.call_sites.get(id(instr))
        if site is None:
            return external_call_effects(instr, proc).reads | configuration
        summary = summaries.get(site.callee.name)
        return configuration | self._argument_addresses(proc, instr) | \
            (0 if summary is None else site.to_caller(summary))

    def _argument_addresses(self, proc, instr) -> int:
        """What locating the actual arguments reads (indices, pointers): the derivative call
        passes the same references and its derivative references (`x(idx)`, `xb(idx)`), and
        the adjoint adds into them after the call, so those reads are needed by I' even where
        the call itself leaves the forward sweep."""
        zones, results = proc.zones, proc.call_results
        found, stack = 0, list(call_arguments(instr))
        while stack:
            e = stack.pop()
            if not isinstance(e, Node):
                if isinstance(e, tuple):
                    stack.extend(e)
                continue
            if e.op in _REFERENCES:
                found |= zones.address_reads(e, results)
            else:
                stack.extend(e.kids)
        return found

    def uses(self, proc, instr) -> int:
        """use(I') for a non-call instruction (0 when I has no derivative instruction)."""
        key = id(instr)
        cached = self._cache.get(key)
        if cached is None:
            cached = self._cache[key] = self._compute(proc, instr)
        return cached

    def _compute(self, proc, instr) -> int:
        node = instr.node
        if not self.has_derivative(proc, instr):
            return _pointer_reset_reads(proc, node)

        active = self.activity.active_before(proc, instr)
        walker = _PartialsWalker(proc, active)
        op, kids = node.op, node.kids   # by position, not by name: Node.__getattr__ looks up the table
        if op == "assign":   # lhs rhs
            return proc.zones.address_reads(kids[0], proc.call_results) | walker.walk(kids[1])[1]
        if op == "varDecl":   # type attrs declarators; a declarator: name dims init ptr
            used = 0
            for d in kids[2]:
                if d.kids[2] is not None:
                    used |= walker.walk(d.kids[2])[1]
            return used
        if op == "return" and kids[0] is not None:
            return walker.walk(kids[0])[1]
        if op == "intrinsic":  # name args; atomicAdd(&x, v) and the like: x = x + v is linear
            used = 0
            for arg in kids[1]:
                used |= walker.walk(arg)[1]
            return used
        return 0


class _PartialsWalker:
    """(is active, zones read by the partial derivatives) of an expression."""

    def __init__(self, proc, active: int):
        self.zones, self.results, self.active = proc.zones, proc.call_results, active
        self.lang = proc.lang

    def reads(self, e) -> int:
        return self.zones.reads(e, self.results)

    def walk(self, e):
        op = e.op
        if op in _REFERENCES or (op == "call" and id(e) in self.results):
            is_active = bool(self.zones.diff_reads(e, self.results) & self.active)
            return is_active, (self.zones.address_reads(e, self.results) if is_active and op != "call" else 0)
        if op in _PASS_THROUGH:
            kids = e.kids[0] if op in _ITEM_LISTS else e.kids
            parts = [self.walk(k) for k in kids if isinstance(k, Node)]
            return any(a for a, _ in parts), _union(u for _, u in parts)
        if op in _TABLE_OPS:
            return self._through_partials(derivative(op, self.lang), e.kids)
        if op == "intrinsic":
            name, given = e.kids
            args = tuple(a.kids[1] if a.op == "namedArg" else a for a in given)
            entry = derivative(name, self.lang)
            if entry is None:      # no entry: every argument may be active and read
                active = differentiable_args(name, len(args), self.lang)
                parts = [self.walk(args[i]) for i in active]
                is_active = any(a for a, _ in parts)
                used = _union(u for _, u in parts)
                return is_active, used | (_union(self.reads(a) for a in args) if is_active else 0)
            return self._through_partials(entry, entry.dummy_order(given) if entry.reduction else args)
        if op == "ifExpr":
            (a1, u1), (a2, u2) = self.walk(e.kids[1]), self.walk(e.kids[2])
            is_active = a1 or a2
            return is_active, u1 | u2 | (self.reads(e.kids[0]) if is_active else 0)
        return False, 0

    def _through_partials(self, entry, args):
        """An operation of the derivative table: its active operands, and what their
        partial derivatives read (the variables of the partial IL)."""
        used, active_now = 0, []
        for i in entry.active_positions(len(args)):
            is_active, reads = self.walk(args[i])
            used |= reads
            if is_active:
                active_now.append(i)
        if active_now and entry.build is not LinearOnly:
            operands = _partial_operands(entry, args, self.lang)
            if operands is None:   # built here, to be read as it is
                partials = entry.partials(args, self.lang)
                for i in active_now:
                    if partials[i] is not None:
                        used |= self.reads(partials[i])
            else:
                for i in active_now:
                    for j in operands[i]:
                        used |= self.reads(args[j])
        return bool(active_now), used


# --- which operands a partial derivative reads, without building it ------------------------------
# The table builds a partial from the operand trees themselves, with constants and operators
# around them, and looks inside an operand only when it is a literal (x**2). So a partial built
# once from stand-in leaves, the literals kept, shows which operands each partial holds; where
# they all sit as values (not under size(), &, a call, a reference), the zones the partial reads
# are those its operands read. The chain rule builds the partials it needs itself; building them
# here too, for every operation, was most of this analysis's time. The table reads the value of
# an integer literal only (the exponent of x**n): a real literal counts by its kind alone, one
# build for `x*0.37` and `x*1.52` (a program's constants are most of the shapes otherwise).
_LITERALS = frozenset(("intCst", "realCst", "boolCst", "stringCst", "complexCst"))
_NOT_A_VALUE = frozenset(("address", "call", "sizeof")) | _REFERENCES
_OPERANDS_OF_PARTIALS: dict = {}   # (entry, language, operands seen) -> operand positions per partial, or None


def _partial_operands(entry, args: tuple, lang: str):
    """For each partial of `entry` on `args`, the positions of the operands whose zones it
    reads (the partial reads nothing else); None when that cannot be told without building it."""
    shape = tuple(None if a is None else True if a.op not in _LITERALS
                  else ("realCst", a.kids[1]) if a.op == "realCst" else (a.op, a.kids) for a in args)
    key = (entry.name, lang, shape)
    try:
        return _OPERANDS_OF_PARTIALS[key]
    except KeyError:
        pass
    stand_ins = tuple(a if s is not True else Node("ident", (f"operand {j}",)) for j, (a, s) in enumerate(zip(args, shape)))
    positions = {id(a): j for j, (a, s) in enumerate(zip(stand_ins, shape)) if s is True}
    try:
        partials = entry.partials(stand_ins, lang)
    except Exception:  # noqa: BLE001 -- the real operands then build (or refuse) the partials themselves
        answer = None
    else:
        found = [None if p is None else _operands_read(p, positions) for p in partials]
        answer = None if any(f is False for f in found) else tuple(f or frozenset() for f in found)
    _OPERANDS_OF_PARTIALS[key] = answer
    return answer


def _operands_read(partial, positions: dict):
    """The stand-in positions in the partial's tree, or False if one sits where its zones would
    not be read as a value, or if the tree has a reference of its own."""
    found = set()
    stack = [(partial, False)]
    while stack:
        x, inquired = stack.pop()
        if type(x) is tuple:
            stack.extend((k, inquired) for k in x)
            continue
        if type(x) is not Node:
            continue
        j = positions.get(id(x))
        if j is not None:
            if inquired:
                return False
            found.add(j)
        elif x.op in _NOT_A_VALUE:
            return False
        else:
            inquiry = inquired or (x.op == "intrinsic" and x.kids[0] in INQUIRY_INTRINSICS)
            stack.extend((k, inquiry) for k in x.kids)
    return frozenset(found)


def _union(sets) -> int:
    out = 0
    for s in sets:
        out |= s
    return out


def _pointer_reset_reads(proc, node) -> int:
    """An assignment without derivative through a C pointer (p[i] = ..., *p = ...) may still
    have its lhs adjoint reset (pb[i] = 0.0, 4.6), which reads p and the index: kept diff-live,
    so that the forward sweep sets pb where the reset needs it."""
    if proc.lang != "c" or node.op != "assign":
        return 0
    base = node.lhs
    while base.op in ("arrayAccess", "fieldAccess"):
        base = base.kids[0]
    loc = proc.zones.vars.get(base.kids[0]) if base.op == "ident" else None
    if base.op == "deref" or (loc is not None and loc.pointer):
        return proc.zones.address_reads(node.lhs, proc.call_results)
    return 0
