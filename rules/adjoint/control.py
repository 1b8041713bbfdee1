"""Adjoint rules for sequences and control (paper 5.4; 4.4, fig. 7).

Judgment `adjoint`:  INSTR → [INSTR→ ; INSTR←], the pair of the forward sweep and the
backward sweep, written `block(block(forward...), block(backward...))`. The backward sweep
runs the adjoints in the reverse order; the control of the forward sweep is replayed from
the stack: the branch taken by an IF is pushed where the flow merges (save-on-kill for
control, 4.4) and the bounds of a loop after it.

WHILE loops are in rules/adjoint/loops.py, jumps (GOTO, EXIT, early RETURN, C's switch) in
rules/adjoint/jumps.py. What this slice does not differentiate yet is refused with file:line
(A-refuse): STOP, FORALL, and the rest of REFUSED (rules/adjoint/context.py).
"""
from __future__ import annotations

from ...engine.il import Node
from ...engine.kanren_il import conda, eq, lall, member, pattern, var
from .context import REFUSED
from .ruleset import ADJOINT

EMPTY = pattern("block")
ZERO = pattern("intCst", 0, None)


@ADJOINT.rule("A-seq", judgment="adjoint", ops=("block",), section="5.4", source="verbatim",
              premises=("structured(BLOCK)", "INSTRi →  [INSTRi→ ; INSTRi←]  (each i)",
                        "INSTRi →hoist  [CALLSi→ ; CALLSi←]  (each i)"),
              conclusion="{INSTR1; ...; INSTRn}  →  [{CALLS1→; INSTR1→; ...} ; {...; INSTR1←; CALLS1←}]")
def a_seq(block, out, ctx):
    """The paper's rule for {INSTR; INSTRS}, applied to the whole list at once (one premise
    per statement, not a chain of nested ones as deep as the block is long). The active
    function calls of a statement's expressions run before it (rules/adjoint/calls.py)."""
    stmts, pairs, hoists = var(), var(), var()
    guard = lall(eq(block, pattern("block", rest=stmts)), ctx.check(ctx.structured, block))
    body = lall(ctx.derive_all("adjoint", stmts, pairs), ctx.derive_all("hoist", stmts, hoists),
                ctx.compute(ctx.sequence, stmts, pairs, hoists, out))
    return guard, body


@ADJOINT.rule("A-if", judgment="adjoint", ops=("if",), section="5.4",
              source="reconstructed: docs/rules.md#a-if",
              premises=("present(ELSE)", "isLiveForDiff(IF)", "structured(IF)", "THEN →  [THEN→ ; THEN←]",
                        "ELSE →  [ELSE→ ; ELSE←]",
                        "integer →newFreeVar B"),
              conclusion="if (C) THEN else ELSE  →  [if (C) {THEN→; push(0)} else {ELSE→; push(1)} ;\n"
                         "                          pop(B); if (B == 0) THEN← else ELSE←]")
def a_if(stmt, out, ctx):
    """The paper shows no rule for IF; fig. 7 and 4.4 give its shape: the forward sweep
    pushes the branch taken at the end of each branch, where the flow merges, and the
    backward sweep pops it to choose the branch to reverse (Tapenade's PUSHCONTROL1B /
    POPCONTROL1B). An IF without ELSE has an empty ELSE."""
    cond, then, other = var(), var(), var()
    then_f, then_b, other_f, other_b, branch = var(), var(), var(), var(), var()
    guard = lall(eq(stmt, pattern("if", cond, then, other)), ctx.check(_present, other),
                 ctx.fact("is_live_for_diff", stmt), ctx.check(ctx.structured, stmt))
    body = lall(ctx.derive("adjoint", then, pattern("block", then_f, then_b)),
                ctx.derive("adjoint", other, pattern("block", other_f, other_b)),
                _choice(stmt, cond, then_f, then_b, other_f, other_b, branch, out, ctx))
    return guard, body


@ADJOINT.rule("A-if-then", judgment="adjoint", ops=("if",), section="5.4",
              source="reconstructed: docs/rules.md#a-if",
              premises=("isLiveForDiff(IF)", "structured(IF)", "THEN →  [THEN→ ; THEN←]", "integer →newFreeVar B"),
              conclusion="if (C) THEN  →  [if (C) {THEN→; push(0)} else {push(1)} ; pop(B); if (B == 0) THEN←]")
