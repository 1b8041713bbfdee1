"""Adjoint rules for procedure calls (paper 5.4, the call rules; 4.5, 4.10, fig. 8 and 13).

Joint mode (the default: the call is checkpointed, 4.10). The forward sweep pushes the
snapshot SNP = out(C) ∩ (TBR⁻(C) ∪ Diff-live⁻(C)) (analyses/snapshots.py, which adds what the
sequel leaves modified) and runs the plain call; the backward sweep pops the snapshot, so
that P_b sees what P saw, and calls P_b, which runs P's forward sweep then its backward
sweep. Each array of the snapshot is pushed whole. The arguments of P_b are P's, each one
with an adjoint followed by the caller's adjoint of the actual (actualArgs): a dummy zero for
a passive actual, a temporary for an expression, whose adjoint is propagated into the
expression after the call. A function called inside an expression runs before its statement
into a temporary (judgment `hoist`); the statement's adjoint increments the temporary's
adjoint, which P_b receives last (fig. 8).

A call that is not differentiated keeps its plain call, with the values it overwrites that
a derivative instruction before it reads (out(C) ∩ TBR⁻(C)) pushed and popped, and the
adjoints of what it overwrites reset after (4.6). Split mode ($AD NOCHECKPOINT, or every
call under -nocheckpoint, or a C call whose callee allocates or frees memory through what
it is passed) calls P_fwd and P_bwd instead, for subroutines. Active calls of procedures
without source, and functions called split, are refused.
"""
from __future__ import annotations

from ...engine.il import STATEMENT_OPS, Node
from ...engine.kanren_il import eq, lall, member, pattern, var
from .expressions import increment
from .ruleset import ADJOINT

EMPTY = pattern("block")
JOINT_PREMISES = ("CALL →snapshot [PUSH(SNP) ; POP(SNP)]", "ARGS →actualArgs INITS, ARGSb, POSTS", "P →procName Pb")


# --- call statements ---------------------------------------------------------------------------
@ADJOINT.rule("A-call-joint", judgment="adjoint", ops=("call",), section="5.4",
              source="reconstructed: docs/rules.md#a-call",
              premises=("isActiveCall(CALL)", "isSourceCall(CALL)", "isJoint(CALL)", "isLiveForDiff(CALL)")
              + JOINT_PREMISES,
              conclusion="call P(ARGS)  →  [PUSH(SNP); call P(ARGS) ; POP(SNP); INITS; call Pb(ARGSb); POSTS]")
def a_call_joint(stmt, out, ctx):
    """Fig. 13's checkpointed call; the paper's rule was lost from the extracted text, and is
    reconstructed from 4.10, fig. 8 and 13 and the snapshot predicate of 5.4. The forward
    sweep pushes SNP and runs the plain call; the backward sweep pops SNP, so that P_b,
    which runs both sweeps of P, starts from the values P found; SBK = ∅, so the paper's
    `look` is not needed. SNP is the analyses' (analyses/snapshots.py: out(C) ∪ Adj-out⁺(C),
    within TBR⁻(C) ∪ Diff-live⁻(C)), restricted to what the callee can reach and reads first
    (in(P): its rerun reads nothing else) or a derivative instruction before C reads (TBR⁻(C):
    P_b leaves it as the snapshot restored it), plus the scalars
    the actual arguments read besides the memory they pass (the index k of `a(k)`, the
    variables of an expression argument): P_b gets the actual as the call saw it. Restoring
    a value at the point of the call is always safe in store-all: the backward sweep before
    that point restores what it reads by its own pops. Each array is pushed whole, with its
    size (pushReal8Array); one whose size is not known here (a C pointer, a Fortran
    assumed-size array) as the sections the callee may write through the actuals (and read,
    when the sequel may change them), from the callee's region summary
    (analyses/regions.py), or whole when the procedure allocates it; otherwise refused,
    never pushed by its first element. actualArgs (5.4's INITS and POSTS): an active reference actual gets its
    adjoint (C: its address for a by-value formal, 4.5); an expression a temporary adjoint,
    zero before the call and propagated into the expression after it; a passive actual a
    dummy zero (fig. 8's dummb; a zeroed array of the actual's size for an array). A procedure reached by an active call takes its adjoint
    arguments as the caller's, in and out (A-proc: `incr`, `in-zero` or `in-out`, never
    `out`), so the caller passes its accumulated adjoints as they are. The globals the callee
    reaches (COMMON members, module and C file-scope variables) are implicit arguments: in SNP
    like the actuals, a COMMON member by the caller's own name for it, their adjoints (`/c_b/`,
    m_diff's `xb`, C's `xb`) shared by P_b and the caller."""
    name, args, push, pop, inits, args_b, posts, name_b = (var() for _ in range(8))
    guard = lall(eq(stmt, pattern("call", name, args)), ctx.fact("is_active_call", stmt),
                 ctx.fact("is_source_call", stmt), ctx.fact("is_joint", stmt), ctx.fact("is_live_call", stmt))
    body = lall(*_joint_parts(stmt, name, push, pop, inits, args_b, posts, name_b, ctx),
                eq(out, pattern("block", pattern("block", push, stmt),
                                pattern("block", pop, inits, pattern("call", name_b, args_b), posts))))
    return guard, body


