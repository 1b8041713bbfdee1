"""Tangent rules for sequences and control (paper 5.3; 4.4).

The sequence keeps the order of the original instructions (verbatim rule). Tangent
differentiation goes down the control structures; a control structure that is not live for
diff (no derivative instruction inside, nothing inside needed by one) is copied as it is
(the paper's optimized non-diff-live variants). Statements with no derivative of their own
(jumps, I/O, comments, ...) are copied.
"""
from __future__ import annotations

from ...engine.il import Node
from ...engine.kanren_il import conda, eq, lall, member, pattern, var
from .ruleset import TANGENT

CONTROL_OPS = ("if", "do", "while", "for", "doWhile", "switch", "where", "forall")
PASSIVE_OPS = ("nop", "comment", "goto", "exit", "cycle", "stop", "io")
JUMP_OPS = ("computedGoto", "arithmeticIf")
LOOP_OPS = ("do", "while", "doWhile", "for")
MASKED_OPS = ("where", "forall")
ALLOCATION_OPS = ("allocate", "deallocate")


@TANGENT.rule("T-seq", judgment="tangent", ops=("block",), section="5.3",
              source="reconstructed: docs/rules.md#t-call",
              premises=("INSTR →  INSTRd", "INSTRS →  INSTRSd",
                        "INSTR →resets V  (the variables the passive function calls in INSTR overwrite whose "
                        "derivative is read later)"),
              conclusion="{L: INSTR ; INSTRS}  →  {L: Vd = 0 ; INSTRd ; INSTRSd}")
def t_seq(block, out, ctx):
    """The paper's rule, plus: a function called in an expression of INSTR that is not
    active may overwrite a variable (a global) whose derivative is read later, as a passive
    call statement does (T-call-passive); its derivative is reset before INSTRd, where the
    analyses run the call (before the statement that holds it).

    The label L of INSTR (a GOTO target, a labelled DO termination, a target of a computed
    GOTO or an arithmetic IF) goes on the first statement of what INSTR becomes: a jump to
    L runs the derivative statements with the copy of INSTR, as falling into it does (5.5:
    the differentiated basic blocks are connected like the original ones)."""
    stmts, stmts_d = var(), var()
    guard = eq(block, pattern("block", rest=stmts))
    body = lall(ctx.derive_all("tangent", stmts, stmts_d),
                ctx.compute(lambda s, parts: Node("block", tuple(
                    d for stmt, part in zip(s, parts)
                    for d in _labelled(stmt, ctx.function_call_resets(stmt) + _spliced(stmt, part)))),
                    stmts, stmts_d, out))
    return guard, body


def _spliced(stmt: Node, part: Node) -> tuple:
    """The statements of a rule's output block, to splice into the enclosing sequence; a
    nested C block `{ ... }` stays a block (its declarations are local to it)."""
    if stmt.op == "block":
        return (part,)
    return part.kids if part.op == "block" else (part,)


def _labelled(stmt: Node, stmts: tuple) -> tuple:
    """stmts with the label of stmt on the first of them only (a CONTINUE holds it if stmt
    became nothing)."""
    label = stmt.ann.get("label")
    if label is None:
        return stmts
    if not stmts:
        return (Node("nop", (), stmt.ann.discard("directives")),)
    unlabelled = tuple(Node(s.op, s.kids, s.ann.discard("label")) if "label" in s.ann else s for s in stmts)
    first = unlabelled[0]
    return (Node(first.op, first.kids, first.ann.set("label", label)),) + unlabelled[1:]


@TANGENT.rule("T-control-notlive", judgment="tangent", ops=CONTROL_OPS, section="5.3",
              source="reconstructed: docs/rules.md#t-control",
              premises=("¬isLiveForDiff(CONTROL)",), conclusion="CONTROL  →  CONTROL")
def t_control_notlive(stmt, out, ctx):
    op = var()
    guard = lall(eq(stmt, pattern(op, rest=var())), member(op, CONTROL_OPS), ctx.no_fact("is_live_for_diff", stmt))
    return guard, eq(out, pattern("block", stmt))


@TANGENT.rule("T-if", judgment="tangent", ops=("if",), section="5.3",
              source="reconstructed: docs/rules.md#t-control",
              premises=("isLiveForDiff(if)", "THEN →  THENd", "ELSE →  ELSEd"),
              conclusion="if (C) THEN else ELSE  →  if (C) THENd else ELSEd")
