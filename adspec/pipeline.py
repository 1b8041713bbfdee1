"""The differentiation pipeline: sources -> IL -> program -> analyses -> facts -> the rules,
applied to every procedure to differentiate -> the differentiated IL file -> source text.

    result = differentiate(["f.f90"], head="f(y)/(x)", mode="tangent")
    result.text          # the tangent source (the <stem>_d file)
    result.messages      # warnings, as in Tapenade's .msg file
    result.derivations   # differentiated procedure name -> the proof tree of its rule applications
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field

from .engine.datastack import roomy
from .engine.errors import SourceError, UnsupportedError, at_line
from .engine.il import EXPRESSION_OPS, Node, called_names, mk, walk

MODES = {"tangent": "_d", "vector": "_dv", "adjoint": "_b"}
# the improvements -nooptim switches off: the analyses' (activity 4.6, diff-liveness and TBR 4.9)
# the adjoint's split and merge (4.8, rules/adjoint/merge.py) loop order
# (rules/adjoint/loop_order.py) and trips in pairs (rules/adjoint/trip_pairs.py)
NOOPTIM = ("activity", "diffliveness", "tbr", "spareinit", "mergediff", "splitdiff", "looporder", "trippairs")


@dataclass
class HeadNames:
    procedure: str
    dependents: tuple
    independents: tuple


@dataclass
class Differentiated:
    text: str
    tree: Node
    messages: list = field(default_factory=list)
    derivations: dict = field(default_factory=dict)
    heads: list = field(default_factory=list)          # of HeadNames
    procedure_names: dict = field(default_factory=dict)  # original -> differentiated
    diff_formals: tuple = ()                             # of the first head
    caller_zeroes: dict = field(default_factory=dict)    # of the first head: memory formal -> the caller
                                                         # passes its derivative zeroed (else any buffer)
    statuses: dict = field(default_factory=dict)         # adjoint, of the first head: argument -> its RW
                                                         # status (out, incr, in-zero, in-out, in)


def _adjoint_rules():
    """The adjoint rule set and context, imported only in adjoint mode: compiling and
    registering them is about 0.05 s that a tangent run would pay for nothing."""
    from .rules.adjoint import ADJOINT
    from .rules.adjoint.context import AdjointContext
    return ADJOINT, AdjointContext


def _read(sources, lang, filename, form):
    from .frontends import parse_files, parse_source
    if lang is not None:  # source text
        return [parse_source(sources, filename or "<string>", lang, form)]
    paths = [sources] if isinstance(sources, (str, os.PathLike)) else list(sources)
    return parse_files([str(p) for p in paths])


@roomy   # the rule runner's deep recursion would map and unmap stack chunks (engine/datastack.py)
def differentiate(sources, head, mode: str = "tangent", vars: str | None = None, outvars: str | None = None,
                  lang: str | None = None, filename: str | None = None, form: str | None = None,
                  nooptim=frozenset(), tgtlang: str | None = None, progress=None) -> Differentiated:
    """Differentiate `sources` (paths, or source text when `lang` is given) for the heads;
    `nooptim`: improvements switched off (of NOOPTIM), as Tapenade's -nooptim;
    `tgtlang`: the output language, which must be the input's for now;
    `progress(name, index, total)` is called before each procedure is differentiated."""
    from .analyses import run_analyses
    from .analyses.facts import Facts
    from .analyses.inout import in_out
    from .backends import unparse
    from .backends.labels import without_unused_labels
    from .engine.program import build_program
    from .heads import parse_heads, resolve_heads
    from .interfaces import with_derivative_interfaces
    from .rules.naming import Namer, program_names
    from .rules.tangent import TANGENT
    from .rules.tangent.context import TangentContext
    from .rules.tangent.globals import c_units, fortran_units

    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}")
    files = _read(sources, lang, filename, form)
    cuda_file = next((f for f in files if f.ann.get("dialect") == "cuda"), None)
    if cuda_file is not None:
        raise UnsupportedError("differentiating CUDA source is not supported yet",
                               cuda_file.ann.get("filename", "<input>"))
    pieces, relocation = {}, None
    if mode == "adjoint":  # $AD CHECKPOINT-START/END: each piece a checkpointed call
        from .rules.adjoint.forall import as_loops
        from .rules.adjoint.pieces import inlined, outlined
        from .rules.adjoint.saved_locals import relocated
        files, pieces = outlined(as_loops(files))
        files, relocation = relocated(files)   # SAVE/static locals of called procedures: global state
    program = build_program(files)
    inout = in_out(program)
    head_warnings = []
    heads = resolve_heads(program, parse_heads(head, vars, outvars), inout, head_warnings)
    adjoint = mode == "adjoint"
    if adjoint and any(f.ann.get("lang", "fortran") != "fortran" and f.ann.get("lang") != "c" for f in files):
        raise UnsupportedError("adjoint mode of this language is not supported yet", files[0].ann.get("filename"))
    # the tangent modes need no TBR, Adj-out or snapshots (they are the adjoint's)
    results = run_analyses(program, heads, nooptim=frozenset(nooptim), adjoint=adjoint, inout=inout)
    facts = Facts(program, results)
    first = files[0]
    file_lang = first.ann.get("lang", "fortran")
    out_lang = "cuda" if tgtlang == "cuda" and file_lang == "c" else file_lang  # C is CUDA without kernels
    if tgtlang not in (None, file_lang, out_lang):
        raise SourceError(f"writing the derivatives of {file_lang} source in {tgtlang} is not supported yet",
                          first.ann.get("filename", "<input>"))
    names = Namer(program_names(program.files), "adjoint" if adjoint else "tangent")  # vector: the tangent's
    rules, context = _adjoint_rules() if adjoint else (TANGENT, TangentContext)
    ctx = context(rules, facts, names=names, lang=file_lang, program=program,
                  filename=first.ann.get("filename", "<input>"))
    ctx.messages.extend(head_warnings)
    entries, derivations, procedure_names = [], {}, {}
    diff_procedures = facts.diff_procedures()
    for index, proc_name in enumerate(diff_procedures, 1):
        proc = program.procedure(proc_name)
        if progress is not None:
            progress(proc.source_name, index, len(diff_procedures))
        if adjoint:
            ctx.start(proc)
        else:
            ctx.procedure, ctx.extra_declarations = proc, []
        with at_line(proc.node.line):  # a refusal that knows no line of its own gets the procedure's
            differentiated, derivation = rules.apply("proc", proc.node, ctx)
        if adjoint and facts.is_called_split(proc_name):  # P_fwd and P_bwd (paper 5.4)
            entries += _split_entries(proc, heads, rules, ctx, derivations)
        if differentiated is None:
            continue
        if adjoint:
            header = adjoint_header_comment(proc, heads, ctx.statuses[proc.name], _buffers(ctx, proc, mode, file_lang))
        else:
            header = header_comment(proc, facts, results, heads, _buffers(ctx, proc, mode, file_lang),
                                    ctx.entry_resets.get(proc.name, ()))
        entries.append((proc, header + [differentiated]))
        derivations[differentiated.kids[0]] = derivation
        procedure_names[proc.source_name] = differentiated.kids[0]
    if pieces:  # the forward sweep's plain calls of the pieces: the pieces themselves
        entries = [(proc, [inlined(u, pieces) for u in us]) for proc, us in entries]
    copies = []
    if relocation:  # the primal calls that reach moved state run copies sharing it
        from .rules.adjoint.saved_locals import primal_copies, renamed_calls
        nodiff = {name: names.nodiff_proc(name) for name in sorted(relocation.reaching)}
        entries = [(proc, [renamed_calls(u, nodiff, proc.source_name if file_lang == "fortran" else None)
                           for u in us]) for proc, us in entries]
        copies = primal_copies([u for _, us in entries for u in us], program, nodiff, file_lang)
        for unit, message in relocation.warnings(nodiff):
            ctx.warn(unit, message)
    if file_lang == "fortran":
        units = fortran_units(_nested_internal_procedures(_called_from_heads(entries, heads), ctx.filename), ctx)
        units = (relocation.modules if relocation else []) + units + copies
    else:
        own = copies + [u for _, us in entries for u in us]   # the originals it calls may use other globals
        units = c_units(own, ctx, _called_originals(program, own, procedure_names))
        if relocation:
            from .rules.adjoint.saved_locals import with_definitions
            units = with_definitions(units, relocation)
    derived_from = {u.kids[0]: proc.source_name for proc, us in entries for u in us if u.op == "procedure"}
    if mode == "vector":
        units = _vectorized(units, names, procedure_names, file_lang, ctx.filename, files)
        procedure_names = {k: names.vector_proc(k) for k in procedure_names}
        derived_from = {names.vector_proc(o): o for o in derived_from.values()}
    if file_lang == "fortran":
        units = [without_unused_labels(u) for u in with_derivative_interfaces(units, derived_from)]
    stem = os.path.splitext(os.path.basename(first.ann.get("filename", "out")))[0]
    ext = os.path.splitext(first.ann.get("filename", ""))[1] or (".f90" if file_lang == "fortran" else ".c")
    if out_lang == "cuda":
        ext = ".cu"
    if file_lang == "c":
        units = _without_uncalled_statics(units)
        # the derivative types and file-scope declarations (c_units) first: a copied static original
        # may use them
        n_globals = next((i for i, u in enumerate(units) if u.op not in ("typeDef", "typeAlias", "varDecl")),
                         len(units))
        units = (_type_definitions(files) + units[:n_globals] + _called_originals(program, units, procedure_names)
                 + units[n_globals:])
    includes = ("#include <adStack.h>",) if adjoint and file_lang == "c" else ()
    if mode == "vector" and file_lang == "c":
        from .rules.tangent.vector import DIFFSIZES_INCLUDE   # vector mode's module: loaded for it only
        includes = (DIFFSIZES_INCLUDE,)
    tree = mk("file", *units, lang=file_lang, form=first.ann.get("form"), filename=f"{stem}{MODES[mode]}{ext}",
              includes=includes)
    head_names = [_head_names(program, name, zones) for name, zones in heads.items()]
    first_head = program.procedure(head_names[0].procedure) if head_names else None
    diff_formals = facts.diff_formals(first_head.name) if first_head is not None else ()
    caller_zeroes = {f: z for f, _, z in ctx.buffers.get(first_head.name, ())} if first_head is not None else {}
    statuses = dict(s.split(":", 1) for s in getattr(ctx, "statuses", {}).get(first_head.name, ())) \
        if first_head is not None else {}
    return Differentiated(unparse(tree, out_lang, first.ann.get("form")), tree, list(ctx.messages),
                          derivations, head_names, procedure_names, diff_formals, caller_zeroes, statuses)


def write_outputs(result: Differentiated, outdir: str, stem: str | None = None) -> list[str]:
    """Write the differentiated source and its .msg file (Tapenade's <stem>_d.<ext> and
    <stem>_d.msg) in outdir; returns their paths."""
    os.makedirs(outdir, exist_ok=True)
    name = result.tree.ann["filename"]
    base, ext = os.path.splitext(name)
    if stem is not None:
        base = stem + base[base.rindex("_"):]
    code = os.path.join(outdir, base + ext)
    msg = os.path.join(outdir, base + ".msg")
    with open(code, "w") as f:
        f.write(result.text)
    with open(msg, "w") as f:
        f.write("".join(line + "\n" for line in result.messages))
    return [code, msg]


def _type_definitions(files) -> list:
    """The C struct, union, enum and typedef definitions of the sources: the differentiated
    file declares the original variables with them."""
    return [unit for f in files for unit in f.kids if unit.op in ("typeDef", "enumDef", "typedefEnum", "typeAlias")]


def _without_uncalled_statics(units) -> list:
    """C: a differentiated static function that no differentiated code calls (its calls were
    all passive) is left out, with its header comment: it could not be used, and gcc -Wall
    says so."""
    while True:
        called = called_names(tuple(u.kids[7] for u in units if u.op == "procedure"))
        unused = {i for i, u in enumerate(units) if u.op == "procedure" and "static" in u.kids[5]
                  and u.kids[0] not in called}
        if not unused:
            return units
        drop = set(unused)
        for i in unused:  # its header comment: the comments just before it
            j = i - 1
            while j >= 0 and units[j].op == "comment":
                drop.add(j)
                j -= 1
        units = [u for i, u in enumerate(units) if i not in drop]


def _called_originals(program, units, procedure_names) -> list:
    """C: the original functions the differentiated code still calls (passive calls), so that
    the file compiles alone: a static function is copied (it is invisible from the original
    file), with the static functions it calls; another one gets its prototype. In the order of
    the source, which declares each before its callers."""
    differentiated = set(procedure_names.values())
    order = {name: k for k, name in enumerate(program.procedures)}
    wanted, seen, out = [units], set(), []
    while wanted:
        for node in walk(tuple(wanted.pop())):
            if node.op != "call" or node.kids[0] in differentiated or node.kids[0] in seen:
                continue
            try:
                found = program.procedure(node.kids[0])
            except KeyError:  # an external function: declared by the user's headers
                continue
            proc = found.node
            seen.add(node.kids[0])
            if "static" in proc.kids[5] and proc.kids[7] is not None:
                out.append((order.get(found.name, len(order)), proc))
                wanted.append([proc])
            else:
                out.append((order.get(found.name, len(order)), proc.replace(body=None)))
    return [proc for _, proc in sorted(out, key=lambda p: p[0])]


def _vectorized(units, names, procedure_names, lang, filename, files) -> list:
    """F_D -> F_DV for every differentiated procedure (paper 4.7), Fortran's m_diff -> m_diffv,
    the derivative types T_diff widened."""
    from .rules.tangent.structures import TypeTable, structure_types
    from .rules.tangent.vector import Dummies, derivative_ranks, vector_modules, vectorize_procedure, widen_file_scope
    from .rules.tangent.types import is_void
    renamed = {d: names.vector_proc(original) for original, d in procedure_names.items()}
    derivatives = names.derivative_names()
    procedures = [p for u in units for p in ((u,) if u.op == "procedure" else u.kids[2] if u.op == "module" else ())]
    valued = {p.kids[0]: p.kids[4] for p in procedures if p.op == "procedure" and p.kids[0] in renamed
              and p.kids[1] == "function" and not is_void(p.kids[4])}
    # the sources' typedefs too: a component of T_diff may be typed with one (C `typedef double real`)
    structures = structure_types(list(units) + _type_definitions(files), names.derivative_types())
    if lang == "c":
        units, global_ranks = widen_file_scope(units, derivatives, filename, structures)
    else:
        units, global_ranks = vector_modules(units, derivatives, renamed, filename, names.vector_module, structures)
    types = TypeTable(files)
    dummies = {p.kids[0]: Dummies(_array_positions(p), len(p.kids[2]), p.kids[3]) for p in procedures
               if p.op == "procedure" and p.kids[0] in renamed}

    def vectorized(unit):
        if unit.op == "module":
            return unit.with_kids(unit.kids[0], unit.kids[1], tuple(vectorized(p) for p in unit.kids[2]))
        if unit.op != "procedure":
            return unit
        outer = vectorize_procedure(unit, derivatives, renamed, filename, names.temp, lang, valued, global_ranks,
                                    structures, types, dummies)
        if not any(c.op == "procedure" and c.kids[0] in renamed for c in unit.kids[8]):
            return outer
        # the derivatives of internal procedures: the host's derivatives are theirs too
        reached = {**global_ranks, **derivative_ranks(unit.kids[6], derivatives, filename, structures)}
        return outer.replace(contains=tuple(
            vectorize_procedure(c, derivatives, renamed, filename, names.temp, lang, valued, reached, structures,
                                types, dummies) if c.op == "procedure" and c.kids[0] in renamed else c
            for c in unit.kids[8]))
    return [vectorized(u) for u in units]


def _array_positions(proc) -> frozenset:
    """The positions of proc's dummies that are declared arrays."""
    arrays = {x.kids[0] for d in proc.kids[6] if d.op in ("varDecl", "attrDecl") for x in d.kids[-1]
              if isinstance(x, Node) and x.op == "declarator" and x.kids[1]}
    return frozenset(k for k, param in enumerate(proc.kids[2]) if param in arrays)