@ADJOINT.rule("A-call-joint-dead", judgment="adjoint", ops=("call",), section="5.4",
              source="reconstructed: docs/rules.md#a-call",
              premises=("isActiveCall(CALL)", "isSourceCall(CALL)", "isJoint(CALL)", "¬isLiveForDiff(CALL)")
              + JOINT_PREMISES,
              conclusion="call P(ARGS)  →  [PUSH(SNP) ; POP(SNP); INITS; call Pb(ARGSb); POSTS]")
def a_call_joint_dead(stmt, out, ctx):
    """The simplification of 5.4 for a joint call that is not diff-live: nothing after the
    call reads what it computes, so the forward sweep does not run it; P_b still runs both
    sweeps of P, from the snapshot (which then only restores what the sequel modified)."""
    name, args, push, pop, inits, args_b, posts, name_b = (var() for _ in range(8))
    guard = lall(eq(stmt, pattern("call", name, args)), ctx.fact("is_active_call", stmt),
                 ctx.fact("is_source_call", stmt), ctx.fact("is_joint", stmt), ctx.no_fact("is_live_call", stmt))
    body = lall(*_joint_parts(stmt, name, push, pop, inits, args_b, posts, name_b, ctx),
                eq(out, pattern("block", push, pattern("block", pop, inits, pattern("call", name_b, args_b), posts))))
    return guard, body


def _joint_parts(call, name, push, pop, inits, args_b, posts, name_b, ctx, stmt=None):
    """The premises shared by the joint rules: the snapshot, actualArgs and procName (stmt:
    the statement holding a function call)."""
    return (ctx.compute(ctx.snapshot, call, pattern("block", push, pop)),
            ctx.compute(ctx.adjoint_arguments, call, call if stmt is None else stmt,
                        pattern("block", inits, args_b, posts)),
            ctx.compute(lambda n: ctx.names.proc(ctx.program.procedure(n).source_name), name, name_b))


@ADJOINT.rule("A-call-split", judgment="adjoint", ops=("call",), section="5.4",
              source="reconstructed: docs/rules.md#a-call-split",
              premises=("isActiveCall(CALL)", "isSourceCall(CALL)", "¬isJoint(CALL)",
                        "ARGS →recordArgs [PUSH(AVARS) ; POP(AVARS)]", "ARGS →actualArgs INITS, ARGSb, POSTS",
                        "ARGSb →forwardArgs ARGSf  (ARGS, the adjoints of the memory P allocates or frees)",
                        "P →procNameFwd Pfwd", "P →procNameBwd Pbwd"),
              conclusion="call P(ARGS)  →  [call Pfwd(ARGSf); PUSH(AVARS) ; POP(AVARS); INITS; call Pbwd(ARGSb); POSTS]")