def t_if(stmt, out, ctx):
    """An IF without ELSE has no ELSEd."""
    cond, then, other, then_d, other_d, ann = (var() for _ in range(6))
    guard = lall(eq(stmt, pattern("if", cond, then, other, ann=ann)), ctx.fact("is_live_for_diff", stmt))
    body = lall(ctx.derive("tangent", then, then_d), _derive_optional(ctx, other, other_d),
                eq(out, pattern("block", pattern("if", cond, then_d, other_d, ann=ann))))
    return guard, body


def _derive_optional(ctx, branch, branch_d):
    """branch →  branch_d, for an optional branch (None: None)."""
    return conda((eq(branch, None), eq(branch_d, None)), (ctx.derive("tangent", branch, branch_d),))


@TANGENT.rule("T-loop", judgment="tangent", ops=("do", "while", "doWhile", "for"), section="5.3",
              source="reconstructed: docs/rules.md#t-control",
              premises=("isLiveForDiff(loop)", "BODY →  BODYd"),
              conclusion="loop(CONTROL) BODY  →  loop(CONTROL) BODYd")
def t_loop(stmt, out, ctx):
    """Each loop form with the place of its BODY, and the same form around BODYd."""
    c1, c2, c3, c4, body, body_d, loop_d, ann = (var() for _ in range(8))
    guard = lall(conda((eq(stmt, pattern("do", c1, c2, c3, c4, body, ann=ann)),
                        eq(loop_d, pattern("do", c1, c2, c3, c4, body_d, ann=ann))),
                       (eq(stmt, pattern("while", c1, body, ann=ann)), eq(loop_d, pattern("while", c1, body_d, ann=ann))),
                       (eq(stmt, pattern("doWhile", body, c1, ann=ann)),
                        eq(loop_d, pattern("doWhile", body_d, c1, ann=ann))),
                       (eq(stmt, pattern("for", c1, c2, c3, body, ann=ann)),
                        eq(loop_d, pattern("for", c1, c2, c3, body_d, ann=ann)))),
                 ctx.fact("is_live_for_diff", stmt))
    return guard, lall(ctx.derive("tangent", body, body_d), eq(out, pattern("block", loop_d)))


@TANGENT.rule("T-switch", judgment="tangent", ops=("switch",), section="5.3",
              source="reconstructed: docs/rules.md#t-control",
              premises=("isLiveForDiff(switch)", "CASEi →  CASEid  (each i)"),
              conclusion="switch (S) {case Vi: CASEi}  →  switch (S) {case Vi: CASEid}")
def t_switch(stmt, out, ctx):
    selector, cases, fall, bodies, bodies_d, cases_d, ann = (var() for _ in range(7))
    guard = lall(eq(stmt, pattern("switch", selector, cases, fall, ann=ann)), ctx.fact("is_live_for_diff", stmt))
    body = lall(ctx.compute(case_bodies, cases, bodies), ctx.derive_all("tangent", bodies, bodies_d),
                ctx.compute(lambda c, b: tuple(k.with_kids(k.kids[0], d) for k, d in zip(c, b)), cases, bodies_d, cases_d),
                eq(out, pattern("block", pattern("switch", selector, cases_d, fall, ann=ann))))
    return guard, body


def case_bodies(cases: tuple) -> tuple:
    """The bodies of the cases of a switch or SELECT CASE."""
    return tuple(case.kids[1] for case in cases)


@TANGENT.rule("T-masked", judgment="tangent", ops=("where", "forall"), section="5.3",
              source="reconstructed: docs/rules.md#t-control",
              premises=("isLiveForDiff(MASKED)", "BODY →  BODYd", "ELSE →  ELSEd"),
              conclusion="where (M) BODY else ELSE  →  where (M) BODYd else ELSEd   (forall likewise)")
