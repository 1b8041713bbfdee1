"""Snapshots of checkpointed calls (paper 5.4 and 4.10): SNP, the variables to store before
the call and restore before its adjoint C̄ runs, and SBK, those to restore after C̄.

Reconstruction (docs/reconstructions.md): the extracted paper gives
SNP = out(C) ∩ (TBR⁻(C) ∪ Diff-live⁻(C)) and SBK = ∅, and says that adjoint-out analysis is
one ingredient of the snapshot. A variable that C does not write but that the sequel D→; D←
leaves modified (Adj-out⁺(C)) must be restored too, or C̄ would rerun C on a wrong value; so:

    SNP = (out(C) ∪ Adj-out⁺(C)) ∩ (TBR⁻(C) ∪ Diff-live⁻(C))        SBK = ∅

A call statement that is not diff-live is not run by the forward sweep (5.4's simplification
for joint calls that are not diff-live): out(C) drops out of the first term, and a value C
only reads between the push and the restore is not saved at all.

Every call to a procedure of the source is checkpointed unless a `$AD NOCHECKPOINT` directive
is attached to it (or to the procedure's header), or checkpointing is off everywhere
(`-nocheckpoint`), or the callee allocates or frees memory through what the call passes
(C's mat_alloc(&m): its sweeps manage the adjoint memory, see is_checkpointed).
"""
from __future__ import annotations

from dataclasses import dataclass

from .allocators import allocating_formals



@dataclass(frozen=True)
class Snapshot:
    snp: int
    sbk: int


def is_checkpointed(site, allocating: dict) -> bool:
    """The call is checkpointed: no $AD NOCHECKPOINT, and the callee does not allocate nor
    free the memory of what the call passes (mat_alloc(&m), allocating: analyses/allocators.py).
    Such a call is split: its forward sweep must allocate the adjoint block with the primal
    one, and keep the blocks it frees for the backward sweep, which the plain call run by a
    checkpoint's forward sweep does not."""
    own = site.instr.node.ann.get("directives", ()) if site.instr.node is not None else ()
    callee = site.callee.node.ann.get("directives", ())
    moves_memory = any(pos in allocating.get(site.callee.name, ()) for pos, _ in site.pairs)
    return "NOCHECKPOINT" not in own and "NOCHECKPOINT" not in callee and not moves_memory


def only_checkpointed(program, heads) -> frozenset:
    """The procedures that are no head and that only checkpointed calls reach (the
    CKPdataFlow re-analysis of 5.4 applies to their P_b: analyses/diffliveness.py)."""
    sites, allocating = {}, allocating_formals(program)
    for site in program.call_sites.values():
        sites.setdefault(site.callee.name, []).append(site)
    return frozenset(name for name, calls in sites.items()
                     if name not in heads and all(is_checkpointed(s, allocating) for s in calls))


def split_functions(program, checkpoint: bool = True) -> frozenset:
    """The functions (with a value) that a call not checkpointed reaches: their P_fwd returns
    the value (checkpoint=False: -nocheckpoint, every call)."""
    allocating = allocating_formals(program)
    return frozenset(site.callee.name for site in program.call_sites.values()
                     if site.callee.node.kids[1] == "function" and site.callee.zones.result_zones
                     and not (checkpoint and is_checkpointed(site, allocating)))


def snapshots(program, diff_live, tbr_solution, adj_out_solution, everywhere: bool = True) -> dict:
    """id(call Instr) -> Snapshot, for every checkpointed call site (none when not `everywhere`)."""
    out, allocating = {}, allocating_formals(program)
    for site in program.call_sites.values():
        if not everywhere or not is_checkpointed(site, allocating):
            continue
        proc, instr = site.caller, site.instr
        modified = adj_out_solution[proc.name].after(instr)
        if not _dropped(site, proc, diff_live):  # the forward sweep runs C: what C writes changes too
            modified |= diff_live.out(proc, instr)
        needed = tbr_solution[proc.name].before(instr) | diff_live.before(proc, instr)
        out[id(instr)] = Snapshot(modified & needed, 0)
    return out


def _dropped(site, proc, diff_live) -> bool:
    """A call statement that is not diff-live: the forward sweep does not run it (5.4's
    simplification, A-call-joint-dead), so only what the sequel's sweeps change is restored."""
    node = site.instr.node
    return node is not None and node.op == "call" and node.ann.get("sid") is not None \
        and not diff_live.is_live_for_diff(proc, site.instr)
