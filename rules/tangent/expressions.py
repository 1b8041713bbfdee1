"""Tangent rules for expressions and references (paper 5.3, last rules; 4.3, 4.6).

Judgment `expr`:  EXPR →expr EXPRd  — the tangent derivative of an expression, or `None` for
a derivative known to be zero (activity analysis, 4.6: an expression that uses no active
variable has the zero derivative, and zero terms vanish from sums and products).
Judgment `ref`:   REF →ref REFd     — the derivative reference of a memory reference: `x` →
`xd`, `a(i)` → `ad(i)`, `u(3)%z` → `ud(3)%z` (association by name, 4.2).

The partial derivatives of operators and intrinsics come from the derivative table
(rules/derivatives.py); these rules only apply the chain rule to them.
"""
from __future__ import annotations

from ...engine.il import EXPRESSION_OPS, Node
from ...engine.kanren_il import eq, lall, member, pattern, var
from ..derivatives import derivative
from .ruleset import TANGENT

REFERENCE_OPS = ("ident", "arrayAccess", "fieldAccess", "deref")
CONSTANT_OPS = ("intCst", "realCst", "boolCst", "stringCst", "complexCst")
OPERATOR_OPS = ("add", "sub", "mul", "div", "power", "neg", "pos")
ACCESS_OPS = ("arrayAccess", "fieldAccess", "deref", "address")
CHAIN_OPS = OPERATOR_OPS + ("intrinsic",)


# --- references -------------------------------------------------------------------------------
@TANGENT.rule("T-ref-name", judgment="ref", ops=("ident",), section="5.3", source="verbatim",
              premises=("NAME →varName NAMEd",), conclusion="NAME  →ref  NAMEd")
def t_ref_name(ref, out, ctx):
    name, name_d = var(), var()
    guard = eq(ref, pattern("ident", name))
    body = lall(ctx.compute(lambda r: ctx.names.var(ctx.declared_derivative(r)), ref, name_d),
                eq(out, pattern("ident", name_d)))
    return guard, body


@TANGENT.rule("T-ref-access", judgment="ref", ops=ACCESS_OPS,
              section="4.2", source="reconstructed: docs/rules.md#t-ref",
              premises=("BASE →ref BASEd",),
              conclusion="BASE(I) | BASE%F | *BASE | &BASE  →ref  BASEd(I) | BASEd%F | *BASEd | &BASEd")
def t_ref_access(ref, out, ctx):
    """Association by name (4.2): the derivative of a part of a variable is the same part of
    its derivative, ad(i) and ud(3)%z; a pointer with a derivative points to derivatives, *pd;
    C passes &vd where Fortran passes vd by reference."""
    op, base, others, base_d, ann = (var() for _ in range(5))
    guard = lall(eq(ref, pattern(op, base, rest=others, ann=ann)), member(op, ACCESS_OPS))
    body = lall(ctx.derive("ref", base, base_d), eq(out, pattern(op, base_d, rest=others, ann=ann)))
    return guard, body


# --- expressions ------------------------------------------------------------------------------
@TANGENT.rule("T-expr-passive", judgment="expr", ops=tuple(sorted(EXPRESSION_OPS)),
              section="4.6", source="reconstructed: docs/rules.md#t-expr",
              premises=("¬isActiveExpr(EXPR)",), conclusion="EXPR  →expr  0")
def t_expr_passive(expr, out, ctx, stmt):
    op = var()
    guard = lall(ctx.no_fact("is_active_expr", expr, stmt), eq(expr, pattern(op, rest=var())), member(op, EXPRESSION_OPS))
    return guard, eq(out, None)


@TANGENT.rule("T-expr-ref", judgment="expr", ops=REFERENCE_OPS, section="5.3", source="verbatim",
              premises=("isActiveExpr(REF)", "REF →ref REFd"), conclusion="REF  →expr  REFd")
def t_expr_ref(expr, out, ctx, stmt):
    op = var()
    guard = lall(ctx.fact("is_active_expr", expr, stmt), eq(expr, pattern(op, rest=var())), member(op, REFERENCE_OPS))
    return guard, ctx.derive("ref", expr, out)