def a_if_then(stmt, out, ctx):
    cond, then, then_f, then_b, branch = var(), var(), var(), var(), var()
    guard = lall(eq(stmt, pattern("if", cond, then, None)), ctx.fact("is_live_for_diff", stmt),
                 ctx.check(ctx.structured, stmt))
    body = lall(ctx.derive("adjoint", then, pattern("block", then_f, then_b)),
                _choice(stmt, cond, then_f, then_b, EMPTY, EMPTY, branch, out, ctx))
    return guard, body


def _present(node) -> bool:
    return node is not None


def _choice(stmt, cond, then_f, then_b, other_f, other_b, branch, out, ctx):
    """The conclusion of the IF rules: the fresh branch variable, then the fixed shape."""
    forward = pattern("if", cond, pattern("block", then_f, ctx.push_control(0)),
                      pattern("block", other_f, ctx.push_control(1)))
    pop = var()
    backward = pattern("block", pop, pattern("if", pattern("eq", branch, ZERO), then_b, other_b))
    return lall(ctx.compute(lambda s: ctx.branch_variable(), stmt, branch),
                ctx.compute(ctx.pop_control, branch, pop),
                eq(out, pattern("block", forward, backward)))


@ADJOINT.rule("A-select", judgment="adjoint", ops=("switch",), section="5.4",
              source="reconstructed: docs/rules.md#a-if",
              premises=("isLiveForDiff(SELECT)", "structured(SELECT)",
                        "BODYk →  [BODYk→ ; BODYk←]  (each case k)",
                        "integer →newFreeVar B"),
              conclusion="select (E) case Vk: BODYk  →  [select (E) case Vk: {BODYk→; push(k)} (default: push(n)) ;\n"
                         "                             pop(B); if (B == 0) BODY0← else if (B == 1) BODY1← ...]")
def a_select(stmt, out, ctx):
    """Fortran's SELECT CASE, the IF rule with n ways: the case taken is pushed at its end
    (PUSHCONTROLnB with n bits, Tapenade's), and a SELECT without CASE DEFAULT gets one that
    only pushes, the way where no case runs. C's switch, whose cases fall through, is not in
    this slice (A-refuse)."""
    selector, cases, bodies, pairs = var(), var(), var(), var()
    guard = lall(eq(stmt, pattern("switch", selector, cases, False)), ctx.fact("is_live_for_diff", stmt),
                 ctx.check(ctx.structured, stmt))
    body = lall(ctx.compute(lambda c: tuple(k.kids[1] for k in c), cases, bodies),
                ctx.derive_all("adjoint", bodies, pairs),
                ctx.compute(ctx.selection, stmt, pairs, out))
    return guard, body


@ADJOINT.rule("A-do", judgment="adjoint", ops=("do",), section="5.4", source="verbatim",
              premises=("isLiveForDiff(LOOP)", "structured(LOOP)", "INSTRS →  [INSTRS→ ; INSTRS←]",
                        "integer →newFreeVars VF, VT, VS", "LOOP →save [push(I)? ; pop(I)?]",
                        "LOOP, VF, VT →sections [PUSHES ; POPS]",
                        "LOOP, INSTRS→, INSTRS← →trips [TRIP→ ; TRIP←]",
                        "LOOP, (I - VS, VF, VS), (VT, VF, VS) →bounds [SAVE ; RESTORE]"),
              conclusion="do I = F, T, S; INSTRS  →\n"
                         "  [push(I)?; VF = F; VS = S; PUSHES; do I = VF, T, VS; TRIP→; SAVE ;\n"
                         "   RESTORE; do I = VT, VF, -VS; TRIP←; POPS; pop(I)?]")
