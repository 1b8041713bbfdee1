"""The candidate's contract, observed: what it does with each derivative argument and with its inputs.

Runs at the same point and seeds differ only in what the non-seed derivative arguments hold on
entry: zeros (the comparison's run `cr_` / `cw_`), or random garbage G in one of them (a probe
`cgK_` per argument).
- an adjoint's independent `xb` (not a dependent): X(G) - X(0) = G -> `incr`; X(G) = X(0) -> `out`;
  `unclear` when the probe cannot tell: values not finite, G lost in rounding next to values huge
  beside it (garbage from an unset temporary), or neither pattern exactly (the wrong pairs say more);
- a tangent's dependent `yd` (an independent too: G replaces its seed): Y(G) = Y(0) -> `out`,
  Y(G) = G and Y(0) what it held -> `in` (passed through), else `in-out`;
- a dependent's adjoint after the call: 0 -> `in-zero`, unchanged -> `in`, else `in-out`;
- an independent's tangent after the call: unchanged -> `in`, else `in-out`.
Each is compared with the header comment's RW status, except a tangent's derivative of a variable
that is no dependent: what it holds on exit is no result, and the claim says what the primal does
to the variable. The primal inputs must be left as they were (those the primal itself does not
change), and a tangent's primal results must be the primal's.
"""
from __future__ import annotations

import numpy as np

from .compare import Comparison
from .harness import RESULT

UNCLEAR = "unclear"   # the probe could not tell (agrees: None)
# claimed status -> the observations that agree with it
AGREES = {"incr": {"incr"}, "out": {"out"}, "in-zero": {"in-zero"}, "zero": {"in-zero"}, "in": {"in"},
          "in-out": {"in", "out", "in-zero", "incr", "in-out"}}


def probe_calls(cmp: Comparison, p: int, rng) -> list:
    """One probe per probed derivative argument (_probed), garbage in it alone (garbage in two at
    once would mix what one's entry value does to the other's result), in place of its seed."""
    plan = cmp.calls_by_point[p]
    garbage = {v: rng.uniform(100.0, 200.0, cmp.cand.size(v)) for v in _probed(cmp)}
    plan["garbage"] = garbage
    seeds = plan["direction"] if cmp.mode == "tangent" else plan["weights"]
    return [cmp.cand.call(plan["point"], {**seeds, v: garbage[v]}, f"{cmp.label}{p}cg{k}_")
            for k, v in enumerate(_probed(cmp))]


def _adjoint_update(with_garbage, with_zero, garbage, tol: float) -> str:
    """`out`, `incr` or UNCLEAR: what an adjoint did to the garbage G its argument held, element
    by element; an element whose values dwarf G (G lost in rounding) tells nothing."""
    a, b, g = (np.asarray(v, dtype=np.float64).reshape(-1) for v in (with_garbage, with_zero, garbage))
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        return UNCLEAR
    scale = np.maximum(np.maximum(np.abs(a), np.abs(b)), np.abs(g))
    kept = np.abs(a - b) <= tol * scale
    added = np.abs(a - b - g) <= tol * scale
    telling = ~(kept & added)
    if not np.any(telling):
        return UNCLEAR
    if np.all(kept[telling]):
        return "out"
    if np.all(added[telling]):
        return "incr"
    return UNCLEAR


def _probed(cmp: Comparison) -> list:
    """The derivative arguments whose entry value a probe changes: a tangent's dependents, an
    adjoint's independents that are no dependents."""
    if cmp.mode == "tangent":
        return [v for v in cmp.dependents if cmp.cand.has(v)]
    return [v for v in cmp.independents if v not in cmp.dependents and cmp.cand.has(v)]


def _same(a, b, tol: float = 1e-12) -> bool:
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    scale = max(float(np.max(np.abs(a), initial=0.0)), float(np.max(np.abs(b), initial=0.0)), 1e-300)
    return bool(np.all(np.abs(a - b) <= tol * scale))


def observe(cmp: Comparison, outputs: dict, primal_outputs: dict, claims: dict, header) -> dict:
    """The contract section of the report (schema of notes/oracle-api.md)."""
    observed: dict = {}
    modified = set()
    tol = 1e-12 if cmp.rtol <= 1e-8 else 1e-6   # single-precision arguments round what is passed

    def same(a, b):
        return _same(a, b, tol)
    inputs_unchanged, primal_results = {}, {}
    for p, plan in cmp.calls_by_point.items():
        tag = f"{cmp.label}{p}"
        base = outputs[f"{tag}cr_" if cmp.mode == "tangent" else f"{tag}cw_"]
        seeds = plan["direction"] if cmp.mode == "tangent" else plan["weights"]
        d0 = cmp.cand.derivatives(base)
        for k, v in enumerate(_probed(cmp)):
            dg = cmp.cand.derivatives(outputs[f"{tag}cg{k}_"])
            if cmp.mode == "adjoint":
                seen = _adjoint_update(dg[v], d0[v], plan["garbage"][v], tol)
            elif not (np.all(np.isfinite(dg[v])) and np.all(np.isfinite(d0[v]))):
                seen = UNCLEAR
            elif same(dg[v], d0[v]):
                seen = "out"
            elif same(dg[v], plan["garbage"][v]) and same(d0[v], seeds.get(v, np.zeros_like(d0[v]))):
                seen = "in"
            else:
                seen = "in-out"
            observed.setdefault(v, set()).add(seen)
        for v, seed in seeds.items():
            if v in d0 and v not in _probed(cmp):
                if cmp.mode == "adjoint" and v in cmp.independents:
                    seen = "in-out"
                elif not np.any(d0[v]) and cmp.mode == "adjoint":
                    seen = "in-zero"
                else:
                    seen = "in" if same(d0[v], seed) else "in-out"
                observed.setdefault(v, set()).add(seen)
        primal = primal_outputs[p]
        for f in cmp.cand.dp.primal.formals:
            if f.name not in base:
                continue
            before = plan["point"][f.name]
            if np.array_equal(np.asarray(primal[f.name]), np.asarray(before)):
                inputs_unchanged[f.name] = inputs_unchanged.get(f.name, True) and bool(
                    np.array_equal(np.asarray(base[f.name]), np.asarray(before)))
            else:
                modified.add(f.name)
                if cmp.mode == "tangent":
                    primal_results[f.name] = primal_results.get(f.name, True) and same(base[f.name], primal[f.name])
        value = cmp.cand.dp.value_formal
        if cmp.mode == "tangent" and value is not None and RESULT in primal:   # a function's value
            key = cmp.cand.result_name or value
            primal_results[key] = primal_results.get(key, True) and same(base[value], primal[RESULT])
    arguments = {}
    for v, seen in observed.items():
        name = cmp.cand.dp.derivative(v) or v
        conclusive = seen - {UNCLEAR}
        if len(conclusive) == 1:
            one = conclusive.pop()
        else:
            one = UNCLEAR if cmp.mode == "adjoint" or not conclusive else "in-out"
        claimed = claims.get(v)
        compared = claimed is not None and one != UNCLEAR and (cmp.mode == "adjoint" or v in cmp.dependents)
        agrees = one in AGREES.get(claimed, {claimed}) if compared else None
        arguments[name] = {"observed": one, "claimed": claimed, "agrees": agrees}
    out = {"arguments": arguments, "inputs_unchanged": inputs_unchanged,
           "header_claims": {} if header is None else {"useful results": list(header.useful or []),
                                                        "varying inputs": list(header.varying or []),
                                                        "RW status": dict(header.statuses)}}
    if primal_results:
        out["primal_results"] = primal_results
    return out
