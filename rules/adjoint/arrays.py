"""Adjoint rules for Fortran array notation (paper 4.11, fig. 14; the assignment rules of 5.4
on arrays).

Judgment `adjmask`:  LHS = RHS, MASK → [FORWARD ; BACKWARD] — an array assignment under the
mask of its WHERE (NOMASK outside one): the assignment rules of 5.4, whose adjoint
instructions on arrays stay under the mask (fig. 14, third row).
Judgment `adjarray`:  EXPR, ADJ →adjarray INSTRS — `adjexpr` on array values, ADJ being
(VAL, rank of VAL, MASK) (array_support.py): elementwise operations multiply by their partials
from the derivative table; a scalar broadcast over an array gets the SUM of its adjoint; the
argument of SUM gets its adjoint SPREAD along dim= (4.11's duality); the argument of a
reduction of rank 1 (maxval, product, norm2, dot_product) gets its partial times VAL.
"""
from __future__ import annotations

from ...engine.il import EXPRESSION_OPS, Node
from ...engine.kanren_il import eq, lall, pattern, var
from ..tangent.expressions import OPERATOR_OPS, REFERENCE_OPS
from .array_support import NOMASK
from .ruleset import ADJOINT

EMPTY = pattern("block")


# --- statements ---------------------------------------------------------------------------------
@ADJOINT.rule("A-assign-array", judgment="adjoint", ops=("assign",), section="4.11",
              source="reconstructed: docs/rules.md#a-array",
              premises=("hasDerivativeInstruction(LHS = RHS)", "isActiveExpr(RHS)", "¬scalar(LHS)",
                        "¬wholeStructure(LHS)", "¬structure(LHS)", "LHS = RHS, NOMASK →adjmask OUT"),
              conclusion="LHS = RHS  →  OUT")
def a_assign_array(stmt, out, ctx):
    """An active array assignment outside WHERE: the masked rules with no mask."""
    lhs, rhs = var(), var()
    guard = lall(eq(stmt, pattern("assign", lhs, rhs)), ctx.fact("has_derivative_instruction", stmt),
                 ctx.fact("is_active_expr", rhs, stmt), ctx.check(ctx.array_reference, lhs),
                 ctx.check(ctx.not_whole_structure, lhs), ctx.check(ctx.not_c_structure, lhs))
    return guard, ctx.derive("adjmask", stmt, out, NOMASK)


@ADJOINT.rule("A-array-active", judgment="adjmask", ops=("assign",), section="4.11",
              source="reconstructed: docs/rules.md#a-array",
              premises=("hasDerivativeInstruction(LHS = RHS)", "isActiveExpr(RHS)", "¬mayAlias(LHS, RHS)",
                        "LHS = RHS →record [SAVE ; RESTORE]", "LHS →ref LHSb", "RHS, (LHSb, MASK) →adjarray INSTRS"),
              conclusion="LHS = RHS, MASK  →  [SAVE ; RESTORE; INSTRS; where (MASK) LHSb = 0]")
def a_array_active(stmt, out, ctx, mask):
    """A-assign-active on arrays: the lhs's variable is not in the rhs; LHSb goes into the
    rhs elementwise (summed into a scalar rhs, fig. 14 third row), then is reset where the
    assignment assigned."""
    lhs, rhs, lhs_b, adj, instrs, save, restore, zero, reset = (var() for _ in range(9))
    guard = lall(eq(stmt, pattern("assign", lhs, rhs)), ctx.fact("has_derivative_instruction", stmt),
                 ctx.fact("is_active_expr", rhs, stmt), ctx.check(ctx.no_alias, stmt))
    body = lall(ctx.derive("record", stmt, pattern("block", save, restore)), ctx.derive("ref", lhs, lhs_b),
                ctx.compute(ctx.lhs_adjoint, lhs_b, lhs, rhs, mask, stmt, adj),
                ctx.derive("adjarray", rhs, instrs, adj, stmt),
                ctx.compute(ctx.zero_like, lhs, zero), ctx.compute(ctx.reset_under, lhs_b, zero, mask, reset),
                eq(out, pattern("block", save, pattern("block", restore, instrs, reset))))
    return guard, body