def a_do(stmt, out, ctx):
    """The loop rule of 5.4. After the forward loop I is F + n*S for n iterations, so
    I - S is the last value of the index (F - S when n = 0); the backward loop from it down
    to VF by -VS runs the same n iterations, for any sign of S and any trip count. The index
    is saved around the loop only when an earlier derivative instruction reads it (TBR, the
    `save` judgment), not always as the paper does. A DO without a stride has stride 1."""
    index, first, last, stride, instrs, pushes, pops, trip_f, trip_b, saved, restored = (var() for _ in range(11))
    forward_body, backward_body, vf, vt, vs, save, restore, step = (var() for _ in range(8))
    guard = lall(eq(stmt, pattern("do", index, first, last, stride, instrs)), ctx.fact("is_live_for_diff", stmt),
                 ctx.check(ctx.structured, stmt))
    body = lall(ctx.derive("adjoint", instrs, pattern("block", forward_body, backward_body)),
                ctx.compute(ctx.loop_variables, stmt, (vf, vt, vs)),
                ctx.derive("save", stmt, pattern("block", save, restore)),
                ctx.derive("sections", stmt, pattern("block", pushes, pops), vf, vt),
                ctx.derive("trips", stmt, pattern("block", trip_f, trip_b), forward_body, backward_body),
                ctx.derive("bounds", stmt, pattern("block", saved, restored), (pattern("sub", index, vs), vf, vs),
                           (vt, vf, vs)),
                ctx.compute(lambda s: s if s is not None else Node("intCst", (1, None)), stride, step),
                eq(out, pattern(
                    "block",
                    pattern("block", save, pattern("assign", vf, first), pattern("assign", vs, step), pushes,
                            pattern("do", index, vf, last, vs, trip_f), saved),
                    pattern("block", restored, pattern("do", index, vt, vf, pattern("neg", vs), trip_b),
                            pops, restore))))
    return guard, body


@ADJOINT.rule("A-for", judgment="adjoint", ops=("for",), section="5.4",
              source="reconstructed: docs/rules.md#a-for",
              premises=("isLiveForDiff(LOOP)", "structured(LOOP)", "replayableFor(LOOP)", "INSTRS →  [INSTRS→ ; INSTRS←]",
                        "integer →newFreeVars VF, VT", "LOOP →save [push(I)? ; pop(I)?]",
                        "LOOP, INSTRS→, INSTRS← →trips [TRIP→ ; TRIP←]",
                        "LOOP, (I - S, VF), (VT, VF) →bounds [SAVE ; RESTORE]"),
              conclusion="for (I = F; I op T; I += S) INSTRS  →\n"
                         "  [push(I)?; VF = F; for (I = VF; I op T; I += S) TRIP→; SAVE ;\n"
                         "   RESTORE; for (I = VT; I >= VF; I -= S) TRIP←; pop(I)?]   (<= for S < 0)")
def a_for(stmt, out, ctx):
    """C's for loop, the loop rule of 5.4 for `for (I = F; TEST; I += S)` with a constant
    stride S that the body does not change and a TEST without calls (`i < n`, `i + 1 < n`,
    two conditions): for_loop_parts refuses the others. As for DO, I - S after the loop is the last index
    value (F - S when the loop did not run): the backward loop runs from it down to VF,
    the same iterations in reverse, for either sign of S and any trip count. An index
    declared by the loop (`for (int i = F; ...)`) is declared for the whole procedure, its
    last value being read after the loop."""
    init, cond, step, instrs = var(), var(), var(), var()
    index, first, stride, forward_body, backward_body, vf, vt, save, restore, back_cond, last = (var() for _ in range(11))
    trip_f, trip_b, saved, restored = var(), var(), var(), var()
    guard = lall(eq(stmt, pattern("for", init, cond, step, instrs)), ctx.fact("is_live_for_diff", stmt),
                 ctx.check(ctx.structured, stmt), ctx.check(ctx.replayable_for, stmt))
    body = lall(ctx.compute(ctx.for_loop_parts, stmt, (index, first, stride)),
                ctx.derive("adjoint", instrs, pattern("block", forward_body, backward_body)),
                ctx.compute(ctx.loop_variables, stmt, (vf, vt)),
                ctx.derive("save", stmt, pattern("block", save, restore)),
                ctx.derive("trips", stmt, pattern("block", trip_f, trip_b), forward_body, backward_body),
                ctx.compute(ctx.backward_condition, index, vf, stride, back_cond),
                ctx.compute(ctx.minus_stride, index, stride, last),
                ctx.derive("bounds", stmt, pattern("block", saved, restored), (last, vf), (vt, vf)),
                eq(out, pattern(
                    "block",
                    pattern("block", save, pattern("assign", vf, first),
                            pattern("for", pattern("assign", index, vf), cond, step, trip_f), saved),
                    pattern("block", restored,
                            pattern("for", pattern("assign", index, vt), back_cond,
                                    pattern("assign", index, last), trip_b),
                            restore))))
    return guard, body