def t_masked(stmt, out, ctx):
    """The derivative assignments are masked like the assignments they come with (4.11)."""
    op, kids, kids_d, blocks, blocks_d, ann = (var() for _ in range(6))
    guard = lall(eq(stmt, pattern(op, rest=kids, ann=ann)), member(op, MASKED_OPS), ctx.fact("is_live_for_diff", stmt))
    body = lall(ctx.compute(lambda k: tuple(b for b in k if _is_block(b)), kids, blocks),
                ctx.derive_all("tangent", blocks, blocks_d), ctx.compute(_with_blocks, kids, blocks_d, kids_d),
                eq(out, pattern("block", pattern(op, rest=kids_d, ann=ann))))
    return guard, body


def _is_block(kid) -> bool:
    return isinstance(kid, Node) and kid.op == "block"


def _with_blocks(kids: tuple, blocks: tuple) -> tuple:
    replaced = iter(blocks)
    return tuple(next(replaced) if _is_block(k) else k for k in kids)


@TANGENT.rule("T-passive-statement", judgment="tangent", ops=PASSIVE_OPS, section="5.3",
              source="reconstructed: docs/rules.md#t-passive",
              premises=("¬cutsOrResets(INSTR)  (not a READ that cuts or resets a derivative: T-read)",),
              conclusion="INSTR  →  INSTR   (no derivative)")
def t_passive_statement(stmt, out, ctx):
    op = var()
    guard = lall(eq(stmt, pattern(op, rest=var())), member(op, PASSIVE_OPS), ctx.check(ctx.cuts_no_derivative, stmt))
    return guard, eq(out, pattern("block", stmt))


@TANGENT.rule("T-read", judgment="tangent", ops=("io",), section="4.6",
              source="reconstructed: docs/rules.md#t-read",
              premises=("cutsOrResets(READ V1..Vn)",
                        "READ →resets Vi  (the Vi with isDiff(Vi) ∧ derivativeReadLater(Vi))"),
              conclusion="READ V1..Vn  →  READ V1..Vn ; Vid = 0 ...   (a warning for each Vi whose "
                         "varied value is cut)")
def t_read(stmt, out, ctx):
    """A READ gives its items new values that depend on no independent: their derivative is
    zero after it, and must be reset when it is read later (after a merge of control flow,
    like T-assign-zero). A varied value overwritten this way cuts the dependence, as Tapenade
    says in its messages."""
    guard = lall(eq(stmt, pattern("io", var(), var(), var())), ctx.check(ctx.read_cuts_or_resets, stmt))
    return guard, ctx.compute(lambda s: ctx.read_then_zeros(s), stmt, out)


@TANGENT.rule("T-jump", judgment="tangent", ops=JUMP_OPS, section="5.5",
              source="reconstructed: docs/rules.md#t-jump",
              premises=(),
              conclusion="GO TO (L1, ..., Ln), E  →  GO TO (L1, ..., Ln), E ;   "
                         "IF (E) L1, L2, L3  →  IF (E) L1, L2, L3")
def t_jump(stmt, out, ctx):
    """A computed GOTO or an arithmetic IF is copied: the paper's rules (5.3) are for
    structured code, and 5.5 says how Tapenade differentiates the rest, block by block of
    the flow graph, the differentiated blocks joined by the original arrows. The jump is
    such an arrow. Its expression only chooses the arrow: an integer index has no
    derivative, and the sign of a real does not change where the real has one (at a zero
    the branch itself is not differentiable), so E needs no derivative here; the analyses
    still see E read, as a test's condition. The labels it jumps to stay right because
    T-seq moves each label onto the first statement of its differentiated block."""
    op = var()
    return lall(eq(stmt, pattern(op, rest=var())), member(op, JUMP_OPS)), eq(out, pattern("block", stmt))


@TANGENT.rule("T-allocation-diff", judgment="tangent", ops=("allocate", "deallocate"), section="4.2",
              source="reconstructed: docs/rules.md#t-passive",
              premises=("isDiff(TARGET)", "TARGET →ref TARGETd"),
              conclusion="allocate(TARGET(DIMS))  →  allocate(TARGET(DIMS)) ; allocate(TARGETd(DIMS))")
