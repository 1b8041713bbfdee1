"""Adjoint rules for C pointers and C memory (paper 4.2: a pointer that may point to active
memory has an adjoint pointer pointing to the adjoints, `*pb` the adjoint of `*p`; 5.4: a value
overwritten that the backward sweep needs is pushed, here with Tapenade's pushPointer8).

- `&R` has the adjoint address `&Rb` (an array passed at an offset, `&a[3]` → `&ab[3]`).
- A pointer assignment `p = E` moves pb alongside in the forward sweep (`pb = Eb`); where the
  backward sweep needs the old value of p (p ∈ RVARS: an active `*p` read before by a
  derivative instruction, whose address the adjoint instruction recomputes), p and pb are
  pushed before and popped after.
- malloc: the adjoint block is allocated with the primal one in the forward sweep, zeroed
  whole (calloc); both are freed in the backward sweep, at the mirror of the allocation. The
  primal `free` of the forward sweep is that one, moved: the backward sweep may read the
  block's values (the partials) and increments its adjoint until there.
- free of a block that may come from elsewhere (a caller's, a helper's: mat_free(m) of what
  mat_alloc(m) allocated): the forward sweep keeps it and pushes the two pointers, the
  backward sweep pops them back at the point of the free; the allocation's mirror, in this
  procedure or another, frees both (A-free-kept). Passive memory a helper allocated waits
  for the end of P_b (A-free-deferred).
"""
from __future__ import annotations

from ...engine.kanren_il import eq, lall, member, pattern, var
from .ruleset import ADJOINT

EMPTY = pattern("block")
SAVED = ("assign", "allocate")  # the statements that move a pointer


@ADJOINT.rule("A-ref-address", judgment="ref", ops=("address",), section="4.2",
              source="reconstructed: docs/rules.md#a-pointer",
              premises=("REF →ref REFb",), conclusion="&REF  →ref  &REFb")
def a_ref_address(ref, out, ctx):
    """The address of a part of an active variable has the adjoint address of the same part
    of its adjoint (association by name): `&a[3]` → `&ab[3]`, `&s->x` → `&sb->x`."""
    base, base_b = var(), var()
    guard = eq(ref, pattern("address", base))
    return guard, lall(ctx.derive("ref", base, base_b), eq(out, pattern("address", base_b)))


@ADJOINT.rule("A-assign-pointer", judgment="adjoint", ops=("assign",), section="4.2",
              source="reconstructed: docs/rules.md#a-pointer",
              premises=("isDiffPointer(P)", "isLiveForDiff(P = E)", "P = E →savePointer [SAVE ; RESTORE]",
                        "P →ref Pb", "E →pointerValue Eb"),
              conclusion="P = E  →  [SAVE; Pb = Eb; P = E ; RESTORE]")
def a_assign_pointer(stmt, out, ctx):
    """Reconstructed from 4.2 and the RVARS of 5.4. The paper's adjoint rules take no
    pointer; 4.2 makes the adjoint of what p points to `*pb`, so pb must point where p
    points in both sweeps. The forward sweep moves pb with p (the tangent's T-assign-pointer,
    `pb = pb + 1` for `p++`). A pointer assignment is an assignment whose lhs p is in
    RVARS when an earlier derivative instruction reads through p (TBR counts the addresses
    of the active references): the backward sweep needs the old p there, and the old pb,
    which is read exactly where p is. Both are pushed (pushPointer8, Tapenade's) and popped."""
    lhs, rhs, lhs_b, rhs_b, save, restore = (var() for _ in range(6))
    guard = lall(eq(stmt, pattern("assign", lhs, rhs)), ctx.check(ctx.derivative_pointer_assignment, stmt),
                 ctx.fact("is_live_for_diff", stmt))
    body = lall(ctx.derive("savePointer", stmt, pattern("block", save, restore)), ctx.derive("ref", lhs, lhs_b),
                ctx.compute(ctx.pointer_adjoint, rhs, stmt, rhs_b),
                eq(out, pattern("block", pattern("block", save, pattern("assign", lhs_b, rhs_b), stmt), restore)))
    return guard, body


