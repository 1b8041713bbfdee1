"""Facts: the one narrow interface through which the rules read the analyses (DESIGN.md item 4).

`Facts(program, results)` answers the predicates of paper 5.3 keyed by statement: the
arguments are IL nodes of the stamped trees of `build_program` (each statement carries its
`sid` annotation), the answers are Python bools and names. Rules never see bitsets, flow-graph
objects or `id()`.

Which flow-graph instruction answers for a statement (engine.flowgraph):
- a simple statement (assign, call, io, return, a C `varDecl` with initialisers, ...) is one
  instruction, its *main* instruction, whose node is the statement;
- a function call inside one of its expressions is split out as a "call" instruction placed
  just before it (its *pre* instructions): the statement starts at the first of them;
- an if / while / doWhile / C for / switch is a "test" instruction (its *control*); a WHERE
  is two tests (one before each arm); a Fortran DO is a "loopEntry" (index = lo, trip count
  fixed; it reads the bounds) followed by the "loop" header (its *control*);
- a statement with no instruction (block, case, comment, a statement the flow graph skips)
  answers through the statements inside it.
Sets *before* a statement are read before its first instruction (the first split call, the
loopEntry of a DO), sets *after* it after its last one outside the bodies (the main
instruction, the test, the DO header). An expression of the statement is evaluated by the
instruction that reads it: the loopEntry for a DO's bounds, the test for a condition, the
main instruction otherwise (whose Active⁻ includes the temporaries of the split calls).
"""
from __future__ import annotations

from functools import wraps

from ..engine.bitsets import zones_of
from ..engine.effects import instruction_effects
from ..engine.errors import SourceError
from ..engine.il import Node, walk
from ..engine.program import _CONTAINER_KINDS, _kid_kinds
from .allocators import allocating_formals, root_of
from .common import call_arguments, external_call_effects, visible_zones
from .tbr_elements import enclosing, overwrites_dead_value
from .independent_trips import independent_trips, may_share_memory
from .tbr_sections import overwritten_section

_CONTROL_KINDS = ("test", "loop")
_CONTROL_STATEMENTS = frozenset({"if", "do", "while", "doWhile", "for", "switch", "where", "forall"})


def _is_main(instr, stmt: Node) -> bool:
    """instr is stmt's own instruction; an assignment carrying the annotations of a C
    declaration (its initial value, hoisted by the adjoint: A-decl-nested) is the
    declaration's."""
    return instr.node is stmt or (stmt.op == "assign" and instr.node.op == "varDecl")


def _remembered(predicate):
    """The predicate's answer kept per arguments, taken by identity (two equal statements at
    different places have different facts): facts are pure functions of the analysis results,
    and every candidate rule asks its own again."""
    name = predicate.__name__
    if predicate.__code__.co_argcount == 3:   # (self, expression or reference, statement): most, and the most asked
        @wraps(predicate)
        def remembered(self, first, second):
            key = (name, id(first), id(second))
            hit = self._answers.get(key)
            if hit is None:
                # the arguments are kept with the answer, so that their ids are not reused
                hit = self._answers[key] = (predicate(self, first, second), (first, second))
            return hit[0]
        return remembered

    if predicate.__code__.co_argcount == 2:   # (self, statement): isRestored, isLiveForDiff, ...
        @wraps(predicate)
        def remembered(self, only):
            key = (name, id(only))
            hit = self._answers.get(key)
            if hit is None:
                hit = self._answers[key] = (predicate(self, only), (only,))
            return hit[0]
        return remembered

    @wraps(predicate)
    def remembered(self, *args):
        key = (name, *map(id, args))
        hit = self._answers.get(key)
        if hit is None:
            hit = self._answers[key] = (predicate(self, *args), args)
        return hit[0]
    return remembered


