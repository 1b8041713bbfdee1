"""One derivative procedure of the candidate compared with adspec's, entry by entry.

The reference gives the Jacobian's columns (adspec's tangent with xdot = e_j); a tangent
candidate gives columns too, an adjoint candidate rows (ybar = e_i). Where the Jacobian is too
large (more than MAX_SIDE entries on a side) only random directions are compared: the tangent
along one direction, the adjoint by the dot-product test.

What an entry of an adjoint candidate's row means depends on its contract: an independent's
adjoint claimed `out` is passed holding GARBAGE (a candidate that accumulates shows up as wrong
pairs); one claimed `incr` (or not claimed) is passed zeroed. A tangent candidate's dependent
derivative claimed `out` is passed holding GARBAGE likewise.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .runs import GARBAGE, Side

MAX_SIDE = 64        # the full Jacobian when both sides have at most this many entries
RTOL = 1e-8          # relative error of a wrong entry (double precision)
RTOL_SINGLE = 1e-4   # ... where single-precision reals take part
ATOL_SCALE = 1e-12   # ... above this fraction of the Jacobian's largest entry (x 1e4 in single)


def relative_error(c: float, r: float) -> float:
    if c == r:
        return 0.0
    if not (np.isfinite(c) and np.isfinite(r)):
        return float("inf")
    return abs(c - r) / max(abs(c), abs(r))


def is_wrong(c: float, r: float, scale: float, rtol: float = RTOL) -> bool:
    if not (np.isfinite(c) and np.isfinite(r)):
        return not (c == r)
    return abs(c - r) > rtol * max(abs(c), abs(r)) + ATOL_SCALE * (rtol / RTOL) * scale


@dataclass
class Comparison:
    cand: Side
    ref: Side
    dependents: tuple        # head variables (formals, or the function's result name)
    independents: tuple
    label: str               # prefix of the driver tags of its calls
    claims: dict = field(default_factory=dict)   # the candidate header's RW statuses
    callee: bool = False     # checked alone, out of the head's context (see _context_columns)
    single: bool = False     # single-precision reals take part (looser tolerances)

    def __post_init__(self):
        self.mode = self.cand.dp.mode
        self.dependents = tuple(v for v in self.dependents if self.cand.has(v) or self.ref.has(v))
        self.independents = tuple(v for v in self.independents if self.cand.has(v) or self.ref.has(v))
        self.rows = [(v, k) for v in self.dependents for k in range(self.cand.size(v))]
        self.cols = [(v, k) for v in self.independents for k in range(self.cand.size(v))]
        self.full = 0 < len(self.rows) <= MAX_SIDE and 0 < len(self.cols) <= MAX_SIDE
        self.calls_by_point: dict = {}
        self.assumed_passive: set = set()   # callee inputs the candidate takes as not varying
        self.nonfinite_reference: set = set()   # points where adspec's derivative is not finite
        single = self.single or any(a.type == "r4" for a in self.cand.layout.args) \
            or self.cand.dp.primal.result_type == "r4"
        self.rtol = RTOL_SINGLE if single else RTOL

    # --- the calls ------------------------------------------------------------------------------
    def _unit(self, entries, at) -> dict:
        out = {}
        for v in dict.fromkeys(v for v, _ in entries):
            out[v] = np.zeros(self.cand.size(v))
        var, k = entries[at]
        out[var][k] = 1.0
        return out

    def _buffers(self, fill_out: float) -> dict:
        """The derivative arguments that are not seeds: GARBAGE where the candidate claims `out`."""
        if self.mode == "tangent":
            plain = [v for v in self.dependents if v not in self.independents]
        else:
            plain = [v for v in self.independents if v not in self.dependents]
        return {v: np.full(self.cand.size(v), fill_out if self.claims.get(v) == "out" else 0.0) for v in plain}

    def calls(self, point: dict, p: int, rng) -> list:
        """The driver calls at one point (tags f"{label}{p}..."); remembered for compare()."""
        tag = f"{self.label}{p}"
        calls, plan = [], {"point": point}
        direction = {v: rng.uniform(-1, 1, self.cand.size(v)) for v in self.independents}
        weights = {v: rng.uniform(-1, 1, self.cand.size(v)) for v in self.dependents}
        plan["direction"], plan["weights"] = direction, weights
        calls.append(self.ref.call(point, direction, f"{tag}rr_"))
        if self.mode == "tangent":
            calls.append(self.cand.call(point, {**self._buffers(0.0), **direction}, f"{tag}cr_"))
        else:
            calls.append(self.cand.call(point, {**self._buffers(0.0), **weights}, f"{tag}cw_"))
        if self.full:
            for j in range(len(self.cols)):
                calls.append(self.ref.call(point, self._unit(self.cols, j), f"{tag}rc{j}_"))
            if self.mode == "tangent":
                for j in range(len(self.cols)):
                    calls.append(self.cand.call(point, {**self._buffers(GARBAGE), **self._unit(self.cols, j)},
                                                f"{tag}cc{j}_"))
            else:
                for i in range(len(self.rows)):
                    calls.append(self.cand.call(point, {**self._buffers(GARBAGE), **self._unit(self.rows, i)},
                                                f"{tag}ci{i}_"))
        self.calls_by_point[p] = plan
        return calls

    # --- the results ----------------------------------------------------------------------------
    def _flat(self, derivs: dict, entries) -> np.ndarray:
        return np.array([derivs[v][k] if v in derivs else 0.0 for v, k in entries])

    def compare(self, outputs: dict) -> dict:
        """outputs: tag -> the call's outputs. Returns {"wrong_pairs", "max_relative_error",
        "entries", "dot_product", "directional": {p: (candidate ydot, reference ydot)}}."""
        wrong, worst, entries, dots, directional = [], 0.0, 0, [], {}
        for p, plan in self.calls_by_point.items():
            tag = f"{self.label}{p}"
            ref_dir = self.ref.derivatives(outputs[f"{tag}rr_"])
            if self.mode == "tangent":
                cand_dir = self.cand.derivatives(outputs[f"{tag}cr_"])
                directional[p] = (cand_dir, ref_dir)
            else:
                xbar = self.cand.derivatives(outputs[f"{tag}cw_"])
                a = sum(float(np.dot(plan["direction"][v], xbar.get(v, np.zeros(self.cand.size(v)))))
                        for v in self.independents)
                b = sum(float(np.dot(ref_dir.get(v, np.zeros(self.cand.size(v))), plan["weights"][v]))
                        for v in self.dependents)
                dots.append({"point": p, "adjoint_side": a, "tangent_side": b, "relative_error": relative_error(a, b)})
            if not self.full:
                if self.mode == "tangent":   # no Jacobian: each dependent entry along the direction
                    c, r = self._flat(cand_dir, self.rows), self._flat(ref_dir, self.rows)
                    scale = float(np.max(np.abs(r), initial=0.0))
                    for i, (cv, rv) in enumerate(zip(c, r)):
                        entries += 1
                        worst = max(worst, relative_error(cv, rv))
                        if not np.isfinite(rv):
                            self.nonfinite_reference.add(p)
                        elif is_wrong(cv, rv, scale, self.rtol):
                            wrong.append(self._pair(i, None, cv, rv, p))
                continue
            ref_cols = [self._flat(self.ref.derivatives(outputs[f"{tag}rc{j}_"]), self.rows) for j in range(len(self.cols))]
            jref = np.array(ref_cols).T   # rows x cols
            if self.mode == "tangent":
                jcand = np.array([self._flat(self.cand.derivatives(outputs[f"{tag}cc{j}_"]), self.rows)
                                  for j in range(len(self.cols))]).T
            else:
                jcand = np.array([self._flat(self.cand.derivatives(outputs[f"{tag}ci{i}_"]), self.cols)
                                  for i in range(len(self.rows))])
            scale = float(np.max(np.abs(jref), initial=0.0))
            skipped = self._context_columns(jcand, jref) if self.callee else set()
            for i in range(len(self.rows)):
                for j in range(len(self.cols)):
                    if j in skipped:
                        continue
                    cv, rv = float(jcand[i, j]), float(jref[i, j])
                    entries += 1
                    worst = max(worst, relative_error(cv, rv))
                    if not np.isfinite(rv):
                        self.nonfinite_reference.add(p)
                    elif is_wrong(cv, rv, scale, self.rtol):
                        wrong.append(self._pair(i, j, cv, rv, p))
        dot = None
        if dots:
            err = max(d["relative_error"] for d in dots)
            dot = {"relative_error": err, "ok": err <= self.rtol, "points": dots}
            if not self.full:
                entries += len(dots)
        return {"wrong_pairs": wrong, "max_relative_error": worst, "entries": entries, "dot_product": dot,
                "directional": directional}

    def _context_columns(self, jcand, jref) -> set:
        """The columns of in-out formals whose incoming derivative the candidate ignores wholly
        (its columns all zero, adspec's not). Tools specialise a callee's derivative to its
        calling context: where the caller's derivative of such a formal is zero on entry, the
        callee need not read it. Such a callee is right in its context, so these columns are
        not compared (and said so)."""
        skipped = set()
        for var in self.independents:
            if var not in self.dependents:
                continue
            cols = [j for j, (v, _) in enumerate(self.cols) if v == var]
            if not np.any(jcand[:, cols]) and np.any(jref[:, cols]):
                skipped.update(cols)
                self.assumed_passive.add(var)
        return skipped

    def _pair(self, i, j, cv, rv, p) -> dict:
        dep, dk = self.rows[i]
        dep_index = self._index(dep, dk)
        if j is None:
            ind, ind_index, ind_text = "*", [], "(random direction)"
        else:
            ind, ik = self.cols[j]
            ind_index = self._index(ind, ik)
            ind_text = self._show(ind, ind_index)
        return {"dependent": dep, "dependent_index": dep_index, "independent": ind, "independent_index": ind_index,
                "entry": f"d {self._show(dep, dep_index)} / d {ind_text}", "candidate": cv, "reference": rv,
                "relative_error": relative_error(cv, rv), "point": p, "procedure": self.cand.dp.primal.name}

    def _index(self, var, k) -> list:
        if var == self.cand.result_name:
            return []
        return self.cand.layout.index(var, k)

    def _show(self, var, index) -> str:
        return element_name(var, index, self.cand.dp.procedure.lang)


def element_name(var: str, index: list, lang: str) -> str:
    """An element as the source language writes it: `x(2,1)` (Fortran), `x[1][0]` (C), `s->q[1]`
    (a C struct's field), `x` (a scalar)."""
    if not index:
        return var
    if isinstance(index[0], str):   # a struct's field
        return f"{var}->{index[0]}" + "".join(f"[{i}]" for i in index[1:])
    if lang == "fortran":
        return f"{var}({','.join(map(str, index))})"
    return var + "".join(f"[{i}]" for i in index)