@TANGENT.rule("T-expr-chain", judgment="expr", ops=CHAIN_OPS, section="5.3",
              source="reconstructed: docs/rules.md#t-expr (the paper shows the product rule only)",
              premises=("isActiveExpr(f(A1..An))", "¬linear(f)", "Ai →expr Aid", "f →partials P1..Pn  (∂f/∂Ai = Pi, "
                        "the derivative table)"),
              conclusion="f(A1..An)  →expr  Σ Pi*Aid   (a reduction: sum(P*Ad); "
                         "linear in each argument apart: Σ f(A1..Aid..An))")
def t_expr_chain(expr, out, ctx, stmt):
    """The chain rule over the table's partials. An array reduction's partial P has the
    argument's shape, and its derivative is sum(P*Ad) (maxval: P is 1 at the first maximum;
    product: the product of the other elements). dot_product and matmul are linear in each
    argument apart: the product rule writes the operation with one argument replaced by its
    derivative, dot_product(ad, b) + dot_product(a, bd)."""
    op, args, args_d = var(), var(), var()
    guard = lall(ctx.fact("is_active_expr", expr, stmt), eq(expr, pattern(op, rest=var())), member(op, CHAIN_OPS),
                 ctx.check(ctx.not_linear_intrinsic, expr), ctx.compute(operands, expr, args))
    body = lall(ctx.derive_all("expr", args, args_d, stmt),
                ctx.compute(lambda e, a, d, s: chain_rule(e, a, d, ctx, s), expr, args, args_d, stmt, out))
    return guard, body


@TANGENT.rule("T-expr-linear", judgment="expr", ops=("intrinsic",), section="5.3",
              source="reconstructed: docs/rules.md#t-expr",
              premises=("isActiveExpr(f(A1..An))", "linear(f)  (the derivative table)", "Ai →expr Aid  (active Ai)"),
              conclusion="f(A1..An)  →expr  f(A1d..An)  (inactive arguments kept: dim, mask)")
def t_expr_linear(expr, out, ctx, stmt):
    """A linear intrinsic (sum, transpose, real, merge, ...) applies to the derivatives of its
    active arguments as it does to the arguments: d sum(x, mask=m) = sum(xd, mask=m)."""
    args, args_d = var(), var()
    guard = lall(ctx.fact("is_active_expr", expr, stmt), eq(expr, pattern("intrinsic", var(), var())),
                 ctx.check(ctx.linear_intrinsic, expr), ctx.compute(lambda e: ctx.active_operands(e), expr, args))
    body = lall(ctx.derive_all("expr", args, args_d, stmt),
                ctx.compute(lambda e, d, s: ctx.linear_derivative(e, d, s), expr, args_d, stmt, out))
    return guard, body


@TANGENT.rule("T-expr-choice", judgment="expr", ops=("ifExpr",), section="5.3",
              source="reconstructed: docs/rules.md#t-expr",
              premises=("isActiveExpr(C ? A : B)", "A →expr Ad", "B →expr Bd"),
              conclusion="C ? A : B  →expr  C ? Ad : Bd   (0 for an arm with no derivative)")
def t_expr_choice(expr, out, ctx, stmt):
    """C's conditional expression is linear in its arms, like Fortran's merge: the
    derivative takes the arm the value takes."""
    cond, then, other, then_d, other_d = (var() for _ in range(5))
    guard = lall(ctx.fact("is_active_expr", expr, stmt), eq(expr, pattern("ifExpr", cond, then, other)))
    body = lall(ctx.derive("expr", then, then_d, stmt), ctx.derive("expr", other, other_d, stmt),
                ctx.compute(lambda e, c, t, o: _choice(e, c, (t, o), ctx), expr, cond, then_d, other_d, out))
    return guard, body


def _choice(expr: Node, cond: Node, arms_d: tuple, ctx) -> Node | None:
    if all(d is None for d in arms_d):
        return None
    zero = Node("realCst", ("0.0", ctx.kind_of(expr) or 4))
    return Node("ifExpr", (cond,) + tuple(zero if d is None else d for d in arms_d))


@TANGENT.rule("T-expr-cast", judgment="expr", ops=("cast",), section="5.3",
              source="reconstructed: docs/rules.md#t-expr",
              premises=("isActiveExpr((T) E)", "E →expr Ed"),
              conclusion="(T) E  →expr  (T) Ed   (0 when T is an integer type)")