LOOP_OPS = ("do", "for")


@ADJOINT.rule("A-save-index", judgment="save", ops=LOOP_OPS, section="5.4", source="verbatim",
              premises=("I ∈ TBR⁻(LOOP)",), conclusion="LOOP on I  →save  [push(I) ; pop(I)]")
def a_save_index(stmt, out, ctx):
    index, push, pop = var(), var(), var()
    guard = lall(conda((eq(stmt, pattern("do", index, var(), var(), var(), var())),),
                       (eq(stmt, pattern("for", pattern("assign", index, var()), var(), var(), var())),)),
                 ctx.check(ctx.index_restored, stmt))
    body = lall(ctx.compute(ctx.push, index, push), ctx.compute(ctx.pop, index, pop),
                eq(out, pattern("block", push, pop)))
    return guard, body


@ADJOINT.rule("A-save-none", judgment="save", ops=LOOP_OPS, section="5.4",
              source="reconstructed: docs/rules.md#a-for",
              premises=("I ∉ TBR⁻(LOOP)",), conclusion="LOOP on I  →save  [{} ; {}]")
def a_save_none(stmt, out, ctx):
    """No derivative instruction before the loop reads its index: nothing to save (TBR)."""
    op = var()
    guard = lall(eq(stmt, pattern(op, rest=var())), member(op, LOOP_OPS), ctx.check(ctx.index_not_restored, stmt))
    return guard, eq(out, pattern("block", EMPTY, EMPTY))


CONTROL_OPS = ("if", "do", "for", "while", "doWhile", "switch")


@ADJOINT.rule("A-control-dead", judgment="adjoint", ops=CONTROL_OPS, section="5.4", source="verbatim",
              premises=("¬isLiveForDiff(CONTROL)",), conclusion="CONTROL INSTRS  →  [{} ; {}]")
def a_control_dead(stmt, out, ctx):
    """Nothing inside the control computes a value the derivatives need, nor has an adjoint
    (diff-liveness slicing, 4.9): both sweeps drop it."""
    op = var()
    guard = lall(eq(stmt, pattern(op, rest=var())), member(op, CONTROL_OPS), ctx.no_fact("is_live_for_diff", stmt))
    return guard, eq(out, pattern("block", EMPTY, EMPTY))


NOTHING_OPS = ("nop", "comment")


@ADJOINT.rule("A-nop", judgment="adjoint", ops=NOTHING_OPS, section="5.4",
              source="reconstructed: docs/rules.md#a-seq",
              premises=(), conclusion="CONTINUE | comment  →  [{} ; {}]")
def a_nop(stmt, out, ctx):
    """No value and no control: nothing in either sweep (a comment is not copied)."""
    op = var()
    return lall(eq(stmt, pattern(op, rest=var())), member(op, NOTHING_OPS)), eq(out, pattern("block", EMPTY, EMPTY))


@ADJOINT.rule("A-decl", judgment="adjoint", ops=("varDecl",), section="4.2",
              source="reconstructed: docs/rules.md#a-decl",
              premises=("atTopOfBody(DECL)", "¬(hasDerivativeInstruction(DECL) ∧ isActiveExpr(INIT))",
                        "DECL →decls DECL; DECLb = 0"),
              conclusion="T V  →  [T V; T Vb = 0 ; {}]")
def a_decl(stmt, out, ctx):
    """C declares its locals in the body: a local with an adjoint gets its declaration after
    its own, initialised to 0 so that the backward sweep starts from zero adjoints. Only at
    the top of the body, so that both sweeps see it."""
    decls = var()
    guard = lall(eq(stmt, pattern("varDecl", var(), var(), var())), ctx.check(ctx.top_level, stmt),
                 ctx.check(ctx.passive_initial_values, stmt))
    body = lall(ctx.compute(ctx.adjoint_declaration, stmt, decls), eq(out, pattern("block", decls, EMPTY)))
    return guard, body