@ADJOINT.rule("A-array-self", judgment="adjmask", ops=("assign",), section="4.11",
              source="reconstructed: docs/rules.md#a-array",
              premises=("hasDerivativeInstruction(LHS = RHS)", "isActiveExpr(RHS)", "elementwiseSelf(LHS, RHS)",
                        "LHS = RHS →record [SAVE ; RESTORE]", "LHS →ref LHSb", "RHS, (LHSb, MASK) →adjarray INSTRS"),
              conclusion="LHS = RHS, MASK  →  [SAVE ; RESTORE; INSTRS(other leaves); "
                         "where (MASK) LHSb = Σ INSTRS(LHS leaves)]")
def a_array_self(stmt, out, ctx, mask):
    """A-assign-self on arrays (fig. 14 first row, `a(:) = 2.9*a(:) + x` gives
    `xb = xb + SUM(ab(:)); ab(:) = 2.9*ab(:)`): element i of the lhs reads only element i of
    itself, so the scalar iterative rule holds elementwise."""
    lhs, rhs, lhs_b, adj, instrs, save, restore, zero, update = (var() for _ in range(9))
    guard = lall(eq(stmt, pattern("assign", lhs, rhs)), ctx.fact("has_derivative_instruction", stmt),
                 ctx.fact("is_active_expr", rhs, stmt), ctx.check(ctx.elementwise_self, stmt))
    body = lall(ctx.derive("record", stmt, pattern("block", save, restore)), ctx.derive("ref", lhs, lhs_b),
                ctx.compute(ctx.lhs_adjoint, lhs_b, lhs, rhs, mask, stmt, adj),
                ctx.derive("adjarray", rhs, instrs, adj, stmt), ctx.compute(ctx.zero_like, lhs, zero),
                ctx.compute(ctx.masked_self_update, instrs, lhs_b, zero, mask, update),
                eq(out, pattern("block", save, pattern("block", restore, update))))
    return guard, body


@ADJOINT.rule("A-array-alias", judgment="adjmask", ops=("assign",), section="4.11",
              source="reconstructed: docs/rules.md#a-array",
              premises=("hasDerivativeInstruction(LHS = RHS)", "isActiveExpr(RHS)", "overlappingLhs(LHS, RHS)",
                        "LHS = RHS →record [SAVE ; RESTORE]", "LHS →ref LHSb", "real(:) →newFreeVar V",
                        "RHS, (V, MASK) →adjarray INSTRS"),
              conclusion="LHS = RHS, MASK  →  [SAVE ; RESTORE; V = LHSb; where (MASK) LHSb = 0; INSTRS]")
def a_array_alias(stmt, out, ctx, mask):
    """A-assign-alias on arrays (`a(2:n) = a(2:n)*a(1:n-1)`, `a = a + sum(a)*x`): the lhs is
    in the rhs other than elementwise. Fortran evaluates the whole rhs before assigning, so
    the adjoint moves LHSb whole into an array temporary V, resets LHSb, and V goes into
    the rhs: the increments may add to LHSb's elements."""
    lhs, rhs, lhs_b, adj, instrs, save, restore, zero, reset, temp = (var() for _ in range(10))
    guard = lall(eq(stmt, pattern("assign", lhs, rhs)), ctx.fact("has_derivative_instruction", stmt),
                 ctx.fact("is_active_expr", rhs, stmt), ctx.check(ctx.overlapping_lhs, stmt))
    body = lall(ctx.derive("record", stmt, pattern("block", save, restore)), ctx.derive("ref", lhs, lhs_b),
                ctx.compute(ctx.array_temporary, lhs, stmt, temp),
                ctx.compute(ctx.lhs_adjoint, temp, lhs, rhs, mask, stmt, adj),
                ctx.derive("adjarray", rhs, instrs, adj, stmt),
                ctx.compute(ctx.zero_like, lhs, zero), ctx.compute(ctx.reset_under, lhs_b, zero, mask, reset),
                eq(out, pattern("block", save, pattern("block", restore, pattern("assign", temp, lhs_b), reset,
                                                       instrs))))
    return guard, body


