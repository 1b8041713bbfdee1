"""Adjoint rules for expressions and references (paper 5.4, last rules; 4.3).

Judgment `adjexpr`:  EXPR, VAL →adjexpr INSTRS — the adjoint VAL of the value of EXPR is
propagated down to its active leaves, multiplied on the way by the partial derivative of
each operator with respect to the operand it goes into; each active leaf REF gets
`REFb = REFb + VAL`. The partials come from the derivative table (rules/derivatives.py),
the tangent's: nothing here knows a derivative.
Judgment `ref`:  REF →ref REFb — `x` → `xb`, `a(i)` → `ab(i)`, `*p` → `*pb`; in C a formal
passed by value has a pointer adjoint, `x` → `*xb`.
"""
from __future__ import annotations

from ...engine.il import EXPRESSION_OPS, Node
from ...engine.kanren_il import eq, lall, member, pattern, var
from ..derivatives import derivative
from ..tangent.expressions import CHAIN_OPS, REFERENCE_OPS, _is_one, _times, operands
from .ruleset import ADJOINT


# --- references -------------------------------------------------------------------------------
@ADJOINT.rule("A-ref-name", judgment="ref", ops=("ident",), section="5.4", source="verbatim",
              premises=("¬byValue(NAME)", "NAME →varName NAMEb"), conclusion="NAME  →ref  NAMEb")
def a_ref_name(ref, out, ctx):
    name, name_b = var(), var()
    guard = lall(eq(ref, pattern("ident", name)), ctx.check(ctx.not_by_value_formal, ref))
    return guard, lall(ctx.compute(ctx.adjoint_name, name, ref, name_b), eq(out, pattern("ident", name_b)))


@ADJOINT.rule("A-ref-value", judgment="ref", ops=("ident",), section="5.4",
              source="reconstructed: docs/rules.md#a-ref",
              premises=("byValue(NAME)", "NAME →varName NAMEb"), conclusion="NAME  →ref  *NAMEb")
def a_ref_value(ref, out, ctx):
    """C passes x by value, but its adjoint goes back to the caller: `double *xb`."""
    name, name_b = var(), var()
    guard = lall(eq(ref, pattern("ident", name)), ctx.check(ctx.by_value_formal, ref))
    body = lall(ctx.compute(ctx.names.var, name, name_b), eq(out, pattern("deref", pattern("ident", name_b))))
    return guard, body


@ADJOINT.rule("A-ref-index", judgment="ref", ops=("arrayAccess",), section="5.4", source="verbatim",
              premises=("REF →ref REFb",), conclusion="REF(INDEX)  →ref  REFb(INDEX)")
def a_ref_index(ref, out, ctx):
    base, index, base_b = var(), var(), var()
    guard = eq(ref, pattern("arrayAccess", base, index))
    body = lall(ctx.derive("ref", base, base_b), eq(out, pattern("arrayAccess", base_b, index)))
    return guard, body


@ADJOINT.rule("A-ref-deref", judgment="ref", ops=("deref",), section="4.2",
              source="reconstructed: docs/rules.md#a-ref",
              premises=("P →ref Pb",), conclusion="*P  →ref  *Pb")
def a_ref_deref(ref, out, ctx):
    base, base_b = var(), var()
    guard = eq(ref, pattern("deref", base))
    return guard, lall(ctx.derive("ref", base, base_b), eq(out, pattern("deref", base_b)))


REFUSED_REFS = ("add", "sub")


@ADJOINT.rule("A-ref-refuse", judgment="ref", ops=REFUSED_REFS, section="4.2",
              source="reconstructed: docs/rules.md#a-ref",
              premises=(), conclusion="REF  →ref  file:line: refused (pointer arithmetic in a reference)")
def a_ref_refuse(ref, out, ctx):
    """Pointer arithmetic as a reference (the C reader writes p + k as &p[k] where it can):
    refused at its line."""
    op = var()
    guard = lall(eq(ref, pattern(op, rest=var())), member(op, REFUSED_REFS))
    return guard, ctx.compute(lambda r: ctx.refuse(r, "pointer arithmetic in a reference"), ref, out)


