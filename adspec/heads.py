"""The -head option, as in Tapenade: "proc(dependents)/(independents)", names in a list
separated by spaces or commas, several heads in one string separated by spaces (or the option
given several times). A head without a list of dependents takes -outvars, else every
differentiable output of the procedure; without a list of independents it takes -vars, else
every differentiable input (from in-out analysis).

A head variable is a formal argument, the function result, or a global (module variable,
COMMON member, C global) that the procedure or one of its callees reads or writes."""
from __future__ import annotations

import re
from dataclasses import dataclass

from .analyses.common import visible_zones
from .engine.callgraph import callees
from .engine.errors import SourceError
from .engine.il import EXPRESSION_OPS, Node, walk, walk_statements

COMMAND_LINE = "<command line>"
_HEAD = re.compile(r"\s*([A-Za-z_]\w*)\s*(?:\(([^()]*)\))?\s*(?:/\s*\(([^()]*)\))?\s*")
_NAME_SEPARATORS = re.compile(r"[\s,]+")


@dataclass(frozen=True)
class HeadSpec:
    procedure: str
    dependents: tuple | None     # None: every differentiable output
    independents: tuple | None   # None: every differentiable input


def split_names(text: str) -> tuple:
    """Names of a list: "a b", "a,b" and "a, b" are the same list."""
    return tuple(n for n in _NAME_SEPARATORS.split(text) if n)


def parse_heads(text, vars: str | None = None, outvars: str | None = None) -> list[HeadSpec]:
    """The heads of one -head string, or of several (a list: the option given several times).
    `vars` / `outvars` (-vars, -outvars) fill the lists a head leaves out."""
    texts = [text] if isinstance(text, str) else list(text)
    dependents = None if outvars is None else split_names(outvars)
    independents = None if vars is None else split_names(vars)
    heads = []
    for one in texts:
        heads.extend(_parse_head_string(one, dependents, independents))
    if not heads:
        raise SourceError("-head: no procedure given", COMMAND_LINE)
    return heads


def _parse_head_string(text: str, default_dependents, default_independents) -> list[HeadSpec]:
    heads, pos = [], 0
    text = text.strip()
    while pos < len(text):
        m = _HEAD.match(text, pos)
        if not m or m.end() == pos:
            raise SourceError(f"-head: cannot read {text[pos:]!r} (expected proc(dependents)/(independents))",
                              COMMAND_LINE)
        deps, indeps = (None if g is None else split_names(g) for g in m.groups()[1:])
        heads.append(HeadSpec(m.group(1), default_dependents if deps is None else deps,
                              default_independents if indeps is None else indeps))
        pos = m.end()
    return heads


def resolve_heads(program, specs: list[HeadSpec], inout=None, warnings: list | None = None) -> dict:
    """procedure name -> (independent zones, dependent zones) as bitsets. Warnings for the .msg
    file ("file:line: ...") are appended to `warnings` when given."""
    heads = {}
    for spec in specs:
        proc = _find_procedure(program, spec.procedure)
        if proc.name in heads:
            raise SourceError(f"-head: procedure {spec.procedure} is given twice", COMMAND_LINE)
        visible = visible_zones(proc)
        if inout is None:
            from .analyses.inout import in_out
            inout = in_out(program)
        outputs, inputs = inout.may_written(proc) & visible, inout.read(proc) & visible
        deps = _zones_of(program, proc, spec.dependents, "dependent", visible, inputs | outputs) \
            if spec.dependents is not None else outputs
        indeps = _zones_of(program, proc, spec.independents, "independent", visible, inputs | outputs,
                           warnings) if spec.independents is not None else inputs
        mask = proc.zones.differentiable_mask
        heads[proc.name] = (indeps & mask, deps & mask)
    return heads


def _find_procedure(program, name):
    """C names are case-sensitive, Fortran names are kept in lower case (the files of one run
    may mix the two languages)."""
    for key in (name, name.lower()):
        try:
            proc = program.procedure(key)
        except KeyError:
            continue
        if key == name or proc.lang == "fortran":
            return proc
    known = ", ".join(sorted(p.source_name for p in program.procedures.values()))
    raise SourceError(f"-head: no procedure named {name!r} (procedures: {known})", COMMAND_LINE)


def _zones_of(program, proc, names, role, visible: int, used: int, warnings: list | None = None) -> int:
    """Zones of the named head variables: arguments, result or globals that the procedure
    reads or writes, itself or through its callees. An independent that only inquiry functions
    name (size(x), lbound(x, 1)) is kept with a warning, as Tapenade: its derivative is zero."""
    zones = proc.zones
    out = 0
    for name in names:
        key = name if proc.lang == "c" else name.lower()
        if key == proc.source_name and zones.result_zones:
            found = zones.result_zones
        else:
            found = zones.var_zones(key) & visible or _callee_global(program, proc, key)
            if proc.lang == "c" and not found & zones.differentiable_mask:
                found |= _pointees(zones, key)  # a C pointer argument: what it points to
        if not found:
            raise SourceError(f"-head: {role} {name!r} is not an argument, result or global variable of "
                              f"{proc.source_name}", COMMAND_LINE)
        inquiry = None if found & used or role != "independent" else _first_mention(proc, key)
        if inquiry is not None:
            if warnings is not None:
                warnings.append(f"{program.filenames.get(proc.name, '<input>')}:{inquiry.line}: independent {name} "
                                f"of {proc.source_name} is only inquired about (size, bounds, presence): "
                                f"its derivative is zero")
        elif not found & used:
            raise SourceError(f"-head: {role} {name!r} is neither read nor written by {proc.source_name}",
                              COMMAND_LINE)
        out |= found
    return out


def _first_mention(proc, key: str):
    """The first statement whose own expressions name variable `key` (None if none does)."""
    for stmt in walk_statements(proc.node.body):
        own = [k for k in stmt.kids if not isinstance(k, Node) or k.op in EXPRESSION_OPS]
        if any(n.op == "ident" and n.kids[0] == key for n in walk(tuple(own))):
            return stmt
    return None


def _pointees(zones, key: str) -> int:
    """The zones a C pointer variable points to (named *key, **key, ..., key->f for a struct)."""
    out = 0
    for z in zones.zones:
        if (z.name.lstrip("*") == key and z.name.startswith("*")) or z.name.startswith(key + "->"):
            out |= 1 << z.index
    return out


def _callee_global(program, proc, key: str) -> int:
    """The global zones that `key` names in the procedures `proc` calls, directly or not
    (a COMMON member or module variable the head itself never mentions); 0 if none. A host's
    variables shared with its internal procedures are not globals here."""
    program_globals = proc.zones.globals_mask
    for p in program.procedures.values():
        program_globals &= ~p.zones.host_shared
    meanings = {}
    for callee in callees(program.callgraph, proc.name):
        found = program.procedures[callee].zones.var_zones(key) & program_globals
        if found:
            meanings.setdefault(found, callee)
    if len(meanings) > 1:
        where = ", ".join(sorted(meanings.values()))
        raise SourceError(f"-head: {key!r} names different global variables in {where}", COMMAND_LINE)
    return next(iter(meanings), 0)