def _called_from_heads(entries, heads) -> list:
    """Fortran: the entries of the heads and of the procedures their derivatives call, directly
    or not. A procedure can be differentiated for nothing: its derivative result useless at
    every call, each call is to the original (its derivative would only warn, unused)."""
    by_name = {u.kids[0]: k for k, (_, us) in enumerate(entries) for u in us if u.op == "procedure"}
    functions = any(u.kids[1] == "function" for _, us in entries for u in us if u.op == "procedure")
    calls_in = called_names if functions else _call_statement_names
    wanted = [k for k, (proc, _) in enumerate(entries) if proc.name in heads]
    kept = set(wanted)
    while wanted:
        for name in calls_in(tuple(entries[wanted.pop()][1])):
            k = by_name.get(name)
            if k is not None and k not in kept:
                kept.add(k)
                wanted.append(k)
    return [entry for k, entry in enumerate(entries) if k in kept]


def _call_statement_names(k) -> set:
    """called_names(k) less the functions called in expressions: the names of the `call`
    statements, found without going into the expressions (most of the nodes). Enough when the
    procedures looked for are subroutines."""
    names = set()
    stack = [k]
    while stack:
        x = stack.pop()
        kind = type(x)
        if kind is Node:
            if x.op == "call":
                names.add(x.kids[0])
            elif x.op not in EXPRESSION_OPS:
                stack.extend(x.kids)
        elif kind is tuple:
            stack.extend(x)
    return names