# --- expressions ------------------------------------------------------------------------------
@ADJOINT.rule("A-expr-passive", judgment="adjexpr", ops=tuple(sorted(EXPRESSION_OPS)), section="5.4",
              source="verbatim", premises=("¬isActiveExpr(EXPR)",), conclusion="EXPR, VAL  →adjexpr  {}")
def a_expr_passive(expr, out, ctx, value, stmt):
    op = var()
    guard = lall(ctx.no_fact("is_active_expr", expr, stmt), eq(expr, pattern(op, rest=var())), member(op, EXPRESSION_OPS))
    return guard, eq(out, pattern("block"))


@ADJOINT.rule("A-expr-ref", judgment="adjexpr", ops=REFERENCE_OPS, section="5.4", source="verbatim",
              premises=("isActiveExpr(REF)", "REF →ref REFb"), conclusion="REF, VAL  →adjexpr  {REFb = REFb + VAL}")
def a_expr_ref(expr, out, ctx, value, stmt):
    op, ref_b = var(), var()
    guard = lall(ctx.fact("is_active_expr", expr, stmt), eq(expr, pattern(op, rest=var())), member(op, REFERENCE_OPS))
    body = lall(ctx.derive("ref", expr, ref_b), ctx.compute(increment, ref_b, value, out))
    return guard, body


@ADJOINT.rule("A-expr-chain", judgment="adjexpr", ops=CHAIN_OPS, section="5.4",
              source="reconstructed: docs/rules.md#a-expr (the paper shows the product rule only)",
              premises=("isActiveExpr(f(A1..An))", "scalarOperands(f)", "f →partials P1..Pn  (∂f/∂Ai = Pi, the derivative table)",
                        "Ai, Pi*VAL →adjexpr INSTRSi"),
              conclusion="f(A1..An), VAL  →adjexpr  {INSTRS1; ...; INSTRSn}")
def a_expr_chain(expr, out, ctx, value, stmt):
    """The product rule of 5.4 (E1*E2, VAL: E1 gets E2*VAL, E2 gets E1*VAL) for every
    operator and intrinsic of the derivative table, on scalars; an operand with no partial
    (an inactive argument: sign's second, an integer exponent) gets nothing. A linear
    intrinsic of scalars (real, dble, merge) has scalar partials too. Operations on arrays
    (maxval(x), sum(x), x(2:n)*2) need the array adjoints of fig. 14 (A-expr-refuse)."""
    op, args, vals, instrs = var(), var(), var(), var()
    guard = lall(ctx.fact("is_active_expr", expr, stmt), eq(expr, pattern(op, rest=var())), member(op, CHAIN_OPS),
                 ctx.check(ctx.scalar_operation, expr))
    body = lall(ctx.compute(lambda e, v, s: adjoint_operands(e, v, ctx, s), expr, value, stmt, (args, vals)),
                ctx.derive_each("adjexpr", args, instrs, vals, stmt),
                eq(out, pattern("block", rest=instrs)))
    return guard, body


@ADJOINT.rule("A-expr-cast", judgment="adjexpr", ops=("cast",), section="5.4",
              source="reconstructed: docs/rules.md#a-expr",
              premises=("isActiveExpr((T) E)", "E, VAL →adjexpr INSTRS"), conclusion="(T) E, VAL  →adjexpr  INSTRS")
def a_expr_cast(expr, out, ctx, value, stmt):
    """A conversion between real types is the identity on adjoints (one to an integer type
    is passive, A-expr-passive)."""
    operand = var()
    guard = lall(ctx.fact("is_active_expr", expr, stmt), eq(expr, pattern("cast", var(), operand)))
    return guard, ctx.derive("adjexpr", operand, out, value, stmt)