def a_call_split(stmt, out, ctx):
    """The basic model of 4.5, for a call marked $AD NOCHECKPOINT or under -nocheckpoint:
    P_fwd in the forward sweep (it leaves P's trajectory on the stack), P_bwd in the
    backward sweep, with the arguments of P_b. No snapshot: P is not run again. AVARS are
    the scalars the actual arguments read besides the memory they pass (the k of `a(k)`),
    as for the joint call: P_bwd gets the actuals as the call saw them. A function called
    as a statement (C, its value dropped) is called the same way. A C procedure that
    allocates or frees memory through what it is passed (mat_alloc(&m)) is always called
    split (analyses/snapshots.py): P_fwd allocates the adjoint block with the primal one and
    keeps the blocks it frees, so it takes the adjoints of that memory too (ARGSf)."""
    name, args, push, pop, inits, args_b, posts, fwd, bwd, args_f = (var() for _ in range(10))
    guard = lall(eq(stmt, pattern("call", name, args)), ctx.fact("is_active_call", stmt),
                 ctx.fact("is_source_call", stmt), ctx.no_fact("is_joint", stmt))
    body = lall(ctx.compute(ctx.argument_record, stmt, pattern("block", push, pop)),
                ctx.compute(ctx.adjoint_arguments, stmt, stmt, pattern("block", inits, args_b, posts)),
                ctx.compute(ctx.forward_arguments, stmt, args_b, args_f),
                ctx.compute(lambda n: ctx.split_call_name(n, "fwd"), name, fwd),
                ctx.compute(lambda n: ctx.split_call_name(n, "bwd"), name, bwd),
                eq(out, pattern("block", pattern("block", pattern("call", fwd, args_f), push),
                                pattern("block", pop, inits, pattern("call", bwd, args_b), posts))))
    return guard, body


@ADJOINT.rule("A-call-external", judgment="adjoint", ops=("call",), section="5.4",
              source="reconstructed: docs/rules.md#a-call",
              premises=("isActiveCall(CALL)", "¬isSourceCall(CALL)"),
              conclusion="call P(ARGS)  →  file:line: refused (no source for P)")
def a_call_external(stmt, out, ctx):
    """An active call of a procedure with no source: its adjoint would be the user's."""
    name = var()
    guard = lall(eq(stmt, pattern("call", name, var())), ctx.fact("is_active_call", stmt),
                 ctx.no_fact("is_source_call", stmt))
    return guard, ctx.compute(lambda s, n: ctx.refuse(s, f"an active call of {n}, which has no source"), stmt, name, out)


@ADJOINT.rule("A-call-passive", judgment="adjoint", ops=("call",), section="5.4",
              source="reconstructed: docs/rules.md#a-call",
              premises=("¬isActiveCall(CALL)", "callMatters(CALL)", "CALL →restore [PUSH(RVARS) ; POP(RVARS)]",
                        "CALL →resets Vb = 0  (what CALL overwrites whose adjoint is read later)"),
              conclusion="call P(ARGS)  →  [PUSH(RVARS); call P(ARGS) ; POP(RVARS); Vb = 0]")
def a_call_passive(stmt, out, ctx):
    """A call with no derivative: the trajectory only. RVARS = out(C) ∩ TBR⁻(C), each
    array whole; what it overwrites has a zero adjoint before it (the tangent's `Vd = 0`
    after a passive call, transposed)."""
    push, pop, resets = var(), var(), var()
    guard = lall(eq(stmt, pattern("call", var(), var())), ctx.no_fact("is_active_call", stmt),
                 ctx.check(ctx.call_matters, stmt))
    body = lall(ctx.compute(ctx.call_record, stmt, pattern("block", push, pop)),
                ctx.compute(ctx.adjoint_resets, stmt, resets),
                eq(out, pattern("block", pattern("block", push, stmt), pattern("block", pop, resets))))
    return guard, body


@ADJOINT.rule("A-call-dead", judgment="adjoint", ops=("call",), section="4.9", source="verbatim",
              premises=("¬isActiveCall(CALL)", "¬callMatters(CALL)"), conclusion="call P(ARGS)  →  [{} ; {}]")