class Facts:
    """The paper's predicates (5.3) for the rules, keyed by statement."""

    def __init__(self, program, results):
        self.program, self.results = program, results
        self.activity, self.uses, self.live = results.activity, results.uses, results.diff_live
        self._instrs: dict[str, dict] = {}       # proc name -> sid -> [Instr] in execution order
        self._split_calls: dict[int, tuple] = {}  # id(statement) -> (statement, its split calls)
        self._call_expr: dict[str, dict] = {}    # proc name -> id(call expression) -> Instr
        self._diff_vars: dict[str, frozenset] = {}
        self._formal_cache: dict[str, tuple] = {}
        self._active_vars: dict[str, frozenset] = {}
        self._memory_cache: dict[str, tuple] = {}
        self._allocating: dict | None = None      # analyses/allocators.py, computed on first use
        self._allocation_sites: dict[int, frozenset] = {}
        self._answers: dict[tuple, tuple] = {}     # see _remembered
        self._owners: dict[int, tuple] = {}       # id(statement) -> (statement, procedure, own instructions)
        self._procs: dict[int, tuple] = {}        # id(statement) -> (statement, _proc)
        self._mains: dict[int, tuple] = {}        # id(statement) -> (statement, its main instruction of _main)
        self._evaluators: dict[int, tuple] = {}   # id(statement) -> (statement, the instruction reading its expressions)
        self._innermost: dict[int, tuple] = {}    # id(statement) -> (statement, _innermost_calls)
        self._enclosing: dict[str, dict] = {}     # proc name -> tbr_elements.enclosing of its body
        self._modes: dict[tuple, tuple] = {}      # (id(procedure), checkpointed) -> (_called, the procedure)
        self._sites_by_callee: dict | None = None  # id(callee) -> its call sites
        if results.activity_facts is not None:
            self._adopt(results.activity_facts)

    # the caches and predicates that read the program, in-out and the activity only
    _ACTIVITY_CACHES = ("_instrs", "_split_calls", "_call_expr", "_diff_vars", "_formal_cache", "_active_vars",
                        "_memory_cache", "_allocating", "_allocation_sites", "_owners", "_procs", "_mains",
                        "_evaluators", "_innermost")
    _ACTIVITY_PREDICATES = frozenset(("has_derivative_instruction", "has_derivative", "derivative_read_later",
                                      "stale_derivatives_of_calls_in"))

    def _adopt(self, earlier: "Facts"):
        """Start from what the Facts of the activity alone (run_analyses' resets, for
        Diff-live) found: the same program and activity, so the same answers, not found twice."""
        for name in self._ACTIVITY_CACHES:
            value = getattr(earlier, name)
            setattr(self, name, value if value is None else type(value)(value))
        self._answers = {key: answer for key, answer in earlier._answers.items()
                         if key[0] in self._ACTIVITY_PREDICATES}

    # --- statements and their instructions --------------------------------------------------
    def _sid(self, stmt: Node) -> int:
        sid = stmt.ann.get("sid") if isinstance(stmt, Node) else None
        if sid is None:
            raise ValueError(f"not a statement of the analysed program (no sid): {stmt!r}")
        return sid

    def _proc(self, stmt: Node):
        known = self._procs.get(id(stmt))   # (the sid is in the annotations, a slow mapping)
        if known is not None and known[0] is stmt:
            return known[1]
        proc, _ = self.program.statement(self._sid(stmt))
        if proc is None:
            raise ValueError(f"statement outside every procedure: {stmt!r}")
        self._procs[id(stmt)] = (stmt, proc)
        return proc

    def _index(self, proc) -> dict:
        table = self._instrs.get(proc.name)
        if table is None:
            table, calls = {}, {}
            owner = {}  # id(call expression) -> sid of the statement it was split out of
            instrs = sorted(proc.flow.instructions(), key=lambda i: (i.block, i.index))
            own_sid = {id(i): i.node.ann.get("sid") for i in instrs}   # (read once: a slow mapping)
            for instr in instrs:
                sid = own_sid[id(instr)]
                if sid is not None:
                    for call in self._calls_split_out_of(instr.node, proc):
                        owner[id(call)] = sid
            for instr in instrs:
                sid = own_sid[id(instr)]
                if sid is None and instr.kind == "call":
                    calls[id(instr.node)] = instr
                    sid = owner.get(id(instr.node))
                if sid is not None:
                    table.setdefault(sid, []).append(instr)
            for group in table.values():  # pre (split calls), loopEntry, then main / control
                group.sort(key=lambda i: (own_sid[id(i)] is not None, i.kind in _CONTROL_KINDS, i.block, i.index))
            self._instrs[proc.name], self._call_expr[proc.name] = table, calls
        return table

    def _own(self, stmt: Node):
        """(procedure, the statement's own instructions in execution order)."""
        known = self._owners.get(id(stmt))
        if known is None:
            proc = self._proc(stmt)
            known = self._owners[id(stmt)] = (stmt, proc, self._index(proc).get(self._sid(stmt), []))
        return known[1], known[2]

    def _all(self, stmt: Node):
        """(procedure, its own instructions, or those of the statements inside it if none)."""
        proc, own = self._own(stmt)
        if own:
            return proc, own
        table = self._index(proc)
        inner = []
        for node in _statements_under(stmt):
            inner.extend(table.get(node.ann.get("sid"), []))
        return proc, inner

    def _main(self, stmt: Node):
        """(procedure, the instruction whose node is the statement: the last of its own)."""
        proc, own = self._own(stmt)
        known = self._mains.get(id(stmt))   # asked by several predicates of each statement
        if known is None:
            mains = [i for i in own if _is_main(i, stmt)]
            known = self._mains[id(stmt)] = (stmt, mains[-1] if mains else None)
        return proc, known[1]

    def _reader(self, expr: Node, stmt: Node):
        """(procedure, the instruction that evaluates expr, a sub-tree of stmt): the call
        split out of stmt whose arguments hold expr, else stmt's main instruction."""
        proc, own = self._own(stmt)
        if self._calls_split_out_of(stmt, proc):
            innermost = self._innermost_calls(stmt, proc).get(id(expr))
            if innermost is not None:
                instr = self._call_expr[proc.name].get(id(innermost))
                if instr is not None:
                    return proc, instr
        known = self._evaluators.get(id(stmt))
        if known is None:
            known = self._evaluators[id(stmt)] = (stmt, self._evaluator(stmt, own))
        return proc, known[1]

    def _innermost_calls(self, stmt: Node, proc) -> dict:
        """id(node) -> the innermost call split out of stmt whose arguments hold the node
        (f(f(x)) evaluates x at the inner one; the first of the smallest), one table per
        statement: is_active_expr asks of every sub-tree of its expressions."""
        known = self._innermost.get(id(stmt))
        if known is None:
            calls = self._calls_split_out_of(stmt, proc)
            table = {}
            sizes = [sum(1 for _ in walk(call)) for call in calls]
            # the largest first, so that a smaller call (an earlier one at equal size) overwrites
            for k in sorted(range(len(calls)), key=lambda k: (-sizes[k], -k)):
                for arg in calls[k].kids[1]:
                    for node in walk(arg):
                        table[id(node)] = calls[k]
            known = self._innermost[id(stmt)] = (stmt, table)
        return known[1]

    def _calls_split_out_of(self, stmt: Node, proc) -> list:
        """The calls split out of stmt's own expressions (_split_calls_of), found once."""
        known = self._split_calls.get(id(stmt))
        if known is None:
            known = self._split_calls[id(stmt)] = (stmt, _split_calls_of(stmt, proc.call_results))
        return known[1]

    @staticmethod
    def _evaluator(stmt: Node, own: list):
        """The instruction of stmt that evaluates its expressions (those not in a split call)."""
        mains = [i for i in own if _is_main(i, stmt)]
        if not mains:
            raise ValueError(f"{stmt.op} at line {stmt.line} is no instruction")
        if stmt.op == "do":
            return mains[0]  # the loopEntry reads the bounds
        if stmt.op == "where" and len(mains) > 1:
            return mains[0]
        return mains[-1]

    def _call_instr(self, call: Node):
        """(procedure, instruction) of a call statement or of a call split out of an
        expression."""
        if call.ann.get("sid") is not None:
            proc, main = self._main(call)
            if main is None or main.kind != "call":
                raise ValueError(f"not a call of a procedure: {call!r}")
            return proc, main
        for proc in self.program.procedures.values():
            self._index(proc)
            instr = self._call_expr[proc.name].get(id(call))
            if instr is not None:
                return proc, instr
        raise ValueError(f"not a call of the analysed program: {call!r}")

    # --- the predicates --------------------------------------------------------------------
    @_remembered
    def is_live_for_diff(self, stmt: Node) -> bool:
        """isLiveForDiff(I) — paper 5.3: "true if the instruction I produces a value that is
        diff-live, i.e. useful for the derivatives, i.e. out(I) ∩ Diff-live⁺(I) ≠ ∅", and 5.2:
        "a statement that has a derivative or that computes a diff-live variable makes its
        surrounding control diff-live".

        Reads `DiffLiveness.is_live_for_diff` (Diff-live⁺ of analyses/diffliveness.py) of the
        statement's own instructions: true when one of them is live. For a simple statement
        that is its instruction, or one of the calls split out of it (a live call must stay).
        For if / while / doWhile / for / switch / WHERE it is the test, and for a DO the
        loopEntry or the loop header: a test or header is live when its control pseudo-zone
        ctl(T) is in Diff-live⁺(T) (some statement it controls has a derivative or is live),
        or when it writes a diff-live zone (the DO index). A statement without instruction
        (block, case) is live when a statement inside it is.

        A control is live, too, when a statement inside it resets a derivative to zero (4.6:
        `sd = 0` where s gets a passive value while its old derivative may still be read):
        that is derivative code, with no use(I'), so diff-liveness alone does not see it. So
        is freeing (or allocating) the derivative memory of a variable that has a derivative."""
        proc, instrs = self._all(stmt)
        if any(self.live.is_live_for_diff(proc, i) for i in instrs):
            return True
        return stmt.op in _CONTROL_STATEMENTS and any(
            self._resets_a_derivative(s) or (s.op in ("allocate", "deallocate") and self.has_derivative(s.kids[0], s))
            or (s.op == "call" and self._allocation_call(s))
            for s in walk(stmt.kids)
            if s.ann.get("sid") is not None)  # statements, not calls in expressions

    def instruction_resets_a_derivative(self, proc, instr) -> bool:
        """Diff-liveness's view of _resets_a_derivative (analyses/diffliveness.py): instr is a
        statement's instruction whose derivative code is a reset. Needs the activity only."""
        node = instr.node
        return isinstance(node, Node) and node.op in ("assign", "call") and node.ann.get("sid") is not None \
            and self._resets_a_derivative(node)

    def _resets_a_derivative(self, stmt: Node) -> bool:
        """The tangent of stmt sets a derivative to zero (T-assign-zero, T-call-passive, and
        T-seq for the passive function calls in its expressions)."""
        if self.stale_derivatives_of_calls_in(stmt)[0]:
            return True
        if stmt.op not in ("assign", "call"):
            return False
        if stmt.op == "call":
            return not self.is_active_call(stmt) and bool(self.stale_derivatives_after(stmt)[0])
        lhs = stmt.kids[0]
        return (not self.has_derivative_instruction(stmt) and self.has_derivative(lhs, stmt)
                and self.derivative_read_later(lhs, stmt))

    @_remembered
    def is_active_expr(self, expr: Node, stmt: Node) -> bool:
        """isActiveExpr(EXPR) — paper 5.3: "true if EXPR is (or uses in a differentiable way)
        a reference to a variable that belongs to Active⁻".

        Reads Active⁻ = Varied⁻ ∩ Useful⁻ (analyses/activity.py) at the instruction that
        evaluates expr (module docstring), intersected with the zones that flow
        differentiably into expr's value (ZoneMap.diff_reads: not indices, not arguments of
        non-differentiable intrinsics; a split function call is its temporary). expr must be
        a sub-tree of stmt. For the lhs of an assignment use `is_active_ref_after`."""
        proc, instr = self._reader(expr, stmt)
        zones = proc.zones.diff_reads(expr, proc.call_results)
        return bool(zones & self.activity.active_before(proc, instr))

    @_remembered
    def is_active_ref_after(self, ref: Node, stmt: Node) -> bool:
        """The reference ref written by stmt (the lhs of an assignment, a declarator's
        variable) is active after it: its zones meet Active⁺ = Varied⁺ ∩ Useful⁺
        (analyses/activity.py) of the statement's main instruction. Paper 5.3's tangent
        assignment rule differentiates `REF := EXPR` when REF is active after it."""
        proc, instr = self._main(stmt)
        if instr is None:
            raise ValueError(f"{stmt.op} at line {stmt.line} is no instruction")
        return bool(_ref_zones(proc, ref) & self.activity.active_after(proc, instr))

    @_remembered
    def has_derivative_instruction(self, stmt: Node) -> bool:
        """The statement I has a derivative instruction I' (paper 4.6 and fig. 9): I writes a
        zone that is useful after it and varied before or after it — an active result, or a
        derivative reset to zero (`ed = 0.0` in fig. 9). Reads DerivativeUses.has_derivative
        (Varied⁻, Varied⁺ and Useful⁺ of the statement's main instruction)."""
        proc, instr = self._main(stmt)
        return instr is not None and self.uses.has_derivative(proc, instr)

    @_remembered
    def has_derivative(self, ref: Node, stmt: Node) -> bool:
        """isDiff(REF) — paper 5.3: "true if memory reference REF refers to a variable that is
        Active at some location in the program".

        The variable is ref's root name (through array, field and pointer accesses); reads
        `diff_variables` of the procedure containing stmt: the variables with a zone in
        Active⁻ or Active⁺ of some instruction of that procedure, the differentiated formals
        and the head's independents and dependents."""
        proc = self._proc(stmt)
        return _root_name(ref) in self.diff_variables(proc.name)

    @_remembered
    def is_active_call(self, call_stmt: Node) -> bool:
        """isActiveCall(CALL) — paper 5.3: "true if one argument of this CALL is (or uses in a
        differentiable way) a reference to a variable that belongs to Active⁻ or to Active⁺".

        Reads `DerivativeUses.is_active_call` (analyses/derivative_uses.py), the definition
        Diff-live, TBR and Adj-out use too: Active⁻ ∪ Active⁺ of the call instruction
        (analyses/activity.py) meets the differentiable zones the call passes: each actual
        argument's value and memory, and the globals a callee in the source shares with the
        caller (COMMON, module variables: implicit arguments). call_stmt is a `call`
        statement, or a function call expression (split out of its statement)."""
        proc, instr = self._call_instr(call_stmt)
        return self.uses.is_active_call(proc, instr) or self._allocation_call(call_stmt)

    def _allocation_call(self, call_stmt: Node) -> bool:
        """A call that allocates or frees the memory of a structure with a derivative
        (analyses/allocators.py): its derivative allocates the derivative's too."""
        if call_stmt.op != "call" or call_stmt.ann.get("sid") is None:
            return False
        _, instr = self._call_instr(call_stmt)
        site = self.program.call_sites.get(id(instr))
        return site is not None and bool(self._allocated_actuals(site))

    def _allocated_actuals(self, site) -> frozenset:
        """The positions (in site.pairs) of the actuals of a call that a callee allocates or
        frees through and that have a derivative in the caller."""
        known = self._allocation_sites.get(id(site))
        if known is None:
            self._allocation_sites[id(site)] = frozenset()   # a recursive call meanwhile: none (yet)
            positions = self._allocating_formals().get(site.callee.name, frozenset())
            known = frozenset()
            if any(pos in positions for pos, _ in site.pairs):
                derivatives = self._active_variables(site.caller) | set(self.diff_formals(site.caller.name))
                known = frozenset(k for k, (pos, actual) in enumerate(site.pairs)
                                  if pos in positions and root_of(actual) in derivatives)
            self._allocation_sites[id(site)] = known
        return known

    def _allocating_formals(self) -> dict:
        if self._allocating is None:
            self._allocating = allocating_formals(self.program)
        return self._allocating

    def allocating_procedures(self) -> frozenset:
        """The source names of the procedures that allocate or free through a formal."""
        return frozenset(self.program.procedure(n).source_name for n, ks in self._allocating_formals().items() if ks)

    def memory_managing_formals(self, proc_name: str) -> frozenset:
        """The formals through which proc allocates or frees memory that a call passes with
        a derivative (analyses/allocators.py): P_fwd takes their adjoints too, as its forward
        sweep allocates and keeps the adjoint blocks with the primal ones."""
        proc = self.program.procedure(proc_name)
        return frozenset(proc.formals[p] for p in self._allocated_formals(proc))

    def _allocated_formals(self, proc) -> set:
        """The allocating formals of proc that some call passes a structure with a derivative."""
        out = set()
        for site in self.program.call_sites.values():
            if site.callee is proc:
                out |= {site.pairs[k][0] for k in self._allocated_actuals(site)}
        return out

    @_remembered
    def actual_is_active(self, call_stmt: Node, index: int) -> bool:
        """Actual argument number `index` (0-based, in the source order, keyword arguments
        included) of the call is (or uses in a differentiable way) a reference to a variable
        in Active⁻ or Active⁺ of the call instruction (analyses/activity.py): the paper's
        isActiveCall, per argument."""
        proc, instr = self._call_instr(call_stmt)
        if self.uses.actual_is_active(proc, instr, index):
            return True
        site = self.program.call_sites.get(id(instr))
        if site is not None and index in self._allocated_actuals(site):
            return True   # the structure whose memory the callee allocates: its derivative's too
        args = call_arguments(instr)
        active = self.activity.active_before(proc, instr) | self.activity.active_after(proc, instr)
        return 0 <= index < len(args) and bool(_field_pointees(proc, args[index]) & active)

    def is_diff_proc(self, proc_name: str) -> bool:
        """isDiffProc(P) — paper 5.3: "true if isActiveCall is true for at least one call to
        P". Also true for a head (-head). Reads `is_active_call` of every call site of P in
        the program (Program.call_sites)."""
        proc = self.program.procedure(proc_name)
        if proc.name in self.results.heads:
            return True
        return any(site.callee is proc and self.uses.is_active_call(site.caller, site.instr)
                   for site in self.program.call_sites.values()) or bool(self._allocated_formals(proc))

    def is_diff_formal_arg(self, proc_name: str, formal_name: str) -> bool:
        """isDiffFormalArg(ARG) — paper 5.3: "true if at least one call to the current
        procedure feeds into this formal argument an actual argument that belongs to
        Active⁺". Generalised as in paper 4.5 (fig. 8: one differentiated procedure for all
        its calling contexts): the union over every active call site of `actual_is_active`
        (Active⁻ or Active⁺ at the call, analyses/activity.py) of the actual matched to this
        formal (positional or keyword), plus, for a head, the formals holding one of its
        independents or dependents (the -head zones) and its memory_formals, plus the
        formals active at the procedure's entry or exit (_boundary_active_formals: its
        activity context counts its plain calls too)."""
        return formal_name in self.diff_formals(proc_name)

    def diff_formals(self, proc_name: str) -> tuple:
        """The formal arguments of proc_name for which is_diff_formal_arg holds, in order."""
        proc = self.program.procedure(proc_name)
        cached = self._formal_cache.get(proc.name)
        if cached is None:
            chosen = self._site_formals(proc) | self._boundary_active_formals(proc)
            head = self.results.heads.get(proc.name)
            if head is not None:
                indeps, deps = head
                chosen |= {pos for pos, zones in enumerate(proc.zones.formal_zones) if zones & (indeps | deps)}
            # an active array or pointer no call (nor -head) gives a derivative: its derivative
            # memory is the caller's too ("Plus diff mem management of", docs/rules.md#t-proc)
            memory = set(self.memory_formals(proc.name))
            cached = self._formal_cache[proc.name] = tuple(f for k, f in enumerate(proc.formals)
                                                           if k in chosen or f in memory)
        return cached

    def _site_formals(self, proc) -> set:
        """The positions of the formals of proc that some active call site feeds an actual
        active at the call (isDiffFormalArg of the paper)."""
        chosen = self._allocated_formals(proc)
        for site in self.program.call_sites.values():
            if site.callee is not proc or not self.uses.is_active_call(site.caller, site.instr):
                continue
            active = (self.activity.active_before(site.caller, site.instr)
                      | self.activity.active_after(site.caller, site.instr))
            for pos, actual in site.pairs:
                if (self.uses._actual_zones(site.caller, actual) | _field_pointees(site.caller, actual)) & active:
                    chosen.add(pos)
        return chosen

    def _boundary_active_formals(self, proc) -> set:
        """The positions of the formals active at proc's entry or exit. proc's activity
        context is the union over all its call sites, the differentiated ones and the plain
        ones (Varied from one, Useful from another), wider than the actuals active at its
        differentiated calls: the derivative of such a formal is read at the entry or handed
        back at the exit, so it is an argument (a zero dummy where the actual is passive),
        never a local nothing sets."""
        try:
            varied, useful = self.activity.varied[proc.name], self.activity.useful[proc.name]
        except KeyError:   # a procedure no head reaches
            return set()
        boundary = (varied.at_entry & useful.at_entry) | (varied.at_exit & useful.at_exit)
        return {pos for pos, zones in enumerate(proc.zones.formal_zones) if zones & boundary}

    def memory_formals(self, proc_name: str) -> tuple:
        """The formal arguments that are arrays or pointers (C `double *s`, `double s[]`,
        `T *p`; Fortran array dummies) with a derivative variable (their memory holds active
        values somewhere in the procedure) that no independent, dependent nor active actual
        gives a derivative: Tapenade passes their derivative as an argument after them, so
        that the caller gives the derivative memory ("Plus diff mem management of: s:in").
        For a head, every such formal; for another procedure, those a local derivative
        cannot serve, whose size is the caller's (a C pointer or unsized array, a Fortran
        assumed-shape or assumed-size array, a pointer or allocatable dummy): a C derivative
        pointer would be unset, a Fortran array would have no shape. In order."""
        proc = self.program.procedure(proc_name)
        cached = self._memory_cache.get(proc.name)
        if cached is not None:
            return cached
        head = self.results.heads.get(proc.name)
        active = self._active_variables(proc)
        sites = self._site_formals(proc) if head is None else set()
        out = []
        for position, formal in enumerate(proc.formals):
            sym = proc.scope.lookup(formal)
            if formal not in active or sym is None or (sym.dims is None and sym.ptr == 0):
                continue
            if head is not None and not proc.zones.formal_zones[position] & (head[0] | head[1]) \
                    or head is None and position not in sites and sized_by_caller(sym):
                out.append(formal)
        cached = self._memory_cache[proc.name] = tuple(out)
        return cached

    def buffer_variables(self, proc_name: str) -> frozenset:
        """The variables of proc_name with a derivative only as the derivative memory of a
        callee's memory formal (each call zeroes it when the callee needs it zeroed)."""
        proc = self.program.procedure(proc_name)
        return frozenset(self._memory_actuals(proc) - self._active_variables(proc) - set(self.diff_formals(proc.name)))

    def _memory_actuals(self, proc) -> set:
        """The variables of proc passed, at its active calls, to a memory formal of the callee
        (memory_formals): proc gives their derivative memory."""
        out = set()
        for site in self.program.call_sites.values():
            if site.caller is not proc or not self.uses.is_active_call(proc, site.instr):
                continue
            memory = self.memory_formals(site.callee.name)
            for pos, actual in site.pairs:
                if site.callee.formals[pos] in memory:
                    try:
                        out.add(_root_name(actual))
                    except ValueError:  # an expression: call_arguments refuses it
                        pass
        return out & set(proc.zones.vars)

    def diff_procedures(self) -> list:
        """The procedures for which is_diff_proc holds, callees first (the strongly connected
        components of the call graph bottom-up, source order inside a component)."""
        order = [name for component in self.program.bottom_up() for name in component]
        return [name for name in order if self.is_diff_proc(name)]

    def diff_variables(self, proc_name: str) -> frozenset:
        """Names of the variables of proc_name (locals, formals, globals, the function result,
        the temporaries of split function calls) that need a derivative variable in the
        differentiated procedure: a zone of theirs is in Active⁻ or Active⁺ of some
        instruction (analyses/activity.py), or they are differentiated formals
        (diff_formals), or a head's independents or dependents."""
        proc = self.program.procedure(proc_name)
        cached = self._diff_vars.get(proc.name)
        if cached is None:
            cached = self._diff_vars[proc.name] = (self._active_variables(proc) | set(self.diff_formals(proc.name))
                                                   | self._memory_actuals(proc))
        return cached

    def _active_variables(self, proc) -> frozenset:
        """diff_variables but the differentiated formals: the variables with a zone active
        somewhere in proc, the head's independents and dependents, the pointers to them."""
        cached = self._active_vars.get(proc.name)
        if cached is None:
            anywhere = self._active_anywhere(proc)
            head = self.results.heads.get(proc.name)
            if head is not None:
                anywhere |= head[0] | head[1]
            anywhere &= proc.zones.differentiable_mask
            names = {name for name, loc in proc.zones.vars.items() if loc.all & anywhere}
            # a C pointer whose pointee has a derivative gets a derivative pointer (4.2)
            names |= {z.name.lstrip("*") for z in proc.zones.zones
                      if z.name.startswith("*") and (anywhere >> z.index) & 1 and z.name.lstrip("*") in proc.zones.vars}
            # a Fortran pointer that may point to active memory gets a derivative pointer (pd => ad)
            names |= {name for name, loc in proc.zones.vars.items() if loc.fortran_pointer
                      and _ref_zones(proc, Node("ident", (name,))) & anywhere}
            names |= _pointers_to_active_memory(proc.zones, anywhere)
            # and a pointer formal whose pointee's pointer fields point to active memory (*m->data)
            names |= {base for z in proc.zones.zones if z.kind == "pointee" and (anywhere >> z.index) & 1
                      for base in [z.name.lstrip("*").split("->")[0]]
                      if base in proc.zones.vars and proc.zones.vars[base].pointer}
            # and a C pointer whose pointee's fields have (not through a pointer field: another issue)
            names |= {z.name.split("->")[0] for z in proc.zones.zones
                      if z.name.count("->") == 1 and not z.name.startswith("*") and (anywhere >> z.index) & 1
                      and z.name.split("->")[0] in proc.zones.vars}
            cached = self._active_vars[proc.name] = frozenset(names)
        return cached

    def _active_anywhere(self, proc) -> int:
        """The zones active before or after some instruction of proc."""
        anywhere = 0
        for instr in proc.flow.instructions():
            anywhere |= self.activity.active_before(proc, instr) | self.activity.active_after(proc, instr)
        return anywhere

    def active_unnamed_globals(self, proc_name: str) -> frozenset:
        """Names of the global variables active somewhere in proc_name that it never mentions
        but can name (USE of their module, C file scope): its callees use them (a SAVE local
        moved to global state, rules/adjoint/saved_locals.py). A head zeroes their adjoints."""
        proc = self.program.procedure(proc_name)
        zones = proc.zones
        out = set()
        for z in zones_of(self._active_anywhere(proc) & zones.differentiable_mask & zones.caller_globals_mask):
            var, name = zones.zones[z].var, zones.zones[z].name   # a variable or its fields, not a pointee
            sym = proc.scope.lookup(var) if var and var not in zones.vars else None
            if sym is not None and sym.kind == "variable" and (name == var or name.startswith((var + "%", var + "."))) \
                    and not sym.ptr and not sym.attrs & {"allocatable", "pointer"}:   # their adjoints: the user's
                out.add(var)
        return frozenset(out)

    def zero_at_entry(self, proc_name: str) -> frozenset:
        """Names of the variables of proc_name whose derivative must be set to zero when it
        starts: useful at the entry (their entry value may reach a derivative) but not
        varied there (their derivative is zero, paper 4.6: implicit zero made explicit, as
        its derivative variable holds whatever the caller left in it). Reads Varied and
        Useful at the entry of the procedure's flow graph."""
        proc = self.program.procedure(proc_name)
        at_entry = self._zero_at_entry(proc)
        return frozenset(name for name, loc in proc.zones.vars.items() if loc.all & at_entry)

    def memory_read_at_entry(self, proc_name: str, formal_name: str) -> bool:
        """Whether the derivative of some memory a memory formal reaches (C: what the pointer
        points to) may be read before it is written: useful at the entry. What is read is
        zero: the formal holds no independent, and no call passes it an active value (where
        it is varied at the entry, -nooptim activity varying every input or a call varying
        it, it is not useful after that call: its derivative does not matter)."""
        proc = self.program.procedure(proc_name)
        position = proc.formals.index(formal_name)
        return bool(proc.zones.formal_zones[position] & self.activity.useful[proc.name].at_entry
                    & proc.zones.differentiable_mask)

    def _zero_at_entry(self, proc) -> int:
        """The differentiable zones useful but not varied at the entry of proc."""
        return (self.activity.useful[proc.name].at_entry & ~self.activity.varied[proc.name].at_entry
                & proc.zones.differentiable_mask)

    def zero_at_entry_fields(self, proc_name: str, name: str) -> tuple:
        """The field paths (tuples of field names, () for the variable itself) of the parts of
        variable `name` whose derivative must be set to zero at the entry (zero_at_entry):
        a structure is reset field by field, only where needed."""
        proc = self.program.procedure(proc_name)
        at_entry = self._zero_at_entry(proc)
        return _field_paths(proc.zones.vars[name], lambda zones: zones & at_entry)

    def structure_fields(self, call: Node, actual: Node) -> tuple:
        """The field paths (as zero_at_entry_fields) of the differentiable leaves of the
        structure that `actual`, an actual argument of `call`, refers to (a variable, a
        component, an element, C's &v); () when it is not a reference to a structure."""
        proc, _ = self._call_instr(call)
        loc = _loc_of(proc.zones, actual)
        if loc is None or not loc.fields or loc.pointer:
            return ()
        return _field_paths(loc, lambda zones: zones & proc.zones.differentiable_mask)

    @_remembered
    def zero_fields_before_call(self, call: Node, index: int) -> tuple:
        """The field paths (as zero_at_entry_fields) of the structure passed as actual number
        `index` of an active call whose derivative must be set to zero just before the call:
        the parts not varied there (their derivative is zero, but the derivative variable
        holds whatever was left in it, paper 4.6) that the callee may read the derivative of
        (varied at its entry through another call site: it does not reset them itself).
        () when the actual is not a structure reference (ident, component, element, C &v)."""
        proc, instr = self._call_instr(call)
        site = self.program.call_sites.get(id(instr))
        loc = _loc_of(proc.zones, call.args[index])
        if site is None or loc is None:
            return ()
        zero_here = proc.zones.differentiable_mask & ~self.activity.varied[proc.name].before(instr)
        varied_in_callee = self.activity.varied[site.callee.name].at_entry

        def needed(zones):
            return any(site.to_callee(1 << z) & varied_in_callee for z in zones_of(zones & zero_here))
        return _field_paths(loc, needed) if loc.fields else ()

    @_remembered
    def derivative_read_later(self, ref: Node, stmt: Node) -> bool:
        """Whether the derivative of ref's variable may be read after stmt: the variable is
        active (Active⁻) at some instruction reachable after stmt (loops included), or it is
        useful after stmt and at the exit (a head's dependent, a callee's output the caller
        reads: its derivative is a result). When it cannot, a derivative that stmt makes zero may stay
        implicit zero (paper 4.6: `a = 5.0` in fig. 9 needs no `ad = 0.0`); when it can, it
        must be reset (`ed = 0.0`)."""
        proc, instr = self._main(stmt)
        if instr is None:
            return True
        zones = _ref_zones(proc, ref)
        useful = self.activity.useful[proc.name]
        if zones & useful.after(instr) & useful.at_exit:
            return True  # its value may reach the exit, where the caller reads the derivative
        return self._reachable_meets(proc, instr, zones, lambda i: self.activity.active_before(proc, i))

    @_remembered
    def derivative_cut(self, ref: Node, stmt: Node) -> bool:
        """stmt overwrites ref with a passive value (a READ) while ref's value depends on the
        independents (Varied⁻) and matters to the dependents afterwards (Useful⁺): the
        dependence through ref is cut there, which the user should be told."""
        proc, instr = self._main(stmt)
        if instr is None:
            return False
        zones = _ref_zones(proc, ref)
        return bool(zones & self.activity.varied[proc.name].before(instr) & self.activity.useful[proc.name].after(instr))

    def stale_derivatives_after(self, call_stmt: Node) -> tuple:
        """(killed, partly written): names of the variables with a derivative (diff_variables)
        that a call which is not active (is_active_call false; a statement, or a function call
        split out of an expression) may overwrite and whose
        derivative may be read after it (as derivative_read_later). Nothing varied reaches
        what such a call writes, so their derivative is zero there (paper 4.6): a variable the
        call overwrites completely (effects' kills) gets `vd = 0`; one it may overwrite only
        in part cannot be reset."""
        proc, instr = self._call_instr(call_stmt)
        site = self.program.call_sites.get(id(instr))
        summary = self.results.inout.summary(site.callee) if site is not None else None
        if summary is None:  # no source (or never returns): it may write, kills nothing
            effects = external_call_effects(instr, proc)
            written, kills = effects.writes, effects.kills
        else:
            written, kills = site.to_caller(summary[1], written=True), site.to_caller(summary[2], must=True)
        written &= proc.zones.differentiable_mask
        if not written:
            return frozenset(), frozenset()
        useful = self.activity.useful[proc.name]
        killed, partial = set(), set()
        for name in self.diff_variables(proc.name):
            loc = proc.zones.vars.get(name)
            zones = (loc.all & written) if loc is not None else 0
            if not zones:
                continue
            read_later = bool(zones & useful.after(instr) & useful.at_exit) or self._reachable_meets(
                proc, instr, zones, lambda i: self.activity.active_before(proc, i))
            if read_later:
                whole = loc.all & proc.zones.differentiable_mask
                (killed if kills & whole == whole else partial).add(name)
        return frozenset(killed), frozenset(partial)

    @_remembered
    def stale_derivatives_of_calls_in(self, stmt: Node) -> tuple:
        """(killed, partly written): stale_derivatives_after over the function calls split
        out of stmt's own expressions that are not active: as a passive call statement, such
        a call may overwrite a variable (a global) whose derivative is read later."""
        killed, partial = set(), set()
        for call in self.passive_function_calls(stmt):
            call_killed, call_partial = self.stale_derivatives_after(call)
            killed |= call_killed
            partial |= call_partial
        return frozenset(killed), frozenset(partial)

    def passive_function_calls(self, stmt: Node) -> tuple:
        """The function calls split out of stmt's own expressions that are not active."""
        proc, _ = self._own(stmt)
        return tuple(c for c in self._calls_split_out_of(stmt, proc) if not self.is_active_call(c))

    @staticmethod
    def _reachable_meets(proc, instr, zones: int, before) -> bool:
        """Some instruction reachable after instr has `zones` in before(instruction), on a path
        where they are not overwritten first (an assignment that overwrites them decides, by
        its own rule, what their derivative is from there on)."""
        flow = proc.flow

        def meets(instrs) -> bool | None:  # True: found; False: killed first; None: go on
            for i in instrs:
                if before(i) & zones:
                    return True
                if i.kind == "plain" and (instruction_effects(i, proc).kills & zones) == zones:
                    return False
            return None

        found = meets(flow.blocks[instr.block].instrs[instr.index + 1:])
        if found is not None:
            return found
        seen, stack = set(), list(flow.graph.successors(instr.block))
        while stack:
            b = stack.pop()
            if b in seen:
                continue
            seen.add(b)
            found = meets(flow.blocks[b].instrs)
            if found:
                return True
            if found is None:
                stack.extend(flow.graph.successors(b))
        return False

    def is_joint(self, call_stmt: Node) -> bool:
        """isJoint(CALL) — paper 5.4: the call is checkpointed (4.10), unless `$AD
        NOCHECKPOINT` is attached to it or to its callee's header (analyses/snapshots.py)."""
        proc, instr = self._call_instr(call_stmt)
        site = self.program.call_sites.get(id(instr))
        return site is None or id(instr) in self.results.snapshots

    def is_called(self, proc_name: str) -> bool:
        """Some active call of the source reaches proc_name: its adjoint is called, and the
        adjoints of its arguments go in and out as the caller's (paper 4.5)."""
        return self._called(proc_name, True) or self._called(proc_name, False)

    def _active_site(self, site) -> bool:
        """The call of the site is active, or manages the memory of a structure with a
        derivative (is_active_call)."""
        return self.uses.is_active_call(site.caller, site.instr) or bool(self._allocated_actuals(site))

    def is_called_split(self, proc_name: str) -> bool:
        """isCalledSplit(P) — paper 5.4: an active call of P is not checkpointed."""
        return self._called(proc_name, False)

    def is_called_joint(self, proc_name: str) -> bool:
        """isCalledJoint(P) — paper 5.4: an active call of P is checkpointed."""
        return self._called(proc_name, True)

    def _called(self, proc_name: str, checkpointed: bool) -> bool:
        """An active call of P is (checkpointed) or is not checkpointed; answered once per
        procedure from P's own call sites: the rules ask it for every assignment
        (saved_section), and there is a call site per call in the program."""
        proc = self.program.procedure(proc_name)
        known = self._modes.get((id(proc), checkpointed))
        if known is None:
            if self._sites_by_callee is None:
                self._sites_by_callee = {}
                for site in self.program.call_sites.values():
                    self._sites_by_callee.setdefault(id(site.callee), []).append(site)
            snapshots = self.results.snapshots
            known = self._modes[id(proc), checkpointed] = (any(
                self._active_site(site) and (id(site.instr) in snapshots) == checkpointed
                for site in self._sites_by_callee.get(id(proc), ())), proc)
        return known[0]

    def tbr_at_exit(self, proc_name: str) -> frozenset:
        """Names of the variables in TBR at the exit of the procedure that it may write (its
        locals, and the formals and globals it may overwrite): what its backward sweep still
        reads, which P_fwd leaves on the stack for P_bwd (split mode). What it never writes
        the caller's own TBR keeps for it (the callee's derivative reads are use(C'))."""
        proc = self.program.procedure(proc_name)
        unwritten = visible_zones(proc) & ~self.results.inout.may_written(proc)
        return _names(proc, self.results.tbr[proc.name].at_exit & ~unwritten & ~self._fresh_blocks(proc))

    def _fresh_blocks(self, proc) -> int:
        """The heap zones of proc's own allocation sites that nothing else in proc writes
        (mat_alloc's block): their values are indeterminate at its exit, none to save."""
        if proc.flow is None:
            return 0
        blocks = written = 0
        for instr in proc.flow.instructions():
            if instr.node is not None and instr.node.op == "allocate":
                loc = proc.zones.heap.get(id(instr.node))
                blocks |= 0 if loc is None or loc.zone is None else 1 << loc.zone
                continue
            written |= self.live.out(proc, instr) if instr.kind == "call" else instruction_effects(instr, proc).writes
        return blocks & ~written

    def call_written_names(self, call: Node) -> frozenset:
        """Names of the caller's variables the call may write (out(C))."""
        proc, instr = self._call_instr(call)
        return _names(proc, self.live.out(proc, instr))

    def is_live_call(self, call: Node) -> bool:
        """isLiveForDiff of a call statement or of a function call split out of an
        expression: what it writes is diff-live after it (analyses/diffliveness.py)."""
        proc, instr = self._call_instr(call)
        return self.live.is_live_for_diff(proc, instr)

    def is_source_call(self, call: Node) -> bool:
        """The callee of this call has its source in the program (a call site of the call graph)."""
        _, instr = self._call_instr(call)
        return id(instr) in self.program.call_sites

    def active_function_calls(self, stmt: Node) -> tuple:
        """The function calls split out of stmt's own expressions that are active
        (is_active_call), in the order they run (innermost first)."""
        proc, own = self._own(stmt)
        calls = self._calls_split_out_of(stmt, proc)
        if not calls:   # most statements (asked three times of each by the adjoint's guards)
            return ()
        split = {id(c) for c in calls}
        return tuple(i.node for i in own if i.kind == "call" and id(i.node) in split
                     and self.uses.is_active_call(proc, i))

    def snapshot_names(self, call: Node) -> frozenset:
        """SNP of a checkpointed call (analyses/snapshots.py), the names of its variables
        (the call's own result temporary apart: the caller restores it as an assignment's lhs)."""
        proc, instr = self._call_instr(call)
        snapshot = self.results.snapshots.get(id(instr))
        zones = 0 if snapshot is None else snapshot.snp & ~snapshot.sbk
        if "tbr" in self.results.nooptim:
            zones |= self.live.out(proc, instr)
        site = self.program.call_sites.get(id(instr))
        if site is not None:  # what the callee cannot reach does not matter to its rerun
            zones &= site.to_caller(visible_zones(site.callee))
            if "tbr" not in self.results.nooptim:  # nor what it does not read first, unless a derivative
                # instruction before it reads it (P_b leaves it as the snapshot restored it)
                zones &= site.to_caller(self.results.inout.read(site.callee)) | self.results.tbr[proc.name].before(instr)
        return _names(proc, zones & ~self._result_zone(proc, instr), blocks=True)

    def call_moved_pointers(self, call: Node) -> frozenset:
        """The pointer components of the caller's structures that the call may set (`m.data`
        for mat_alloc(&m)): the names of the zones of out(C) that hold a pointer."""
        proc, instr = self._call_instr(call)
        return frozenset(proc.zones.zones[z].name for z in zones_of(self.live.out(proc, instr))
                         if proc.zones.zones[z].type is not None and proc.zones.zones[z].type.op == "pointerType")

    def modified_after_names(self, call: Node) -> frozenset:
        """Adj-out⁺(C): the caller's variables the sequel of the call (forward and backward)
        may leave modified, which a rerun of the call may read (analyses/snapshots.py)."""
        proc, instr = self._call_instr(call)
        return _names(proc, self.results.adj_out[proc.name].after(instr))

    def call_record_names(self, call: Node) -> frozenset:
        """RVARS of a call that is not differentiated: out(C) ∩ TBR⁻(C), what it overwrites that
        a derivative instruction before it reads (all of out(C) under -nooptim tbr)."""
        proc, instr = self._call_instr(call)
        out = self.live.out(proc, instr) & ~self._result_zone(proc, instr)
        if "tbr" not in self.results.nooptim:
            out &= self.results.tbr[proc.name].before(instr)
        return _names(proc, out, blocks=True)

    def result_restored(self, call: Node) -> bool:
        """The temporary receiving a function call's value is in TBR⁻ of the call: a
        derivative instruction of an earlier run of the statement (a loop) still reads it."""
        proc, instr = self._call_instr(call)
        zone = self._result_zone(proc, instr)
        return "tbr" in self.results.nooptim or bool(zone & self.results.tbr[proc.name].before(instr))

    @staticmethod
    def _result_zone(proc, instr) -> int:
        zone = proc.call_results.get(id(instr.node))
        return 0 if zone is None else 1 << zone

    @_remembered
    def tbr_before(self, stmt: Node) -> frozenset:
        """Names of the variables in TBR⁻ (analyses/tbr.py) before the statement's first
        instruction (its first split call, a DO's loopEntry): values that a derivative
        instruction may still need, so that overwriting them needs a PUSH first."""
        proc, instrs = self._all(stmt)
        if not instrs:
            return frozenset()
        return _names(proc, self.results.tbr[proc.name].before(instrs[0]))

    @_remembered
    def tbr_after(self, stmt: Node) -> frozenset:
        """Names of the variables in TBR⁺ (analyses/tbr.py) after the statement's last own
        instruction (the main instruction, the test, a DO's header)."""
        proc, instrs = self._all(stmt)
        if not instrs:
            return frozenset()
        return _names(proc, self.results.tbr[proc.name].after(instrs[-1]))

    @_remembered
    def is_restored(self, stmt: Node) -> bool:
        """RVARS ≠ ∅ — paper 5.4, predicate →restore: RVARS = out(I) ∩ (TBR⁻(I) ∪ use(I')),
        the values the statement overwrites that a derivative instruction reads, either one
        before it (TBR⁻, analyses/tbr.py) or its own I' (the iterative `x = x*x`): the
        forward sweep of the adjoint pushes them before I, the backward sweep pops them.
        Under -nooptim tbr, RVARS = out(I): every value overwritten is saved."""
        return self._overwrites_needed(stmt) and self.saved_section(stmt) is None and not self._in_fused_trip(stmt)

    @_remembered
    def independent_trips(self, loop: Node) -> bool:
        """The loop's trips are independent but for dead sum reductions: its adjoint runs each
        trip forward then backward in the backward loop (analyses/independent_trips.py)."""
        proc = self._proc(loop)
        return not self.is_called_split(proc.name) and independent_trips(loop, proc, self.is_live_for_diff)

    def _in_fused_trip(self, stmt: Node) -> bool:
        """A statement of such a loop's body: the backward loop recomputes what it overwrites."""
        proc = self._proc(stmt)
        place = self._parents(proc).get(id(stmt)) if proc.node.kids[7] is not None else None
        return place is not None and place[2] is not None and place[2].op in ("do", "for") \
            and place[0] is place[2].kids[-1] and self.independent_trips(place[2])

    def _overwrites_needed(self, stmt: Node) -> bool:
        proc, instr = self._main(stmt)
        if instr is None or self.results.tbr is None:
            return False
        if "tbr" in self.results.nooptim:
            return bool(instruction_effects(instr, proc).writes)
        needed = self.results.tbr[proc.name].before(instr) | self.uses.uses(proc, instr)
        return bool(instruction_effects(instr, proc).writes & needed) and not self._dead_element(proc, stmt)

    def saved_section(self, stmt: Node):
        """(loop, offset, position) when the DO loop around the assignment saves the section
        it overwrites whole, before the loop (analyses/tbr_sections.py), else None."""
        proc = self._proc(stmt)
        if proc.lang != "fortran" or proc.node.kids[7] is None or self.is_called_split(proc.name):
            return None
        found = overwritten_section(stmt, self._parents(proc), proc.node)
        return found if found is None or not may_share_memory(proc, found[0].kids[4]) else None

    @_remembered
    def saved_sections(self, loop: Node) -> tuple:
        """The (lhs, offset, position) of the assignments of the DO loop's body whose
        overwritten values the loop saves as one section each (is_restored is false for them)."""
        found = []
        for stmt in loop.kids[4].kids if loop.op == "do" else ():
            if isinstance(stmt, Node) and stmt.op == "assign" and self._overwrites_needed(stmt):
                saved = self.saved_section(stmt)
                if saved is not None and saved[0] is loop:
                    found.append((stmt.kids[0], saved[1], saved[2]))
        return tuple(found)

    def _dead_element(self, proc, stmt: Node) -> bool:
        """TBR refined for an accumulation into one array element (analyses/tbr_elements.py)."""
        if proc.lang != "fortran" or proc.node.kids[7] is None:
            return False
        return overwrites_dead_value(stmt, self._parents(proc), self.is_live_for_diff)

    def _parents(self, proc) -> dict:
        parents = self._enclosing.get(proc.name)
        if parents is None:
            parents = self._enclosing[proc.name] = enclosing(proc.node.kids[7])
        return parents

    def procedure_of(self, stmt: Node) -> str:
        """The unique name of the procedure containing stmt ("p", "m.p", "host.inner")."""
        return self._proc(stmt).name

    def line_of(self, stmt: Node):
        """The source line of stmt (None when unknown)."""
        return stmt.line


