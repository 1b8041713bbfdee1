"""Snapshots of checkpointed calls (paper 5.4 and 4.10): SNP, the variables to store before
the call and restore before its adjoint C̄ runs, and SBK, those to restore after C̄.

Reconstruction (docs/reconstructions.md): the extracted paper gives
SNP = out(C) ∩ (TBR⁻(C) ∪ Diff-live⁻(C)) and SBK = ∅, and says that adjoint-out analysis is
one ingredient of the snapshot. A variable that C does not write but that the sequel D→; D←
leaves modified (Adj-out⁺(C)) must be restored too, or C̄ would rerun C on a wrong value; so:

    SNP = (out(C) ∪ Adj-out⁺(C)) ∩ (TBR⁻(C) ∪ Diff-live⁻(C))        SBK = ∅

Every call to a procedure of the source is checkpointed unless a `$AD NOCHECKPOINT` directive
is attached to it (or to the procedure's header), or checkpointing is off everywhere
(`-nocheckpoint`).
"""
from __future__ import annotations

from dataclasses import dataclass



@dataclass(frozen=True)
class Snapshot:
    snp: int
    sbk: int


def is_checkpointed(site) -> bool:
    own = site.instr.node.ann.get("directives", ()) if site.instr.node is not None else ()
    callee = site.callee.node.ann.get("directives", ())
    return "NOCHECKPOINT" not in own and "NOCHECKPOINT" not in callee


def snapshots(program, diff_live, tbr_solution, adj_out_solution, everywhere: bool = True) -> dict:
    """id(call Instr) -> Snapshot, for every checkpointed call site (none when not `everywhere`)."""
    out = {}
    for site in program.call_sites.values():
        if not everywhere or not is_checkpointed(site):
            continue
        proc, instr = site.caller, site.instr
        modified = diff_live.out(proc, instr) | adj_out_solution[proc.name].after(instr)
        needed = tbr_solution[proc.name].before(instr) | diff_live.before(proc, instr)
        out[id(instr)] = Snapshot(modified & needed, 0)
    return out