@ADJOINT.rule("A-expr-choice", judgment="adjexpr", ops=("ifExpr",), section="5.4",
              source="reconstructed: docs/rules.md#a-expr",
              premises=("isActiveExpr(C ? A : B)", "replayable(C)", "A, VAL →adjexpr INSTRSa",
                        "B, VAL →adjexpr INSTRSb"),
              conclusion="C ? A : B, VAL  →adjexpr  {if (C) INSTRSa else INSTRSb}")
def a_expr_choice(expr, out, ctx, value, stmt):
    """C's conditional expression is linear in its arms (T-expr-choice): the adjoint goes to
    the arm the value came from, chosen by evaluating C again in the backward sweep, where
    its variables hold their values of the forward sweep (they are use(I'), so TBR restores
    them)."""
    cond, then, other, then_i, other_i = (var() for _ in range(5))
    guard = lall(ctx.fact("is_active_expr", expr, stmt), eq(expr, pattern("ifExpr", cond, then, other)),
                 ctx.check(ctx.replayable_choice, expr))
    body = lall(ctx.derive("adjexpr", then, then_i, value, stmt), ctx.derive("adjexpr", other, other_i, value, stmt),
                eq(out, pattern("block", pattern("if", cond, then_i, other_i))))
    return guard, body


REFUSED_EXPRS = tuple(sorted(EXPRESSION_OPS - set(REFERENCE_OPS) - {"cast", "call"}))


@ADJOINT.rule("A-expr-refuse", judgment="adjexpr", ops=REFUSED_EXPRS, section="5.4",
              source="reconstructed: docs/rules.md#a-expr",
              premises=("isActiveExpr(EXPR)", "¬scalarOperands(EXPR)  (arrays, a call, C ?:)"),
              conclusion="EXPR, VAL  →adjexpr  file:line: refused")
def a_expr_refuse(expr, out, ctx, value, stmt):
    """Not in this slice: operations on arrays (array adjoints), C's
    conditional expression, and the other active expressions that are no operator of the
    table, reference or cast."""
    op = var()
    guard = lall(ctx.fact("is_active_expr", expr, stmt), eq(expr, pattern(op, rest=var())), member(op, REFUSED_EXPRS),
                 ctx.check(ctx.refused_expression, expr))
    return guard, ctx.compute(lambda e, s: ctx.refuse(s, f"the adjoint of {_name(e)}"), expr, stmt, out)


def _name(expr: Node) -> str:
    return expr.kids[0] if expr.op in ("intrinsic", "call") else "a conditional expression"


def _scaled(partial: Node, value: Node) -> Node:
    """partial*value, the sign brought out: -(2*v) rather than 2*(-v)."""
    if value.op == "neg":
        inner = _scaled(partial, value.kids[0])
        return inner.kids[0] if inner.op == "neg" else Node("neg", (inner,))
    return value if _is_one(partial) else _times(partial, value)


def increment(ref_b: Node, value: Node) -> Node:
    """REFb = REFb + VAL (REFb - V for VAL = -V)."""
    total = Node("sub", (ref_b, value.kids[0])) if value.op == "neg" else Node("add", (ref_b, value))
    return Node("block", (Node("assign", (ref_b, total)),))


def adjoint_operands(expr: Node, value: Node, ctx, stmt: Node) -> tuple:
    """((Ai with a partial), (Pi*VAL)): the operands and the adjoints they receive."""
    name = expr.kids[0] if expr.op == "intrinsic" else expr.op
    lang = ctx.lang
    entry = derivative(name, lang)
    if entry is None:
        ctx.no_derivative(expr, stmt)
    args = operands(expr)
    partials = entry.partials(args, lang, ctx.kind_of(expr))
    if entry.nondiff_build is not None and entry.nondifferentiable(args, lang) is not None:
        ctx.warn(stmt, f"non-differentiable {name}: {entry.nondiff_doc} (the derivative there is one-sided)")
    kept, values = [], []
    for arg, partial in zip(args, partials):
        if partial is not None:
            kept.append(arg)
            values.append(_scaled(partial, value))
    return tuple(kept), tuple(values)