def a_call_dead(stmt, out, ctx):
    """Diff-liveness slicing (4.9): nothing the call writes is needed by a derivative."""
    guard = lall(eq(stmt, pattern("call", var(), var())), ctx.no_fact("is_active_call", stmt),
                 ctx.check(ctx.call_unneeded, stmt))
    return guard, eq(out, pattern("block", EMPTY, EMPTY))


# --- function calls inside expressions ------------------------------------------------------
@ADJOINT.rule("A-hoist-none", judgment="hoist", ops=tuple(sorted(STATEMENT_OPS)), section="5.4",
              source="reconstructed: docs/rules.md#a-call",
              premises=("¬activeFunctionCalls(INSTR)",
                        "INSTR →restore [PUSH(RVARS) ; POP(RVARS); Vb = 0]  (its passive function calls)"),
              conclusion="INSTR  →hoist  [PUSH(RVARS) ; POP(RVARS); Vb = 0]")
def a_hoist_none(stmt, out, ctx):
    """A function call that is not active stays in its expression; what it overwrites is
    restored and its adjoint reset as for a passive call statement (A-call-passive)."""
    op = var()
    guard = lall(eq(stmt, pattern(op, rest=var())), member(op, STATEMENT_OPS), ctx.check(ctx.no_hoisted_calls, stmt))
    return guard, ctx.compute(ctx.passive_calls_record, stmt, out)


@ADJOINT.rule("A-hoist", judgment="hoist", ops=tuple(sorted(STATEMENT_OPS)), section="5.4",
              source="reconstructed: docs/rules.md#a-call",
              premises=("activeFunctionCalls(INSTR)  = F1..Fn, innermost first", "Fi →adjcall [Fi→ ; Fi←]  (each i)"),
              conclusion="INSTR  →hoist  [F1→; ...; Fn→ ; Fn←; ...; F1←]")
def a_hoist(stmt, out, ctx):
    """The active function calls of a statement's expressions run before it, in the order
    the flow graph splits them out (fig. 8: the result becomes a variable)."""
    calls, pairs, op = var(), var(), var()
    guard = lall(eq(stmt, pattern(op, rest=var())), member(op, STATEMENT_OPS), ctx.check(ctx.has_hoisted_calls, stmt))
    body = lall(ctx.compute(ctx.hoisted_calls, stmt, calls), ctx.derive_all("adjcall", calls, pairs, stmt),
                ctx.compute(_reversed_pairs, pairs, out))
    return guard, body


def _reversed_pairs(pairs: tuple) -> Node:
    return Node("block", (Node("block", tuple(p.kids[0] for p in pairs)),
                          Node("block", tuple(p.kids[1] for p in reversed(pairs)))))


@ADJOINT.rule("A-function-joint", judgment="adjcall", ops=("call",), section="5.4",
              source="reconstructed: docs/rules.md#a-call",
              premises=("isJoint(F(ARGS))", "TEMP →restore [PUSH(TEMP)? ; POP(TEMP)?]",
                        "F(ARGS) →snapshot [PUSH(SNP) ; POP(SNP)]", "ARGS →actualArgs INITS, ARGSb, POSTS",
                        "F →procName Fb", "TEMP →varName TEMPb"),
              conclusion="F(ARGS)  →adjcall  [PUSH(TEMP)?; PUSH(SNP); TEMP = F(ARGS) ;\n"
                         "                     POP(SNP); INITS; call Fb(ARGSb, TEMPb); POSTS; POP(TEMP)?]")
def a_function_joint(call, out, ctx, stmt):
    """The joint call rule for a function whose value goes into TEMP: Fb receives the
    adjoint of the value last (fig. 8). TEMP is saved like an assignment's lhs when an
    earlier run of the statement (a loop) still needs it."""
    name, args, push, pop, inits, args_b, posts, name_b, keep, restore, primal = (var() for _ in range(11))
    guard = lall(eq(call, pattern("call", name, args)), ctx.fact("is_joint", call))
    body = lall(ctx.compute(ctx.result_record, call, pattern("block", keep, restore)),
                ctx.compute(ctx.function_primal, call, name, primal),
                *_joint_parts(call, name, push, pop, inits, args_b, posts, name_b, ctx, stmt),
                _function_sweeps(out, pattern("block", keep, push, primal), pop, inits, name_b, args_b, posts, restore))
    return guard, body