def _nested_internal_procedures(entries, filename: str) -> list:
    """Fortran: the derivatives of internal procedures go in the CONTAINS of their host's
    derivative, after the host's own internal procedures (which derivative code may still
    call), where they reach the host's variables and derivatives by host association."""
    inner: dict = {}
    for proc, units in entries:
        if proc.host is not None:
            inner.setdefault(proc.host.name, []).extend(units)
    hosts = {proc.name for proc, _ in entries}
    for proc, _ in entries:
        if proc.host is not None and proc.host.name not in hosts:
            raise UnsupportedError(f"differentiating the internal procedure {proc.source_name} of "
                                   f"{proc.host.source_name}, which is not differentiated, is not supported yet",
                                   filename, proc.node.line)
    return [(proc, [u.replace(contains=_called_internal(proc.node.kids[8], (u,) + tuple(inner[proc.name]))
                                       + tuple(inner[proc.name]))
                    if u.op == "procedure" and proc.name in inner else u for u in units])
            for proc, units in entries if proc.host is None]


def _called_internal(originals, code) -> tuple:
    """The original internal procedures that code calls, directly or through one another."""
    by_name = {p.kids[0]: p for p in originals if p.op == "procedure"}
    kept, wanted = set(), [code]
    while wanted:
        for node in walk(wanted.pop()):
            if node.op == "call" and node.kids[0] in by_name and node.kids[0] not in kept:
                kept.add(node.kids[0])
                wanted.append(by_name[node.kids[0]].kids[7])
    return tuple(p for p in originals if p.op == "procedure" and p.kids[0] in kept)