@ADJOINT.rule("A-assign-pointer-dead", judgment="adjoint", ops=("assign",), section="4.9",
              source="reconstructed: docs/rules.md#a-pointer",
              premises=("isDiffPointer(P)", "¬isLiveForDiff(P = E)"), conclusion="P = E  →  [{} ; {}]")
def a_assign_pointer_dead(stmt, out, ctx):
    """No derivative instruction reads through p from here: slicing drops the move."""
    guard = lall(eq(stmt, pattern("assign", var(), var())), ctx.check(ctx.derivative_pointer_assignment, stmt),
                 ctx.no_fact("is_live_for_diff", stmt))
    return guard, eq(out, pattern("block", EMPTY, EMPTY))


@ADJOINT.rule("A-save-pointer", judgment="savePointer", ops=SAVED, section="5.4",
              source="reconstructed: docs/rules.md#a-pointer",
              premises=("pointerRestored(P)", "P →restore RVARS ≠ ∅"),
              conclusion="P = E  →savePointer  [push(P); push(Pb) ; pop(Pb); pop(P)]   (Pb: when P has one)")
def a_save_pointer(stmt, out, ctx):
    """RVARS = {p, pb}: p and its adjoint pointer are saved together, pb being used exactly
    where p is (in the adjoint of each active `*p`)."""
    op = var()
    guard = lall(eq(stmt, pattern(op, rest=var())), member(op, SAVED), ctx.check(ctx.pointer_restored, stmt))
    return guard, ctx.compute(ctx.pointer_saves, stmt, out)


@ADJOINT.rule("A-save-pointer-none", judgment="savePointer", ops=SAVED, section="5.4",
              source="reconstructed: docs/rules.md#a-pointer",
              premises=("¬pointerRestored(P)",), conclusion="P = E  →savePointer  [{} ; {}]")
def a_save_pointer_none(stmt, out, ctx):
    """No derivative instruction before reads through the old p, and an allocation runs
    once: nothing to save (TBR)."""
    op = var()
    guard = lall(eq(stmt, pattern(op, rest=var())), member(op, SAVED), ctx.check(ctx.pointer_not_restored, stmt))
    return guard, eq(out, pattern("block", EMPTY, EMPTY))


@ADJOINT.rule("A-malloc-diff", judgment="adjoint", ops=("allocate",), section="4.2",
              source="reconstructed: docs/rules.md#a-malloc",
              premises=("cMemory(P)", "isDiff(P)", "P = malloc(..) →savePointer [SAVE ; RESTORE]", "P →ref Pb"),
              conclusion="P = malloc(N)  →  [SAVE; P = malloc(N); Pb = calloc(N) ; free(Pb); free(P); RESTORE]")
def a_malloc_diff(stmt, out, ctx):
    """Reconstructed (4.2, 4.10): the adjoint block is allocated with the primal one in the
    forward sweep and zeroed whole, the backward sweep incrementing it (the tangent's
    T-allocation-diff makes its block the same way). The backward sweep mirrors the forward
    one: the mirror of the allocation, its last point, frees both blocks; so the primal
    block stays readable for the partials until there. An allocation that may run twice (in
    a loop, or one of several of the same pointer) saves the pointers it overwrites, so that
    each block is freed once."""
    target, target_b, dims, typ, save, restore, allocation_b = (var() for _ in range(7))
    guard = lall(eq(stmt, pattern("allocate", target, dims, typ)), ctx.check(ctx.c_memory, stmt),
                 ctx.fact("has_derivative", target, stmt))
    body = lall(ctx.derive("savePointer", stmt, pattern("block", save, restore)), ctx.derive("ref", target, target_b),
                ctx.compute(ctx.zeroed_allocation, stmt, target_b, allocation_b),
                eq(out, pattern("block", pattern("block", save, stmt, allocation_b),
                                pattern("block", pattern("deallocate", target_b), pattern("deallocate", target),
                                        restore))))
    return guard, body