def t_expr_cast(expr, out, ctx, stmt):
    """A conversion between real types is linear: (float)x has the derivative (float)xd.
    A conversion to an integer type is piecewise constant: its derivative is zero."""
    operand, operand_d = var(), var()
    guard = lall(ctx.fact("is_active_expr", expr, stmt), eq(expr, pattern("cast", var(), operand)))
    body = lall(ctx.derive("expr", operand, operand_d, stmt),
                ctx.compute(lambda e, d: _cast(e, d), expr, operand_d, out))
    return guard, body


def _cast(expr: Node, operand_d: Node | None) -> Node | None:
    typ = expr.kids[0]
    if operand_d is None or typ.op != "type" or typ.kids[0] not in ("real", "complex"):
        return None
    return Node("cast", (typ, operand_d))


@TANGENT.rule("T-expr-call", judgment="expr", ops=("call",), section="5.3",
              source="reconstructed: docs/rules.md#t-call",
              premises=("isActiveExpr(F(ARGS))", "F →procName Fd", "ARGS →args ARGSd"),
              conclusion="F(ARGS)  →expr  RESd   with  RESd = Fd(ARGSd, RES)  split out before")
def t_expr_call(expr, out, ctx, stmt):
    """A function call is split out of its expression first (fig. 10): its differentiated
    call, which computes the result and its derivative, goes before the statement."""
    guard = lall(ctx.fact("is_active_expr", expr, stmt), eq(expr, pattern("call", var(), var())))
    return guard, ctx.compute(lambda e, s: ctx.function_call_derivative(e, s), expr, stmt, out)


@TANGENT.rule("T-expr-constructor", judgment="expr", ops=("arrayConstructor",), section="5.3",
              source="reconstructed: docs/rules.md#t-expr",
              premises=("isActiveExpr((/ A1..An /))", "Ai →expr Aid  (the items, inside implied DOs too)"),
              conclusion="(/ A1..An /)  →expr  (/ A1d..And /)   (0 for a scalar item with no derivative)")
def t_expr_constructor(expr, out, ctx, stmt):
    """An array constructor is linear in its items: the derivative is the constructor of the
    items' derivatives, implied DOs kept, so each element's derivative lands where the
    element does. A passive item that is an array has no zero of its size here: refused."""
    items, items_d = var(), var()
    guard = lall(ctx.fact("is_active_expr", expr, stmt), eq(expr, pattern("arrayConstructor", var())),
                 ctx.compute(_constructor_items, expr, items))
    body = lall(ctx.derive_all("expr", items, items_d, stmt),
                ctx.compute(lambda e, d, s: _constructor(e, list(d), ctx, s), expr, items_d, stmt, out))
    return guard, body


def _constructor_items(expr: Node) -> tuple:
    """The items of an array constructor, those of its implied DOs included, in order."""
    return tuple(leaf for item in expr.kids[0]
                 for leaf in (_constructor_items(item) if item.op == "impliedDo" else (item,)))


def _constructor(expr: Node, items_d: list, ctx, stmt) -> Node:
    """expr with its items replaced by items_d, taken in order (a zero for None)."""
    out = []
    for item in expr.kids[0]:
        if item.op == "impliedDo":
            out.append(item.with_kids(_constructor(item, items_d, ctx, stmt).kids[0], *item.kids[1:]))
            continue
        item_d = items_d.pop(0)
        if item_d is None:
            if item.op not in CONSTANT_OPS and (item.op not in REFERENCE_OPS or ctx.type_of_ref(item)[1] != 0):
                ctx.unsupported(stmt, "the derivative of an array constructor with a passive item that may be an array")
            item_d = Node("realCst", ("0.0", ctx.kind_of(expr) or 8))
        out.append(item_d)
    return expr.with_kids(tuple(out), *expr.kids[1:])


def operands(expr: Node) -> tuple:
    """The differentiable operands of an operator or intrinsic node."""
    if expr.op == "intrinsic":
        return tuple(a.kids[1] if a.op == "namedArg" else a for a in expr.kids[1])
    return tuple(expr.kids)