# --- helpers ---------------------------------------------------------------------------------
def _split_calls_of(node: Node, call_results: dict) -> list:
    """The call expressions split out of a statement's own expressions (not its bodies)."""
    if not call_results:   # the procedure calls no function: nothing to look for
        return []
    found = []
    stack = [k for k, kind in zip(node.kids, _kid_kinds(node.op, len(node.kids))) if kind not in _CONTAINER_KINDS]
    if node.op in ("call", "intrinsic"):
        stack = [node.kids[1]]
    while stack:
        x = stack.pop()
        if isinstance(x, Node):
            if x.op == "call" and id(x) in call_results:
                found.append(x)
            stack.extend(x.kids)
        elif isinstance(x, tuple):
            stack.extend(x)
    return found


def _statements_under(stmt: Node):
    """The stamped statements strictly inside stmt."""
    stack = list(stmt.kids)
    while stack:
        x = stack.pop()
        if isinstance(x, Node):
            if x.ann.get("sid") is not None:
                yield x
            stack.extend(x.kids)
        elif isinstance(x, tuple):
            stack.extend(x)


def sized_by_caller(sym) -> bool:
    """An array or pointer formal whose size only the caller knows."""
    return sym.ptr > 0 or bool(sym.attrs & {"pointer", "allocatable"}) or any(
        d.kids[1] is None or d.kids[1].op == "star" for d in sym.dims or ())


