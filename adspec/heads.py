"""The -head option: "proc(dependents)/(independents)", several heads separated by spaces,
as in Tapenade. Without lists, the dependents are the differentiable outputs of the procedure
and the independents its differentiable inputs (from in-out analysis)."""
from __future__ import annotations

import re
from dataclasses import dataclass

from .analyses.common import visible_zones
from .engine.errors import SourceError

_HEAD = re.compile(r"\s*([A-Za-z_]\w*)\s*(?:\(([^()]*)\))?\s*(?:/\s*\(([^()]*)\))?\s*")


@dataclass(frozen=True)
class HeadSpec:
    procedure: str
    dependents: tuple | None     # None: default
    independents: tuple | None


def parse_heads(text: str) -> list[HeadSpec]:
    heads, pos = [], 0
    text = text.strip()
    while pos < len(text):
        m = _HEAD.match(text, pos)
        if not m or m.end() == pos:
            raise SourceError(f"-head: cannot read {text[pos:]!r} (expected proc(dependents)/(independents))",
                              "<command line>")
        names = [None if g is None else tuple(n.strip() for n in g.split(",") if n.strip()) for g in m.groups()[1:]]
        heads.append(HeadSpec(m.group(1), names[0], names[1]))
        pos = m.end()
    if not heads:
        raise SourceError("-head: no procedure given", "<command line>")
    return heads


def resolve_heads(program, specs: list[HeadSpec], inout=None) -> dict:
    """procedure name -> (independent zones, dependent zones) as bitsets."""
    heads = {}
    for spec in specs:
        proc = _find_procedure(program, spec.procedure)
        zones = proc.zones
        visible = visible_zones(proc)
        if inout is None:
            from .analyses.inout import in_out
            inout = in_out(program)
        outputs, inputs = inout.may_written(proc) & visible, inout.read(proc) & visible
        deps = _zones_of(proc, spec.dependents, "dependent", visible, inputs | outputs) \
            if spec.dependents is not None else outputs
        indeps = _zones_of(proc, spec.independents, "independent", visible, inputs | outputs) \
            if spec.independents is not None else inputs
        mask = zones.differentiable_mask
        heads[proc.name] = (indeps & mask, deps & mask)
    return heads


def _find_procedure(program, name):
    try:
        return program.procedure(name if program.lang == "c" else name.lower())
    except KeyError:
        known = ", ".join(sorted(p.source_name for p in program.procedures.values()))
        raise SourceError(f"-head: no procedure named {name!r} (procedures: {known})", "<command line>") from None


def _zones_of(proc, names, role, visible: int, used: int) -> int:
    """Zones of the named head variables: arguments, result or globals that the procedure
    reads or writes."""
    zones = proc.zones
    out = 0
    for name in names:
        key = name if proc.lang == "c" else name.lower()
        if key == proc.source_name and zones.result_zone is not None:
            found = 1 << zones.result_zone
        else:
            found = zones.var_zones(key) & visible
        if not found:
            raise SourceError(f"-head: {role} {name!r} is not an argument, result or global variable of "
                              f"{proc.source_name}", "<command line>")
        if not found & used:
            raise SourceError(f"-head: {role} {name!r} is neither read nor written by {proc.source_name}",
                              "<command line>")
        out |= found
    return out
