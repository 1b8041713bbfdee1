"""Adjoint rules for procedures (paper 5.4, first rules; 4.5, 4.10; fig. 8).

A procedure is differentiated joint (checkpointed, the default of 4.10): P_b runs the forward
sweep of its body, then the backward sweep. Its arguments are P's, each one with an adjoint
followed by it (the same ARGS rule as the tangent's); a function's result gets its adjoint
as a last argument and P_b returns nothing (fig. 8). A procedure that calls reach split
($AD NOCHECKPOINT, -nocheckpoint) gets P_fwd and P_bwd (A-proc-split), and P_b as well when
it is also a head or called joint (isCalledJoint).
"""
from __future__ import annotations

from ...engine.kanren_il import eq, lall, pattern, var
from ..tangent.procedures import procedure_pattern
from .ruleset import ADJOINT


@ADJOINT.rule("A-proc", judgment="proc", ops=("procedure",), section="5.4", source="verbatim",
              premises=("isDiffProc(P)", "jointWanted(P)  (a head, isCalledJoint(P) or ¬isCalledSplit(P))",
                        "P →procName Pb", "ARGS →args ARGSb", "DECLS →decls DECLSb",
                        "INSTRS →  [INSTRS→ ; INSTRS←]"),
              conclusion="procedure P(ARGS) {DECLS; INSTRS}  →  procedure Pb(ARGSb) {DECLSb; INSTRS→; INSTRS←}")
def a_proc(proc, out, ctx):
    """The joint rule: the forward sweep, then the backward sweep, in one procedure. Between
    them the adjoints are initialised (reconstructed: docs/rules.md#a-proc): those of the
    locals are zeroed (Fortran; C zeroes them in their declarations), and those of the
    independents that are no dependents are overwritten (TAPENADE.md, `x:out`): zeroed
    whole when their size is known here, else the caller passes them zeroed (`x:incr`, or
    `x:in-out` where P overwrites x: that zero is then the adjoint of x's last value); the
    header comment says which. The dependents' adjoints are read and consumed (`y:in-zero`
    where P overwrites y wholly). The primal results of P_b are not those of P: the forward
    sweep is sliced by diff-liveness (4.9). A procedure that an active call reaches takes
    its adjoint arguments as its caller's, in and out: none is zeroed, the statuses say
    `incr` (only read; a C by-value formal: `*xb`, or, when P assigns it, a local xb added
    to the caller's `*xb0` at the end, seed 001), `in-zero` or `in-out`. P_b is emitted
    for a head and for a procedure some checkpointed call reaches (jointWanted)."""
    name, body, forward, backward = var(), var(), var(), var()
    guard = lall(eq(proc, procedure_pattern(name, body)), ctx.fact("is_diff_proc", name),
                 ctx.check(ctx.joint_wanted, name))
    conclusion = lall(ctx.derive("adjoint", body, pattern("block", forward, backward)),
                      ctx.compute(ctx.adjoint_procedure, proc, forward, backward, out))
    return guard, conclusion


@ADJOINT.rule("A-proc-nodiff", judgment="proc", ops=("procedure",), section="5.4",
              source="reconstructed: docs/rules.md#a-proc",
              premises=("¬isDiffProc(P)",), conclusion="procedure P  →  (nothing)")
def a_proc_nodiff(proc, out, ctx):
    name = var()
    guard = lall(eq(proc, procedure_pattern(name, var())), ctx.no_fact("is_diff_proc", name))
    return guard, eq(out, None)


@ADJOINT.rule("A-proc-split-only", judgment="proc", ops=("procedure",), section="5.4",
              source="reconstructed: docs/rules.md#a-proc",
              premises=("isDiffProc(P)", "¬jointWanted(P)"), conclusion="procedure P  →  (nothing: P_fwd, P_bwd only)")
def a_proc_split_only(proc, out, ctx):
    """A procedure that only split calls reach needs no P_b (A-proc-split gives its sweeps)."""
    name = var()
    guard = lall(eq(proc, procedure_pattern(name, var())), ctx.fact("is_diff_proc", name),
                 ctx.check(ctx.joint_unwanted, name))
    return guard, eq(out, None)


@ADJOINT.rule("A-proc-split", judgment="split", ops=("procedure",), section="5.4", source="verbatim",
              premises=("isDiffProc(P)", "isCalledSplit(P)", "P →procNameFwd Pfwd", "P →procNameBwd Pbwd",
                        "ARGS →args ARGSb", "INSTRS →  [INSTRS→ ; INSTRS←]", "DECLS →decls DECLSb"),
              conclusion="procedure P(ARGS) {DECLS; INSTRS}  →  procedure Pfwd(ARGS) {DECLS; INSTRS→}\n"
                         "                                      procedure Pbwd(ARGSb) {DECLSb; INSTRS←}")
def a_proc_split(proc, out, ctx):
    """The split rule of 5.4: the forward sweep and the backward sweep in two procedures,
    for the calls that are not checkpointed ($AD NOCHECKPOINT, -nocheckpoint). What the
    backward sweep reads and the forward sweep leaves (TBR at P's exit: locals, formals) is
    pushed at the end of P_fwd and popped at the start of P_bwd, P_bwd being another
    activation of P (reconstructed: docs/rules.md#a-call-split)."""
    name, body, forward, backward = var(), var(), var(), var()
    guard = lall(eq(proc, procedure_pattern(name, body)), ctx.fact("is_diff_proc", name),
                 ctx.fact("is_called_split", name))
    conclusion = lall(ctx.derive("adjoint", body, pattern("block", forward, backward)),
                      ctx.compute(ctx.split_procedures, proc, forward, backward, out))
    return guard, conclusion