def _root_name(ref: Node) -> str:
    while isinstance(ref, Node) and ref.op in ("arrayAccess", "fieldAccess", "deref", "address", "cast",
                                               "namedArg"):
        ref = ref.kids[1] if ref.op in ("cast", "namedArg") else ref.kids[0]
    if not isinstance(ref, Node) or ref.op != "ident":
        raise ValueError(f"not a memory reference: {ref!r}")
    return ref.kids[0]


def _ref_zones(proc, ref: Node) -> int:
    if ref.op == "declarator":
        return proc.zones.var_zones(ref.kids[0]) & proc.zones.differentiable_mask
    try:
        return proc.zones.ref(ref).zones & proc.zones.differentiable_mask
    except SourceError:
        return 0


def _field_paths(loc, wanted) -> tuple:
    """The field paths (tuples of field names, () for loc itself) of the leaves of loc (not
    through pointers) whose zones `wanted` (a function of a bitset) accepts."""
    out = []
    stack = [((), loc)]
    while stack:
        path, loc = stack.pop()
        if loc.fields and not loc.pointer:
            stack.extend((path + (f,), sub) for f, sub in reversed(loc.fields.items()))
        elif wanted(loc.all):
            out.append(path)
    return tuple(out)


def _loc_of(zones, ref: Node):
    """The Loc of a reference to a variable, a component or an element (elements of an array
    share its Loc), C's &v as v; None for other expressions (through pointers, values)."""
    if ref.op == "address":
        ref = ref.kids[0]
    if ref.op == "ident":
        return zones.vars.get(ref.kids[0])
    if ref.op == "arrayAccess":
        return _loc_of(zones, ref.kids[0])
    if ref.op == "fieldAccess":
        base = _loc_of(zones, ref.kids[0])
        return base.fields.get(ref.kids[1]) if base is not None and base.fields and not base.pointer else None
    return None