def _head_names(program, proc_name, zones) -> HeadNames:
    from .engine.bitsets import zones_of
    proc = program.procedure(proc_name)
    independents, dependents = zones
    named = lambda s: tuple(dict.fromkeys(proc.zones.zones[z].name.lstrip("*") for z in zones_of(s)))  # noqa: E731
    return HeadNames(proc.source_name, named(dependents), named(independents))


def _buffers(ctx, proc, mode: str, lang: str) -> tuple:
    """((formal, its derivative, what the caller passes),) of proc's derivative arguments of
    memory only (TangentContext.memory_argument_zeros), each also said in the .msg."""
    from .rules.tangent.context import buffer_text
    directions = None if mode != "vector" else "nbdirsmax" if lang == "fortran" else "NBDirsMax"
    name = ctx.names.proc(proc.source_name) if mode != "vector" else ctx.names.vector_proc(proc.source_name)
    out = []
    for formal, formal_d, caller_zeroes in ctx.buffers.get(proc.name, ()):
        what = buffer_text(formal, caller_zeroes, directions)
        ctx.warn(proc.node, f"{name}: the caller passes {formal_d}, {what} ({formal} holds active values but is "
                            f"no independent nor dependent)")
        out.append((formal, formal_d, what))
    return tuple(out)


def _head_lines(proc, heads, useful: str) -> list:
    """The dependents and independents lines of a head's header comment."""
    from .engine.bitsets import zones_of
    zones = heads.get(proc.name)
    if zones is None:
        return []
    name = lambda s: " ".join(dict.fromkeys(proc.zones.zones[z].name for z in zones_of(s)))  # noqa: E731
    return [f"  {useful} of useful results: {name(zones[1])}", f"  with respect to varying inputs: {name(zones[0])}"]