def _function_sweeps(out, forward, pop, inits, name_b, args_b, posts, restore):
    """The conclusion of the function call rules: [FORWARD ; POP; INITS; call Fb(ARGSb); POSTS; RESTORE]."""
    return eq(out, pattern("block", forward, pattern("block", pop, inits, pattern("call", name_b, args_b), posts,
                                                     restore)))


@ADJOINT.rule("A-function-split", judgment="adjcall", ops=("call",), section="5.4",
              source="reconstructed: docs/rules.md#a-call-split",
              premises=("¬isJoint(F(ARGS))", "TEMP →restore [PUSH(TEMP)? ; POP(TEMP)?]",
                        "ARGS →recordArgs [PUSH(AVARS) ; POP(AVARS)]", "ARGS →actualArgs INITS, ARGSb, POSTS",
                        "F →procNameFwd Ffwd", "F →procNameBwd Fbwd"),
              conclusion="F(ARGS)  →adjcall  [PUSH(TEMP)?; TEMP = Ffwd(ARGS); PUSH(AVARS) ;\n"
                         "                     POP(AVARS); INITS; call Fbwd(ARGSb, TEMPb); POSTS; POP(TEMP)?]")
def a_function_split(call, out, ctx, stmt):
    """A-call-split for a function whose value goes into TEMP: F_fwd returns the value (and
    leaves F's trajectory on the stack), F_bwd receives the adjoint of the value last, as
    F_b does (fig. 8)."""
    name, args, push, pop, inits, args_b, posts, fwd, bwd, keep, restore, primal = (var() for _ in range(12))
    guard = lall(eq(call, pattern("call", name, args)), ctx.no_fact("is_joint", call))
    body = lall(ctx.compute(ctx.result_record, call, pattern("block", keep, restore)),
                ctx.compute(ctx.argument_record, call, pattern("block", push, pop)),
                ctx.compute(ctx.adjoint_arguments, call, stmt, pattern("block", inits, args_b, posts)),
                ctx.compute(lambda n: ctx.split_call_name(n, "fwd"), name, fwd),
                ctx.compute(lambda n: ctx.split_call_name(n, "bwd"), name, bwd),
                ctx.compute(ctx.function_primal, call, fwd, primal),
                _function_sweeps(out, pattern("block", keep, primal, push), pop, inits, bwd, args_b, posts, restore))
    return guard, body


@ADJOINT.rule("A-expr-call", judgment="adjexpr", ops=("call",), section="5.4",
              source="reconstructed: docs/rules.md#a-call",
              premises=("isActiveExpr(F(ARGS))", "hoisted(F(ARGS))  = TEMP", "TEMP →varName TEMPb"),
              conclusion="F(ARGS), VAL  →adjexpr  {TEMPb = TEMPb + VAL}")
def a_expr_call(expr, out, ctx, value, stmt):
    """The call's value is the temporary TEMP (A-hoist): a leaf of the expression."""
    temp_b = var()
    guard = lall(eq(expr, pattern("call", var(), var())), ctx.fact("is_active_expr", expr, stmt),
                 ctx.check(ctx.is_hoisted, expr))
    body = lall(ctx.compute(ctx.temp_adjoint, expr, temp_b), ctx.compute(increment, temp_b, value, out))
    return guard, body


@ADJOINT.rule("A-expr-call-refuse", judgment="adjexpr", ops=("call",), section="5.4",
              source="reconstructed: docs/rules.md#a-call",
              premises=("isActiveExpr(F(ARGS))", "¬hoisted(F(ARGS))"),
              conclusion="F(ARGS), VAL  →adjexpr  file:line: refused (no source for F)")
def a_expr_call_refuse(expr, out, ctx, value, stmt):
    name = var()
    guard = lall(eq(expr, pattern("call", name, var())), ctx.fact("is_active_expr", expr, stmt),
                 ctx.check(ctx.not_hoisted, expr))
    return guard, ctx.compute(lambda s, n: ctx.refuse(s, f"the adjoint of the function {n}, which has no source"),
                              stmt, name, out)