def _names(proc, zones: int, blocks: bool = False) -> frozenset:
    """The variables of proc holding the zones; a COMMON fragment is named by the member of
    proc's own declaration of the block that covers it (its name when proc has none).
    blocks: the memory a pointer component of a C structure points to keeps its own name
    (`*m.data`), for a save of that memory rather than of the structure."""
    out = set()
    for z in zones_of(zones):
        zone = proc.zones.zones[z]
        if blocks and zone.kind == "heap" and zone.var is not None and zone.name.startswith("*"):
            out.add(zone.name)
            continue
        holders = [] if zone.var else [n for n, loc in proc.zones.vars.items()
                                       if loc.all >> z & 1 and zone.name.startswith("/")]
        out.add(zone.var or (holders[0] if len(holders) == 1 else zone.name))
    return frozenset(out)


__all__ = ["Facts"]


def _pointers_to_active_memory(zones, active: int) -> set:
    """The local C pointer variables that may point to active memory (a malloc'd block, an
    array, a formal's pointee): they get a derivative pointer, moved with them (4.2)."""
    out = set()
    for name, loc in zones.vars.items():
        leaves = [leaf for leaf in loc.pointer_leaves() if leaf.zone is not None]
        if not leaves or zones.zones[leaves[0].zone].kind not in ("local", "temp"):
            continue   # a local pointer, or a local structure with pointer fields (Matrix a; a.data)
        targets = [t for leaf in leaves for t in zones.pts.get(leaf.zone, ())]
        if not loc.pointer and not all(zones.zones[z].kind == "heap" for t in targets for z in zones_of(t.all)):
            continue   # a pointer field set to other memory than allocated blocks: not yet (refused)
        if any(t.all & active for t in targets):
            out.add(name)
    return out


def _field_pointees(proc, actual: Node) -> int:
    """The differentiable memory the pointer fields of the structure an actual passes (by
    value, by address or by pointer) point to: a Matrix passes its data."""
    value = actual.kids[1] if actual.op == "namedArg" else actual
    target = value.kids[0] if value.op == "address" else value
    zones = proc.zones
    if proc.lang != "c" or target.op not in ("ident", "arrayAccess", "fieldAccess", "deref"):
        return 0
    try:
        locs = [loc for loc, _ in zones._ref(target)[0]]
        if value.op != "address" and target.op == "ident":
            locs += [loc for loc, _ in zones._ref(Node("deref", (target,)))[0]]
    except SourceError:   # a procedure name
        return 0
    out = 0
    for loc in locs:
        if loc.fields:
            for leaf in loc.pointer_leaves():
                for t in zones.pts.get(leaf.zone, ()):
                    out |= t.all
    return out & zones.differentiable_mask