def _split_entries(proc, heads, rules, ctx, derivations) -> list:
    """(proc, header + [unit]) of P_fwd and P_bwd, the sweeps of a procedure called split."""
    ctx.start(proc)
    with at_line(proc.node.line):
        pair, derivation = rules.apply("split", proc.node, ctx)
    out = []
    for unit, sweep in zip(pair.kids, ("forward sweep", "backward sweep")):
        derivations[unit.kids[0]] = derivation
        out.append((proc, adjoint_header_comment(proc, heads, ctx.statuses[proc.name], sweep=sweep) + [unit]))
    return out


def adjoint_header_comment(proc, heads, statuses, buffers=(), sweep: str | None = None) -> list:
    """Tapenade's header of P_b: what the caller passes and gets in each adjoint argument
    (rules/adjoint/context.py decides the statuses: `x:out` or `x:incr`, `y:in-zero`...),
    the adjoints of memory arguments (as header_comment); sweep: the split mode's P_fwd or
    P_bwd."""
    lines = [f"Differentiation of {proc.source_name} in reverse (adjoint) mode"
             + (f", {sweep}:" if sweep else ":")]
    lines += _head_lines(proc, heads, "gradient    ")
    lines.append("  RW status of diff variables: " + " ".join(statuses))
    return [mk("comment", line) for line in lines + _buffer_lines(buffers)]


