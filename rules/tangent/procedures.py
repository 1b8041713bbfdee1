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
              premises=("isDiffProc(P)", "P →procName Pd", "ARGS →args ARGSd", "DECLS →decls DECLSd",
                        "INSTRS →  INSTRSd"),
              conclusion="procedure P(ARGS) {DECLS; INSTRS}  →  procedure Pd(ARGSd) {DECLSd; INSTRSd}")
def t_proc(proc, out, ctx):
    """DECLS → DECLSd (4.2, reconstructed where the paper does not detail it): each declaration
    of a variable with a derivative is followed by that of its derivative, same dimensions.
    Globals follow Tapenade's names (DESIGN.md), one derivative per global for the whole
    program, since activity is a whole-program fact (rules/tangent/globals.py):

    - COMMON `/c/` → `/c_d/`. When some variable of /c/ has a derivative in some
      differentiated procedure, every differentiated procedure declaring /c/ declares /c_d/,
      with the whole layout of its /c/ mirrored: each member, active or not, real or not,
      gets a derivative of the same type and dimensions (`common /c/ w(4), s, m` →
      `common /c_d/ wd(4), sd, md`; `md` is an integer placeholder that nothing reads). So the
      declarations of /c_d/ are identical wherever those of /c/ are, and storage association
      between procedures that name the members differently carries over to the derivatives;
      only the members active somewhere would not give one layout in every procedure.
    - Fortran module `m` → `m_diff`, which USEs `m`, holds the derivatives `vd` of m's active
      variables, the T_diff of m's types and the differentiated module procedures; it is PRIVATE
      by default and exports only those, and a differentiated procedure that USEs m also USEs
      m_diff. Tapenade's m_diff holds copies of m's variables instead; keeping them in m (the
      closest sound scheme) lets a differentiated procedure share them with the original
      procedures it still calls, so the original source is compiled with the tangent file.
      A module variable renamed by USE (`use m, only: s => scale`) is refused.
    - C file-scope variables the differentiated functions use are declared `extern` in the
      tangent file (the original file defines them), each active one followed by the
      definition of its derivative, once: `extern double g; double gd;`. A `static` one is
      refused (another file cannot reach it).
    - Structure type `T` → `T_diff` (rules/naming.py) with the components that can have a
      derivative (real, complex, and a structure U that has a U_diff, typed with it); the
      derivative of a `type(T)` variable is a `type(T_diff)`, and of `v%x` is `vd%x`. The
      T_diff of a Fortran module's type goes in m_diff, that of a procedure's own type after
      its definition; C's `struct s_diff` / typedef `T_diff` go at the top of the file.

    ARGS → ARGSd, isDiffFormalArg (reconstructed from Tapenade's behaviour; the paper's
    predicate looks at the call sites only, and a head has none): an array or pointer
    argument of a head (C `double *s`, `double s[N]`, `T *p`; a Fortran array dummy) that
    holds active values but is no independent nor dependent gets its derivative argument
    after it too, as Tapenade's "Plus diff mem management of: s:in": the caller owns that
    memory. A local would not do: a C derivative pointer would be unset, and an
    assumed-shape or assumed-size array has no size of its own. The header comment and the
    .msg say what the caller passes. Where its derivative may be read before it is written,
    P_D zeroes it whole if its size is known (Fortran explicit or assumed shape, a C array
    of declared size), and the caller passes "a buffer of the size of s"; else (a C pointer,
    a Fortran assumed-size array) P_D zeroes nothing, and the caller passes "a zeroed buffer
    of the size of s". Never part of it: Tapenade's `*sd = 0.0` zeroes one element of an
    array. Another differentiated procedure whose array or pointer argument holds active
    values only inside it (passive at every call) keeps a local derivative when the
    argument has a size of its own (explicit shape, C declared size); else (a C pointer, an
    assumed-shape or assumed-size array) the derivative is an argument too, and each call
    passes the derivative of the caller's variable, zeroed whole before the call when the
    callee may read it and cannot zero it (refused when the caller does not know its size
    either). Every differentiated procedure is then checked: none of its local derivative
    pointers may be used before it is set, on any path (analyses/pointers_set.py, a
    must-be-set analysis run by the solver), or it is refused with file:line.
    """
    name, body, body_d = var(), var(), var()
    guard = lall(eq(proc, procedure_pattern(name, body)), ctx.fact("is_diff_proc", name))
    body_goal = lall(ctx.derive("tangent", body, body_d),
                     ctx.compute(lambda p, b: ctx.differentiated_procedure(p, b), proc, body_d, out))
    return guard, body_goal


@TANGENT.rule("T-proc-nodiff", judgment="proc", ops=("procedure",), section="5.3",
              source="reconstructed: docs/rules.md#t-proc",
              premises=("¬isDiffProc(P)",), conclusion="procedure P  →  (nothing)")
def t_proc_nodiff(proc, out, ctx):
    name = var()
    guard = lall(eq(proc, procedure_pattern(name, var())), ctx.no_fact("is_diff_proc", name))
    return guard, eq(out, None)


def procedure_pattern(name, body):
    """`procedure P(ARGS) {DECLS; INSTRS}`: its name and its body (INSTRS), the rest any."""
    return pattern("procedure", name, var(), var(), var(), var(), var(), var(), body, var())