@ADJOINT.rule("A-decl-init", judgment="adjoint", ops=("varDecl",), section="5.4",
              source="reconstructed: docs/rules.md#a-decl",
              premises=("atTopOfBody(DECL)", "hasDerivativeInstruction(DECL) ∧ isActiveExpr(INIT)",
                        "¬structureInitialValue(DECL)", "DECL →decls DECL; DECLb = 0",
                        "INITi, Vib →adjexpr INSTRSi  (each Vi with an adjoint)"),
              conclusion="T V1 = INIT1, ...  →  [T V1 = INIT1, ...; T V1b = 0, ... ; INSTRSn; ...; INSTRS1]")
def a_decl_init(stmt, out, ctx):
    """A C declaration with initial values is an assignment of each: the backward sweep
    propagates the adjoint of each variable into its initial value, last variable first.
    Nothing is pushed: the variable held no value before."""
    decls, inits, values, instrs = var(), var(), var(), var()
    guard = lall(eq(stmt, pattern("varDecl", var(), var(), var())), ctx.check(ctx.top_level, stmt),
                 ctx.check(ctx.active_initial_value, stmt), ctx.check(ctx.no_structure_initial_value, stmt))
    body = lall(ctx.compute(ctx.adjoint_declaration, stmt, decls),
                ctx.compute(ctx.initial_adjoints, stmt, (inits, values)),
                ctx.derive_each("adjexpr", inits, instrs, values, stmt),
                eq(out, pattern("block", decls, pattern("block", rest=instrs))))
    return guard, body


@ADJOINT.rule("A-decl-struct-init", judgment="adjoint", ops=("varDecl",), section="5.4",
              source="reconstructed: docs/rules.md#a-decl",
              premises=("atTopOfBody(DECL)", "hasDerivativeInstruction(DECL) ∧ isActiveExpr(INIT)",
                        "structureInitialValue(DECL)  (a struct Vi = INITi, INITi no {...})",
                        "DECL →splitDecl T V1, ...; V1 = INIT1, ...", "T V1, ... →decls T V1, ...; T V1b = 0, ...",
                        "Vi = INITi →  [Vi = INITi→ ; Vi = INITi←]  (each Vi with an initial value)"),
              conclusion="T V1 = INIT1, ...  →  [T V1, ...; T V1b = 0, ...; V1 = INIT1→; ... ; ...; V1 = INIT1←]")
def a_decl_struct_init(stmt, out, ctx):
    """C has no + of structs, so a struct's initial value has no adjexpr: the declaration is
    split into the declaration and the assignment of each initial value (as A-decl-nested
    does for a declaration in a nested block), which the assignment rules differentiate (a
    struct copy component by component, A-assign-c-struct). Nothing is pushed: the
    variables held no value before."""
    bare, assigns, decls, pairs = var(), var(), var(), var()
    guard = lall(eq(stmt, pattern("varDecl", var(), var(), var())), ctx.check(ctx.top_level, stmt),
                 ctx.check(ctx.active_initial_value, stmt), ctx.check(ctx.structure_initial_value, stmt))
    body = lall(ctx.compute(ctx.split_declaration, stmt, (bare, assigns)),
                ctx.compute(ctx.adjoint_declaration, bare, decls), ctx.derive_all("adjoint", assigns, pairs),
                ctx.compute(lambda d, ps: Node("block", (Node("block", (d,) + tuple(p.kids[0] for p in ps)),
                                                         Node("block", tuple(p.kids[1] for p in reversed(ps))))),
                            decls, pairs, out))
    return guard, body


@ADJOINT.rule("A-decl-nested", judgment="adjoint", ops=("varDecl",), section="5.4",
              source="reconstructed: docs/rules.md#a-decl",
              premises=("nestedDeclaration(DECL)  (C, not at the top of the body)",
                        "DECL →hoistDecl V1 = INIT1, ...  (T V1; T V1b = 0 declared for the procedure)",
                        "Vi = INITi →  [Vi = INITi→ ; Vi = INITi←]  (each Vi with an initial value)"),
              conclusion="T V1 = INIT1, ...  →  [V1 = INIT1→; ... ; ...; V1 = INIT1←]")