def header_comment(proc, facts, results, heads, buffers=(), reset=()) -> list:
    """Tapenade's header: the dependents, the independents, and the read/write status of
    every derivative argument, so a caller knows what it must provide and what it gets;
    buffers: ((formal, its derivative, what the caller passes),) of the derivative arguments
    of memory only ("Plus diff mem management of", _buffers); reset: the formals whose
    derivative P_D sets to 0 at its start (`out`: the caller's value is never read)."""
    lines = [f"Differentiation of {proc.source_name} in forward (tangent) mode:"]  # vector mode too
    lines += _head_lines(proc, heads, "variations  ")
    summary = results.inout.summary(proc)

    def rw(zones):
        # `out` only where P overwrites the variable wholly: a derivative written in part keeps
        # the rest of its entry value, which the caller must then set (`in-out`)
        read = summary is not None and bool(summary[0] & zones)
        written = summary is not None and bool(summary[1] & zones)
        whole = summary is not None and summary[2] & zones == zones
        return "in" if not written else "out" if whole and not read else "in-out"
    status = []
    for position, formal in enumerate(proc.formals):
        if facts.is_diff_formal_arg(proc.name, formal):  # C: what a pointer points to
            rw_status = "out" if formal in reset else rw(proc.zones.formal_zones[position] & proc.zones.differentiable_mask)
            status.append(f"{formal}:{rw_status}")
    # the globals whose derivatives it reads or writes (COMMON, module, file scope): the caller shares them
    for name in sorted(facts.diff_variables(proc.name)):
        loc = proc.zones.vars.get(name)
        zones = loc.all & proc.zones.differentiable_mask & proc.zones.caller_globals_mask if loc is not None else 0
        if zones and summary is not None and (summary[0] | summary[1]) & zones:
            status.append(f"{name}:{rw(zones)}")
    lines.append("  RW status of diff variables: " + " ".join(status))
    return [mk("comment", line) for line in lines + _buffer_lines(buffers)]


def _buffer_lines(buffers) -> list:
    """The header lines of the derivative arguments of memory only (_buffers)."""
    if not buffers:
        return []
    return ["  Plus diff mem management of: " + " ".join(f"{formal}:in" for formal, _, _ in buffers)] \
        + [f"  {formal_d}: {what}" for _, formal_d, what in buffers]


def explain(result: Differentiated, line: int) -> str:
    """The proof trees of the statements of source line `line`: the rules applied, the
    premises that held and the analysis facts they read."""
    from .backends import source_text
    lang = result.tree.ann.get("lang", "fortran")

    def show(x):
        if isinstance(x, Node):
            return source_text(x, lang)
        if x is None:
            return "0"
        return str(x)

    out = []
    for name, derivation in result.derivations.items():
        for d in derivation.walk():
            if d.judgment in ("tangent", "adjoint") and d.node.op != "block" and d.node.line == line:
                out.append(f"in {name}:")
                out.append(d.format(show))
    return "\n".join(out)