@ADJOINT.rule("A-array-zero", judgment="adjmask", ops=("assign",), section="4.11",
              source="reconstructed: docs/rules.md#a-array",
              premises=("¬(hasDerivativeInstruction(LHS = RHS) ∧ isActiveExpr(RHS))", "isDiff(LHS)",
                        "differentiableType(LHS)", "LHS = RHS →record [SAVE ; RESTORE]", "LHS →ref LHSb"),
              conclusion="LHS = RHS, MASK  →  [SAVE ; RESTORE; where (MASK) LHSb = 0]")
def a_array_zero(stmt, out, ctx, mask):
    """A-assign-zero under a WHERE: the lhs adjoint is reset only where the mask held."""
    lhs, lhs_b, save, restore, zero, reset = (var() for _ in range(6))
    guard = lall(eq(stmt, pattern("assign", lhs, var())), ctx.check(ctx.not_differentiated, stmt),
                 ctx.fact("has_derivative", lhs, stmt), ctx.check(ctx.differentiable_type, lhs))
    body = lall(ctx.derive("record", stmt, pattern("block", save, restore)), ctx.derive("ref", lhs, lhs_b),
                ctx.compute(ctx.zero_like, lhs, zero), ctx.compute(ctx.reset_under, lhs_b, zero, mask, reset),
                eq(out, pattern("block", save, pattern("block", restore, reset))))
    return guard, body


@ADJOINT.rule("A-array-passive", judgment="adjmask", ops=("assign",), section="4.11",
              source="reconstructed: docs/rules.md#a-array",
              premises=("¬(hasDerivativeInstruction(LHS = RHS) ∧ isActiveExpr(RHS))", "¬isDiff(LHS)",
                        "LHS = RHS →record [SAVE ; RESTORE]"),
              conclusion="LHS = RHS, MASK  →  [SAVE ; RESTORE]")
def a_array_passive(stmt, out, ctx, mask):
    """A-assign-passive under a WHERE: the trajectory only (no value is saved there)."""
    lhs = var()
    guard = lall(eq(stmt, pattern("assign", lhs, var())), ctx.check(ctx.not_differentiated, stmt),
                 ctx.no_fact("has_derivative", lhs, stmt))
    return guard, ctx.derive("record", stmt, out)


@ADJOINT.rule("A-array-nop", judgment="adjmask", ops=("nop", "comment"), section="4.11",
              source="reconstructed: docs/rules.md#a-array", premises=(), conclusion="comment, MASK  →  [{} ; {}]")
def a_array_nop(stmt, out, ctx, mask):
    """A comment inside a WHERE: nothing in either sweep."""
    return lall(), eq(out, pattern("block", EMPTY, EMPTY))


@ADJOINT.rule("A-where", judgment="adjoint", ops=("where",), section="4.11",
              source="reconstructed: docs/rules.md#a-array",
              premises=("isLiveForDiff(WHERE)", "masksKept(WHERE)", "THENi, M →adjmask [THENi→ ; THENi←]",
                        "ELSEi, .not. M →adjmask [ELSEi→ ; ELSEi←]"),
              conclusion="where (M) THEN elsewhere ELSE  →\n"
                         "  [where (M) {THEN→} elsewhere {ELSE→} ; ELSEn← ... ELSE1←; THENn← ... THEN1←]")