def a_decl_nested(stmt, out, ctx):
    """A declaration in a nested block: its variables live on after the block, into the
    backward sweep, so they are declared once for the procedure (with their adjoints, 0)
    and each initial value is an assignment, which may overwrite the value of an earlier
    execution of the block (a loop body): the assignment rules push it where TBR says."""
    assigns, pairs = var(), var()
    guard = lall(eq(stmt, pattern("varDecl", var(), var(), var())), ctx.check(ctx.nested_declaration, stmt))
    body = lall(ctx.compute(ctx.hoisted_assignments, stmt, assigns), ctx.derive_all("adjoint", assigns, pairs),
                ctx.compute(ctx.sweeps_of, pairs, out))
    return guard, body


@ADJOINT.rule("A-return-value", judgment="adjoint", ops=("return",), section="5.4",
              source="reconstructed: docs/rules.md#a-return",
              premises=("present(E)", "¬returnsStructure(RETURN)", "E, Fb →adjexpr INSTRS"),
              conclusion="return E  →  [{} ; INSTRS]")
def a_return_value(stmt, out, ctx):
    """C's `return E`: E is the function's value, whose adjoint Fb is P_b's last argument
    (fig. 8); the backward sweep starts by propagating it into E. A return before the end
    is a jump, to the end of the forward sweep (A-flow-graph): the adjoint of its block
    starts the backward sweep on its path."""
    value, instrs, result_b = var(), var(), var()
    guard = lall(eq(stmt, pattern("return", value)), ctx.check(_present, value),
                 ctx.check(ctx.returns_no_structure, stmt))
    body = lall(ctx.compute(lambda s: ctx.result_adjoint(), stmt, result_b),
                ctx.derive("adjexpr", value, instrs, result_b, stmt),
                eq(out, pattern("block", EMPTY, instrs)))
    return guard, body


@ADJOINT.rule("A-return-struct", judgment="adjoint", ops=("return",), section="5.4",
              source="reconstructed: docs/rules.md#a-return",
              premises=("returnsStructure(RETURN)", "E →structureSource SOURCE", "SOURCE →ref SOURCEb"),
              conclusion="return E  →  [{} ; SOURCEb.f = SOURCEb.f + Fb.f (each real f)]")
def a_return_struct(stmt, out, ctx):
    """C's `return E` in a function returning a struct: its adjoint Fb (P_b's last argument,
    of type T_diff, passed by value as a scalar result's is) goes into E component by
    component (C has no + of structs), E being a struct variable or a struct-valued call's
    temporary (else refused)."""
    value, source, source_b = var(), var(), var()
    guard = lall(eq(stmt, pattern("return", value)), ctx.check(ctx.returns_structure, stmt))
    body = lall(ctx.compute(ctx.structure_source, value, stmt, source), ctx.derive("ref", source, source_b),
                ctx.compute(ctx.returned_structure_adjoint, source_b, out))
    return guard, body


@ADJOINT.rule("A-return-end", judgment="adjoint", ops=("return",), section="5.4",
              source="reconstructed: docs/rules.md#a-return",
              premises=(), conclusion="return  →  [{} ; {}]")
def a_return_end(stmt, out, ctx):
    return eq(stmt, pattern("return", None)), eq(out, pattern("block", EMPTY, EMPTY))


REFUSED_OPS = tuple(sorted(REFUSED)) + ("varDecl",)


@ADJOINT.rule("A-refuse", judgment="adjoint", ops=REFUSED_OPS, section="5.4",
              source="reconstructed: docs/rules.md#a-refuse",
              premises=("refused(INSTR)  (not in this slice of adjoint mode)",), conclusion="INSTR  →  file:line: refused")
def a_refuse(stmt, out, ctx):
    """What adjoint mode does not differentiate yet is refused at its line, never
    differentiated wrongly: the statements of REFUSED, a C declaration inside a nested
    block."""
    op = var()
    guard = lall(eq(stmt, pattern(op, rest=var())), member(op, REFUSED_OPS), ctx.check(ctx.refused, stmt))
    return guard, ctx.compute(lambda s: ctx.refuse(s, ctx.refused_what(s)), stmt, out)
