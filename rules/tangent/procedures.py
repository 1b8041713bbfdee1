"""Tangent rules for procedures, their arguments and declarations (paper 5.3, first rules;
4.1, 4.2, 4.5).

A differentiated procedure P_D has P's arguments, each one that has a derivative
immediately followed by it (verbatim rules for ARGS), P's declarations plus those of the
derivative variables (same type and dimensions, 4.2), and the tangent of P's body.
"""
from __future__ import annotations

from ...engine.il import Node
from ...engine.kanren_il import eq, lall, pattern, var
from .ruleset import TANGENT


@TANGENT.rule("T-proc", judgment="proc", ops=("procedure",), section="5.3", source="verbatim",
              premises=("isDiffProc(P)", "P →procName Pd", "ARGS →  ARGSd", "DECLS →  DECLSd",
                        "INSTRS →  INSTRSd"),
              conclusion="procedure P(ARGS) {DECLS; INSTRS}  →  procedure Pd(ARGSd) {DECLSd; INSTRSd}")
def t_proc(proc, out, ctx):
    name, body, body_d = var(), var(), var()
    guard = lall(ctx.compute(lambda p: p.kids[0], proc, name), ctx.fact("is_diff_proc", name))
    body_goal = lall(ctx.compute(lambda p: p.kids[7], proc, body),
                     ctx.derive("tangent", body, body_d),
                     ctx.compute(lambda p, b: ctx.differentiated_procedure(p, b), proc, body_d, out))
    return guard, body_goal


@TANGENT.rule("T-proc-nodiff", judgment="proc", ops=("procedure",), section="5.3",
              source="reconstructed: docs/rules.md#t-proc",
              premises=("¬isDiffProc(P)",), conclusion="procedure P  →  (nothing)")
def t_proc_nodiff(proc, out, ctx):
    name = var()
    guard = lall(ctx.compute(lambda p: p.kids[0], proc, name), ctx.no_fact("is_diff_proc", name))
    return guard, eq(out, None)


def differentiated_arguments(formals, diff_formal, var_name) -> tuple:
    """(ARG . ARGS) → (ARG . ARGd . ARGSd) when isDiffFormalArg(ARG), else (ARG . ARGSd)."""
    out = []
    for formal in formals:
        out.append(formal)
        if diff_formal(formal):
            out.append(var_name(formal))
    return tuple(out)


def derivative_declarations(decls, diff_names, var_name) -> tuple:
    """Each declaration of a variable with a derivative is followed by the same declaration
    of its derivative (same type and dimensions; no initial value, no PARAMETER)."""
    out = []
    for decl in decls:
        out.append(decl)
        if decl.op != "varDecl":
            continue
        typ, attrs, declarators = decl.kids
        derived = tuple(Node("declarator", (var_name(d.kids[0]), d.kids[1], None, d.kids[3]), d.ann)
                        for d in declarators if d.kids[0] in diff_names)
        if derived:
            kept = tuple(a for a in attrs if a not in ("parameter", "save", "external", "intrinsic"))
            out.append(Node("varDecl", (typ, kept, derived), decl.ann))
    return tuple(out)