def a_where(stmt, out, ctx):
    """Fig. 14 third row: the WHERE's masks are kept by the adjoint, each backward
    instruction under the mask of its statement (`where (t(:)<0) ab(:) = 0.0`), a scalar's
    increment summing under it. The backward sweep evaluates the mask again: no statement
    of the procedure may write its variables, and it is the WHERE's only mask (else
    A-where-saved)."""
    thens, elses, mask, other, then_pairs, else_pairs = (var() for _ in range(6))
    guard = lall(eq(stmt, pattern("where", var(), var(), var())), ctx.fact("is_live_for_diff", stmt),
                 ctx.check(ctx.masks_kept, stmt))
    body = lall(ctx.compute(ctx.where_parts, stmt, (thens, elses, mask, other)),
                ctx.derive_all("adjmask", thens, then_pairs, mask), ctx.derive_all("adjmask", elses, else_pairs, other),
                ctx.compute(ctx.where_sweeps, stmt, then_pairs, else_pairs, out))
    return guard, body


@ADJOINT.rule("A-where-saved", judgment="adjoint", ops=("where",), section="4.11",
              source="reconstructed: docs/rules.md#a-array",
              premises=("isLiveForDiff(WHERE)", "¬masksKept(WHERE)",
                        "WHERE →maskParts (S1, C1, SET1) .. (Sn, Cn, SETn), K1..Km",
                        "Si, Ci →adjmask [Si→ ; Si←]", "K1..Km →maskRecord [PUSH ; POP]"),
              conclusion="WHERE  →  [SET1; where (C1) S1→; ...; SETn; where (Cn) Sn→; PUSH ;\n"
                         "           POP; Sn← ... S1←]")
def a_where_saved(stmt, out, ctx):
    """Fig. 14 third row with the masks saved: the backward sweep cannot evaluate them again
    (the WHERE's statements, or others of the procedure, write their variables; an
    ELSEWHERE (mask) is evaluated after the statements before it). Each mask goes into a
    logical temporary Kj where Fortran evaluates it, each statement Si runs under its control
    mask Ci (of the Kj, which nothing else writes), forward as backward; in a loop the
    Kj are pushed after the WHERE and popped before its backward sweep (maskRecord)."""
    stmts, controls, setups, masks, pairs, record = (var() for _ in range(6))
    guard = lall(eq(stmt, pattern("where", var(), var(), var())), ctx.fact("is_live_for_diff", stmt),
                 ctx.check(ctx.masks_saved, stmt))
    body = lall(ctx.compute(ctx.saved_where_parts, stmt, (stmts, controls, setups, masks)),
                ctx.derive_each("adjmask", stmts, pairs, controls),
                ctx.compute(ctx.mask_record, stmt, masks, record),
                ctx.compute(ctx.saved_where_sweeps, stmt, controls, setups, pairs, record, out))
    return guard, body


@ADJOINT.rule("A-where-dead", judgment="adjoint", ops=("where",), section="4.9", source="verbatim",
              premises=("¬isLiveForDiff(WHERE)",), conclusion="WHERE  →  [{} ; {}]")
def a_where_dead(stmt, out, ctx):
    """The slicing of 4.9 on a WHERE: none of its statements is needed by the derivatives."""
    return ctx.no_fact("is_live_for_diff", stmt), eq(out, pattern("block", EMPTY, EMPTY))


# --- expressions --------------------------------------------------------------------------------
@ADJOINT.rule("A-expr-array", judgment="adjexpr", ops=OPERATOR_OPS + ("intrinsic",), section="4.11",
              source="reconstructed: docs/rules.md#a-array",
              premises=("isActiveExpr(EXPR)", "arrayOperation(EXPR)", "EXPR, (VAL, 0, NOMASK) →adjarray INSTRS"),
              conclusion="EXPR, VAL  →adjexpr  INSTRS")