def t_allocation_diff(stmt, out, ctx):
    """A variable with a derivative gets its derivative allocated (and freed) with it. In C
    the derivative block is zeroed (calloc): its derivatives are zero until written, and the
    analyses see a block as one zone, not which elements are written before being read; its
    elements have the derivative type (a struct's T_diff)."""
    op, target, target_d, allocation_d = var(), var(), var(), var()
    guard = lall(eq(stmt, pattern(op, target, rest=var())), member(op, ALLOCATION_OPS),
                 ctx.fact("has_derivative", target, stmt))
    body = lall(ctx.derive("ref", target, target_d),
                ctx.compute(lambda s, t: _allocation_d(s, t, ctx), stmt, target_d, allocation_d),
                eq(out, pattern("block", stmt, allocation_d)))
    return guard, body


def _allocation_d(stmt: Node, target_d: Node, ctx) -> Node:
    """The allocation (or deallocation) of the derivative: C's of the derivative type (a
    struct's T_diff), zeroed."""
    ann = ctx.derivative_ann(stmt)
    if stmt.op != "allocate":
        return Node(stmt.op, (target_d,), ann)
    ann = ann.set("zeroed", True) if ctx.lang == "c" else ann
    return Node("allocate", (target_d, stmt.kids[1], ctx.derivative_type(stmt.kids[2])), ann)


@TANGENT.rule("T-allocation", judgment="tangent", ops=("allocate", "deallocate"), section="4.2",
              source="reconstructed: docs/rules.md#t-passive",
              premises=("¬isDiff(TARGET)",), conclusion="allocate(TARGET)  →  allocate(TARGET)")
def t_allocation(stmt, out, ctx):
    op, target = var(), var()
    guard = lall(eq(stmt, pattern(op, target, rest=var())), member(op, ALLOCATION_OPS),
                 ctx.no_fact("has_derivative", target, stmt))
    return guard, eq(out, pattern("block", stmt))


@TANGENT.rule("T-pointer", judgment="tangent", ops=("pointerAssign",), section="4.2",
              source="reconstructed: docs/rules.md#t-pointer",
              premises=("¬isDiff(P)",), conclusion="P => TARGET  →  P => TARGET")
def t_pointer(stmt, out, ctx):
    """A pointer with no derivative is never read actively: the assignment is only copied."""
    pointer = var()
    guard = lall(eq(stmt, pattern("pointerAssign", pointer, var())), ctx.no_fact("has_derivative", pointer, stmt))
    return guard, eq(out, pattern("block", stmt))


@TANGENT.rule("T-pointer-diff", judgment="tangent", ops=("pointerAssign",), section="4.2",
              source="reconstructed: docs/rules.md#t-pointer",
              premises=("isDiff(P)", "TARGET ≠ null()", "isDiff(TARGET)", "P →ref Pd", "TARGET →ref TARGETd"),
              conclusion="P => TARGET  →  Pd => TARGETd ; P => TARGET")
def t_pointer_diff(stmt, out, ctx):
    """The derivative pointer points to the derivative of the target (4.2: the derivative of
    a pointer is a pointer to derivatives, Tapenade's `pd => ad`), so that `p(i)` and `pd(i)`
    stay the value and the derivative of the same memory. The target's derivative is
    declared like the target, TARGET attribute included."""
    lhs, target, lhs_d, target_d, ann_d = (var() for _ in range(5))
    guard = lall(eq(stmt, pattern("pointerAssign", lhs, target)), ctx.fact("has_derivative", lhs, stmt),
                 ctx.check(not_null, target), ctx.fact("has_derivative", target, stmt))
    body = lall(ctx.derive("ref", lhs, lhs_d), ctx.derive("ref", target, target_d),
                ctx.compute(ctx.derivative_ann, stmt, ann_d),
                eq(out, pattern("block", pattern("pointerAssign", lhs_d, target_d, ann=ann_d), stmt)))
    return guard, body


@TANGENT.rule("T-pointer-null", judgment="tangent", ops=("pointerAssign",), section="4.2",
              source="reconstructed: docs/rules.md#t-pointer",
              premises=("isDiff(P)", "P →ref Pd"), conclusion="P => null()  →  Pd => null() ; P => null()")
def t_pointer_null(stmt, out, ctx):
    lhs, null, lhs_d, ann_d = var(), var(), var(), var()
    guard = lall(eq(stmt, pattern("pointerAssign", lhs, null)), eq(null, pattern("intrinsic", "null", ())),
                 ctx.fact("has_derivative", lhs, stmt))
    body = lall(ctx.derive("ref", lhs, lhs_d), ctx.compute(ctx.derivative_ann, stmt, ann_d),
                eq(out, pattern("block", pattern("pointerAssign", lhs_d, null, ann=ann_d), stmt)))
    return guard, body