def chain_rule(expr: Node, args: tuple, args_d: tuple, ctx, stmt: Node):
    """Σ ∂f/∂ai * aid over the operands with a non-zero derivative; None when all are zero."""
    name = expr.kids[0] if expr.op == "intrinsic" else expr.op
    entry = derivative(name, ctx.lang)
    if entry is None:
        ctx.no_derivative(expr, stmt)
    if name in ("abs", "cdabs") and ctx.lang == "fortran" and args_d[0] is not None and _complex_valued(args[0], ctx):
        # |z| is not complex-differentiable: no partial multiplies zd; d|z| = real(conjg(z)*zd)/|z|
        conjugate_times = Node("mul", (Node("intrinsic", ("conjg", (args[0],))), args_d[0]))
        return Node("div", (Node("intrinsic", ("real", (conjugate_times,))), Node("intrinsic", ("abs", (args[0],)))))
    if expr.op == "intrinsic":
        ctx.check_intrinsic_arguments(expr, entry, stmt)
    if entry.multilinear:
        return _sum(ctx.multilinear_terms(expr, args_d))
    if entry.reduction:   # dim and mask by name (only the array, first, has a derivative)
        args = entry.dummy_order(expr.kids[1])
    partials = entry.partials(args, ctx.lang, ctx.kind_of(expr))
    if entry.nondifferentiable(args, ctx.lang) is not None:
        ctx.warn(stmt, f"non-differentiable {name}: {entry.nondiff_doc} (the derivative there is one-sided)")
    if entry.reduction:   # sum(P * ad): P has the shape of the array
        return _sum([Node("intrinsic", ("sum", (_times(p, d),))) for p, d in zip(partials, args_d)
                     if p is not None and d is not None])
    if name == "mul" and _is_constant_times(args[0], args[1]) and args_d[1] is not None:
        # c*x*x: 2*(c*x)*xd rather than x*(c*xd) + c*x*xd (c*x is the value's own product)
        return Node("mul", (Node("mul", (Node("realCst", ("2.0", ctx.kind_of(expr) or 8)), args[0])), args_d[1]))
    terms = []
    for partial, arg_d in zip(partials, args_d):
        if arg_d is None or partial is None:
            continue
        terms.append(arg_d if _is_one(partial) else _times(partial, arg_d))
    if len(terms) == 2 and terms[0] == terms[1] and terms[0].op != "neg":
        # x*x: 2*x*xd rather than x*xd + x*xd (the same value: doubling is exact)
        two = Node("realCst", ("2.0", ctx.kind_of(expr) or 8))
        term = terms[0]
        return Node("mul", (Node("mul", (two, term.kids[0])), term.kids[1])) if term.op == "mul" else \
            Node("mul", (two, term))
    return _sum(terms)


def _sum(terms: list):
    """t1 + t2 - t3 ... (a term -t subtracted); None for no term."""
    if not terms:
        return None
    total = terms[0]
    for term in terms[1:]:
        total = Node("sub", (total, term.kids[0])) if term.op == "neg" else Node("add", (total, term))
    return total


def _complex_valued(expr: Node, ctx) -> bool:
    """expr computes a complex value: a complex constant or reference, cmplx/conjg, or an
    operator on one (real, aimag, abs and the like give reals)."""
    if expr.op == "complexCst":
        return True
    if expr.op in REFERENCE_OPS:
        typ = ctx.type_of_ref(expr)[0]
        return typ is not None and typ.op == "type" and typ.kids[0] == "complex"
    if expr.op == "intrinsic":
        return expr.kids[0] in ("cmplx", "dcmplx", "conjg", "dconjg") or \
            expr.kids[0] in ("sqrt", "exp", "log", "sin", "cos") and any(_complex_valued(a, ctx) for a in expr.kids[1])
    return expr.op in OPERATOR_OPS and any(_complex_valued(k, ctx) for k in expr.kids if isinstance(k, Node))


def _is_constant_times(product: Node, factor: Node) -> bool:
    """product is c*factor with a real constant c (the left operand of c*x*x)."""
    return product.op == "mul" and product.kids[0].op == "realCst" and product.kids[1] == factor


def _is_one(node: Node) -> bool:
    return (node.op == "intCst" and node.kids[0] == 1) or (node.op == "realCst" and node.kids[0] in ("1.0", "1"))


def _times(partial: Node, arg_d: Node) -> Node:
    if partial.op == "neg":
        inner = partial.kids[0]
        return Node("neg", (arg_d if _is_one(inner) else Node("mul", (inner, arg_d)),))
    return Node("mul", (partial, arg_d))