def a_expr_array(expr, out, ctx, value, stmt):
    """A scalar computed from arrays (`s = s + SUM(a(:)*x, mask=b(:)>0)`, fig. 14 second
    row): its adjoint VAL goes into the array operation as a scalar broadcast."""
    guard = lall(ctx.fact("is_active_expr", expr, stmt), ctx.check(ctx.array_operation, expr))
    return guard, ctx.derive("adjarray", expr, out, (value, 0, NOMASK), stmt)


@ADJOINT.rule("A-arr-passive", judgment="adjarray", ops=tuple(sorted(EXPRESSION_OPS)), section="5.4",
              source="verbatim", premises=("¬isActiveExpr(EXPR)",), conclusion="EXPR, ADJ  →adjarray  {}")
def a_arr_passive(expr, out, ctx, adj, stmt):
    """A-expr-passive on arrays."""
    return ctx.no_fact("is_active_expr", expr, stmt), eq(out, pattern("block"))


@ADJOINT.rule("A-arr-ref", judgment="adjarray", ops=REFERENCE_OPS, section="4.11",
              source="reconstructed: docs/rules.md#a-array",
              premises=("isActiveExpr(REF)", "REF →ref REFb"),
              conclusion="REF, (VAL, MASK)  →adjarray  {where (MASK) REFb = REFb + VAL}")
def a_arr_ref(expr, out, ctx, adj, stmt):
    """A-expr-ref on arrays: the leaf's adjoint, whole or the section read, gets VAL
    elementwise (a scalar VAL broadcast over it), under the mask of its WHERE or SUM."""
    val, rank, mask, ref_b = var(), var(), var(), var()
    guard = lall(ctx.fact("is_active_expr", expr, stmt), eq(adj, (val, rank, mask)))
    body = lall(ctx.derive("ref", expr, ref_b), ctx.compute(ctx.increment_under, ref_b, (val, rank), expr, mask, stmt, out))
    return guard, body


@ADJOINT.rule("A-arr-chain", judgment="adjarray", ops=OPERATOR_OPS + ("intrinsic",), section="4.11",
              source="reconstructed: docs/rules.md#a-array",
              premises=("isActiveExpr(f(A1..An))", "elementwiseOperation(f)",
                        "f →partials P1..Pn  (∂f/∂Ai = Pi, the derivative table)",
                        "Ai, (Pi*VAL, MASK), broadcast →adjarray INSTRSi"),
              conclusion="f(A1..An), (VAL, MASK)  →adjarray  {INSTRS1; ...; INSTRSn}")
def a_arr_chain(expr, out, ctx, adj, stmt):
    """A-expr-chain on arrays: the partials are elementwise, so Pi*VAL is Ai's adjoint
    (a reduction's partial has its argument's shape: maxval, product, norm2,
    dot_product); a scalar operand of an array operation gets the SUM."""
    guard = lall(ctx.fact("is_active_expr", expr, stmt), ctx.check(ctx.elementwise_operation, expr))
    return guard, _into_operands(ctx, ctx.array_operands, expr, adj, stmt, out)


@ADJOINT.rule("A-arr-sum", judgment="adjarray", ops=("intrinsic",), section="4.11",
              source="reconstructed: docs/rules.md#a-array",
              premises=("isActiveExpr(SUM(E, dim=D, mask=M))", "E, (SPREAD(VAL, D, SIZE(E, D)), M) →adjarray INSTRS"),
              conclusion="SUM(E, dim=D, mask=M), VAL  →adjarray  INSTRS")
def a_arr_sum(expr, out, ctx, adj, stmt):
    """SUM ↔ SPREAD (4.11): each element of E gets the adjoint of the sum it went into,
    under SUM's mask (fig. 14, second and fourth rows)."""
    guard = lall(eq(expr, pattern("intrinsic", "sum", var())), ctx.fact("is_active_expr", expr, stmt))
    return guard, _into_operands(ctx, ctx.sum_operand, expr, adj, stmt, out)