@TANGENT.rule("T-pointer-passive-target", judgment="tangent", ops=("pointerAssign",), section="4.2",
              source="reconstructed: docs/rules.md#t-pointer",
              premises=("isDiff(P)", "TARGET ≠ null()", "¬isDiff(TARGET)"),
              conclusion="refused: not differentiated yet")
def t_pointer_passive_target(stmt, out, ctx):
    lhs, target = var(), var()
    guard = lall(eq(stmt, pattern("pointerAssign", lhs, target)), ctx.fact("has_derivative", lhs, stmt),
                 ctx.check(not_null, target), ctx.no_fact("has_derivative", target, stmt))
    return guard, ctx.compute(lambda s: ctx.unsupported(s, "an active pointer to a passive target"), stmt, out)


def not_null(target: Node) -> bool:
    return not (target.op == "intrinsic" and target.kids[0] == "null")


@TANGENT.rule("T-local-decl", judgment="tangent", ops=("varDecl",), section="4.2",
              source="reconstructed: docs/rules.md#t-passive",
              premises=("¬(hasDerivativeInstruction(DECL) ∧ isActiveExpr(INIT))", "DECL →decls DECLd"),
              conclusion="T V = INIT  →  T V = INIT ; T Vd")
def t_local_decl(stmt, out, ctx):
    """A C declaration inside a block declares the derivatives of its variables after them
    (zero for a passive initial value)."""
    guard = lall(eq(stmt, pattern("varDecl", var(), var(), var())), ctx.check(ctx.passive_initial_values, stmt))
    return guard, ctx.compute(lambda s: ctx.local_declaration(s), stmt, out)


@TANGENT.rule("T-local-decl-active", judgment="tangent", ops=("varDecl",), section="4.2",
              source="reconstructed: docs/rules.md#t-passive",
              premises=("hasDerivativeInstruction(DECL) ∧ isActiveExpr(INIT)", "INITi →expr INITid"),
              conclusion="T V1 = INIT1, V2 = INIT2  →  T V1 = INIT1 ; T V1d = INIT1d ; T V2 = INIT2 ; T V2d = INIT2d")
def t_local_decl_active(stmt, out, ctx):
    """A C declaration whose initial value is active: like an assignment, the derivative of
    each variable starts with the derivative of its initial value (4.4). Each variable gets
    its own declarations, the value then its derivative, after the calls split out of the
    initial values (C's declaration order: a derivative is declared after what it reads)."""
    inits, inits_d = var(), var()
    guard = lall(eq(stmt, pattern("varDecl", var(), var(), var())), ctx.check(ctx.active_initial_value, stmt),
                 ctx.compute(lambda s: ctx.initial_values(s), stmt, inits))
    body = lall(ctx.derive_all("expr", inits, inits_d, stmt),
                ctx.compute(lambda s, d: ctx.active_local_declaration(s, d), stmt, inits_d, out))
    return guard, body


@TANGENT.rule("T-return", judgment="tangent", ops=("return",), section="4.5",
              source="reconstructed: docs/rules.md#t-call",
              premises=(), conclusion="return  →  return")
def t_return(stmt, out, ctx):
    return eq(stmt, pattern("return", None)), eq(out, pattern("block", stmt))


@TANGENT.rule("T-return-value", judgment="tangent", ops=("return",), section="4.5",
              source="reconstructed: docs/rules.md#t-call",
              premises=("returnsValue(return E)", "E →expr Ed"),
              conclusion="return E  →  *RESULT = E ; return Ed   (C: F_D returns the derivative)")
def t_return_value(stmt, out, ctx):
    """A differentiated C function returns the derivative of its value and gives the value
    through its last argument (fig. 8, in C)."""
    value, value_d = var(), var()
    guard = lall(eq(stmt, pattern("return", value)), ctx.check(returns_value, value))
    body = lall(ctx.derive("expr", value, value_d, stmt),
                ctx.compute(lambda s, d: ctx.return_value(s, d), stmt, value_d, out))
    return guard, body


def returns_value(value) -> bool:
    return value is not None