@ADJOINT.rule("A-malloc", judgment="adjoint", ops=("allocate",), section="4.2",
              source="reconstructed: docs/rules.md#a-malloc",
              premises=("cMemory(P)", "¬isDiff(P)", "P = malloc(..) →savePointer [SAVE ; RESTORE]"),
              conclusion="P = malloc(N)  →  [SAVE; P = malloc(N) ; free(P); RESTORE]")
def a_malloc(stmt, out, ctx):
    """A passive block lives until the backward sweep too: the partials may read it."""
    target, save, restore = var(), var(), var()
    guard = lall(eq(stmt, pattern("allocate", target, var(), var())), ctx.check(ctx.c_memory, stmt),
                 ctx.no_fact("has_derivative", target, stmt))
    body = lall(ctx.derive("savePointer", stmt, pattern("block", save, restore)),
                eq(out, pattern("block", pattern("block", save, stmt),
                                pattern("block", pattern("deallocate", target), restore))))
    return guard, body


@ADJOINT.rule("A-free", judgment="adjoint", ops=("deallocate",), section="4.2",
              source="reconstructed: docs/rules.md#a-malloc",
              premises=("cMemory(P)  (P = malloc(..) in this procedure)",), conclusion="free(P)  →  [{} ; {}]")
def a_free(stmt, out, ctx):
    """The free happens in the backward sweep, at the mirror of the allocation (A-malloc):
    freeing in the forward sweep would leave the backward sweep reading freed memory, as the
    partials read the block's values and the adjoint block is incremented. A free of memory
    the function may not have allocated is A-free-kept's or A-free-deferred's."""
    guard = lall(eq(stmt, pattern("deallocate", var())), ctx.check(ctx.c_memory, stmt))
    return guard, eq(out, pattern("block", EMPTY, EMPTY))


@ADJOINT.rule("A-free-deferred", judgment="adjoint", ops=("deallocate",), section="4.2",
              source="reconstructed: docs/rules.md#a-malloc",
              premises=("deferredFree(P)  (passive memory not allocated here, freed once)",),
              conclusion="free(P)  →  [V = P ; {}]   (free(V) at the end of P_b)")
def a_free_deferred(stmt, out, ctx):
    """Memory a helper allocated, freed here: the mirror of its allocation is in no sweep
    of this procedure, and the backward sweep may still read the block (indices in it).
    The forward sweep keeps the block and its address; P_b frees it as it ends, after the
    last read. Memory with an adjoint is A-free-kept's."""
    guard = lall(eq(stmt, pattern("deallocate", var())), ctx.check(ctx.deferred_free, stmt))
    return guard, ctx.compute(ctx.kept_free, stmt, out)


@ADJOINT.rule("A-free-kept", judgment="adjoint", ops=("deallocate",), section="4.2",
              source="reconstructed: docs/rules.md#a-malloc",
              premises=("freedElsewhere(P)  (a block with an adjoint, perhaps allocated by a caller or a helper)",
                        "P →ref Pb"),
              conclusion="free(P)  →  [push(P); push(Pb) ; pop(Pb); pop(P)]")
def a_free_kept(stmt, out, ctx):
    """The block may come from elsewhere (mat_free(m) frees what mat_alloc(m) allocated):
    the backward sweep reads it (the partials) and increments its adjoint from this point
    back to the backward point of its allocation, which frees both (A-malloc-diff), in
    this procedure's sweeps or a caller's. So the forward sweep frees nothing and keeps the
    two pointers; the backward sweep puts them back at the point of the free, for what runs
    before it backward. The procedure is called split (analyses/snapshots.py): a
    checkpoint's plain call would free the block in the forward sweep."""
    target, target_b = var(), var()
    guard = lall(eq(stmt, pattern("deallocate", target)), ctx.check(ctx.freed_elsewhere, stmt))
    body = lall(ctx.derive("ref", target, target_b), ctx.compute(ctx.kept_block, stmt, out))
    return guard, body