@ADJOINT.rule("A-arr-move", judgment="adjarray", ops=("intrinsic",), section="4.11",
              source="reconstructed: docs/rules.md#a-array",
              premises=("isActiveExpr(MOVE(A, ...))", "moved(MOVE)  (TRANSPOSE, SPREAD, CSHIFT, RESHAPE, MATMUL)",
                        "A, (MOVEᵀ(VAL), MASK) →adjarray INSTRS"),
              conclusion="MOVE(A, ...), (VAL, MASK)  →adjarray  INSTRS")
def a_arr_move(expr, out, ctx, adj, stmt):
    """A linear map's adjoint is its transpose: TRANSPOSE's is TRANSPOSE, SPREAD's the SUM
    along its dim (4.11's duality the other way), CSHIFT's the opposite shift, RESHAPE's the
    reshape back to the argument's shape, MATMUL's the products by the transposes."""
    guard = lall(eq(expr, pattern("intrinsic", var(), var())), ctx.fact("is_active_expr", expr, stmt),
                 ctx.check(ctx.moved, expr))
    return guard, _into_operands(ctx, ctx.moved_operands, expr, adj, stmt, out)


@ADJOINT.rule("A-arr-constructor", judgment="adjarray", ops=("arrayConstructor",), section="4.11",
              source="reconstructed: docs/rules.md#a-array",
              premises=("isActiveExpr([E1, ..., En])", "real(:) →newFreeVar V", "Ek, (V(k), NOMASK) →adjarray INSTRSk"),
              conclusion="[E1, ..., En], VAL  →adjarray  {V = VAL; INSTRS1; ...; INSTRSn}")
def a_arr_constructor(expr, out, ctx, adj, stmt):
    """The constructor gathers scalars into an array: element k of the adjoint goes back to
    Ek (a transpose, as for the moves)."""
    items, adjs, first, instrs = var(), var(), var(), var()
    guard = ctx.fact("is_active_expr", expr, stmt)
    body = lall(ctx.compute(ctx.constructor_operands, expr, adj, stmt, (items, adjs, first)),
                ctx.derive_each("adjarray", items, instrs, adjs, stmt),
                ctx.compute(lambda f, blocks: Node("block", f + blocks), first, instrs, out))
    return guard, body


@ADJOINT.rule("A-arr-refuse", judgment="adjarray",
              ops=tuple(sorted(EXPRESSION_OPS - set(REFERENCE_OPS) - set(OPERATOR_OPS))), section="4.11",
              source="reconstructed: docs/rules.md#a-array",
              premises=("isActiveExpr(EXPR)", "¬elementwiseOperation(EXPR)  (nor SUM, nor a MOVE)"),
              conclusion="EXPR, ADJ  →adjarray  file:line: refused")
def a_arr_refuse(expr, out, ctx, adj, stmt):
    """PACK and EOSHIFT (whose boundary fills the shifted-out places) need transposed forms
    not written yet, array constructors their element-by-element adjoints: refused."""
    guard = lall(ctx.fact("is_active_expr", expr, stmt), ctx.check(ctx.not_elementwise_operation, expr))
    return guard, ctx.compute(lambda e, s: ctx.refuse(s, f"the adjoint of {_name(e)} on arrays"), expr, stmt, out)


def _into_operands(ctx, operands, expr, adj, stmt, out):
    """The body of the operand rules: (Ai), (ADJi) computed, each Ai →adjarray INSTRSi."""
    args, adjs, instrs = var(), var(), var()
    return lall(ctx.compute(operands, expr, adj, stmt, (args, adjs)),
                ctx.derive_each("adjarray", args, instrs, adjs, stmt),
                ctx.compute(lambda blocks: Node("block", blocks), instrs, out))


def _name(expr: Node) -> str:
    return expr.kids[0] if expr.op in ("intrinsic", "call") else {"arrayConstructor": "an array constructor"}.get(
        expr.op, expr.op)