def differentiated_arguments(formals, diff_formal, var_name) -> tuple:
    """(ARG . ARGS) → (ARG . ARGd . ARGSd) when isDiffFormalArg(ARG), else (ARG . ARGSd)."""
    out = []
    for formal in formals:
        out.append(formal)
        if diff_formal(formal):
            out.append(var_name(formal))
    return tuple(out)


def derivative_declarations(decls, diff_names, var_name, active_commons=None, derivative_type=None,
                            formals=()) -> tuple:
    """Each declaration of a variable with a derivative is followed by the same declaration
    of its derivative (same type and dimensions; no initial value, no PARAMETER).
    active_commons: {COMMON block name: its derivative block name} for the blocks that hold
    an active variable somewhere in the program; `common /c/ a, n(3)` of such a block is
    followed by `common /c_d/ ad, nd(3)`, the whole layout mirrored (docs/rules.md#t-proc).
    derivative_type: the type of a derivative given its variable's (Fortran `type(T)` →
    `type(T_diff)`, C `struct s_diff`); the same type when None. formals: the procedure's
    dummy arguments and function result, which a bare SAVE does not make SAVE (their
    derivatives get no initial value)."""
    active_commons = active_commons or {}
    mirrored = set()  # every member of an active block gets a derivative: the layouts stay identical
    for decl in decls:
        if decl.op == "common" and decl.kids[0] in active_commons:
            mirrored |= {_common_member(v) for v in decl.kids[1]}
    diff_names = set(diff_names) | mirrored
    statements = _AttributeStatements(decls)
    typed = {d.kids[0] for decl in decls if decl.op == "varDecl" for d in decl.kids[2]}
    out, deferred = [], {}  # deferred: index of a declaration -> derivative declarations to put after it
    for i, decl in enumerate(decls):
        out.append(decl)
        out.extend(deferred.pop(i, ()))
        if decl.op == "attrDecl" and decl.kids[0] == "dimension":   # an implicitly typed array: so is its derivative
            implicit = tuple(d.with_kids(var_name(d.kids[0]), *d.kids[1:]) for d in decl.kids[1]
                             if d.kids[0] in diff_names and d.kids[0] not in typed)
            if implicit:
                out.append(Node("attrDecl", ("dimension", implicit), decl.ann))
        if decl.op == "common" and decl.kids[0] in active_commons:
            members = tuple(_renamed_member(v, var_name) for v in decl.kids[1])
            out.append(Node("common", (active_commons[decl.kids[0]], members), decl.ann))
        if decl.op != "varDecl":
            continue
        typ, attrs, declarators = decl.kids
        derived = tuple(Node("declarator", (var_name(d.kids[0]), d.kids[1] or statements.dims.get(d.kids[0]),
                                            _saved_zero(typ, attrs, d, statements.saves(d.kids[0])
                                                        and d.kids[0] not in formals), d.kids[3]),
                             d.ann)
                        for d in declarators if d.kids[0] in diff_names)
        if derived:
            kept = tuple(a for a in attrs if a not in ("parameter", "save", "external", "intrinsic", "extern"))
            typ_d = derivative_type(typ) if derivative_type is not None else typ
            # after the DIMENSION statements that give the dimensions: they may use later PARAMETERs
            after = max([i] + [statements.where.get(d.kids[0], i) for d in declarators if d.kids[0] in diff_names])
            (out if after == i else deferred.setdefault(after, [])).append(Node("varDecl", (typ_d, kept, derived),
                                                                                decl.ann))
    return tuple(out)


class _AttributeStatements:
    """The DIMENSION and SAVE statements of a Fortran declaration part (attrDecl): a derivative
    declared by a type declaration takes its variable's dimensions and SAVE from them."""

    def __init__(self, decls):
        self.dims, self.where, self.saved, self.all_saved = {}, {}, set(), False
        for i, decl in enumerate(decls):
            if decl.op == "attrDecl" and decl.kids[0] == "dimension":
                for d in decl.kids[1]:
                    self.dims[d.kids[0]], self.where[d.kids[0]] = d.kids[1], i
            elif decl.op == "attrDecl" and decl.kids[0] == "save":
                self.saved |= {d.kids[0] for d in decl.kids[1]}
                self.all_saved |= not decl.kids[1]   # SAVE alone: every local variable

    def saves(self, name: str) -> bool:
        return self.all_saved or name in self.saved


def _saved_zero(typ: Node, attrs, declarator: Node, saved: bool = False):
    """The initial value of the derivative of a Fortran SAVE variable (attribute, SAVE statement
    (`saved`), or an initial value, which implies SAVE): 0, which makes the derivative SAVE too,
    so that it goes from one call to the next with its variable (analyses/activity.py), starting
    at zero with the variable's constant initial value. (A C static local keeps `static`: zero,
    and saved.)"""
    if "save" not in attrs and not saved and declarator.kids[2] is None or "parameter" in attrs:
        return None
    if typ.op != "type" or typ.kids[0] not in ("real", "complex"):
        return None
    return Node("realCst", ("0.0", typ.kids[1] or 4))


def _common_member(ref: Node) -> str:
    """The variable of a COMMON list item (`a` or `a(3)`)."""
    return ref.kids[0].kids[0] if ref.op == "arrayAccess" else ref.kids[0]


def _renamed_member(ref: Node, var_name) -> Node:
    if ref.op == "arrayAccess":
        return ref.with_kids(Node("ident", (var_name(ref.kids[0].kids[0]),)), *ref.kids[1:])
    return Node("ident", (var_name(ref.kids[0]),))
