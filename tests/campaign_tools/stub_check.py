"""A stand-in for adspec.oracle.check (same signature) until the oracle lands: tangent mode
only, for the campaign's programs (head(x, y, s, k)), in the IL interpreter."""
import re
from pathlib import Path

import numpy as np

import adspec
from adspec.oracle.harness import Arg, Spec, compare_rel, interp_run, make_inputs


class StubReport:
    def __init__(self, data):
        self.data = data
        self.ok = data["verdict"] == "pass"

    def to_dict(self):
        return self.data

    def text(self):
        return "\n".join(f"wrong: {p['entry']}" for p in self.data["wrong_pairs"]) + \
            "\n" + "\n".join(self.data["errors"]) + f"\nadspec check: {self.data['verdict'].upper()}"


def check(primal, head, tangent=None, adjoint=None, args=None, points=1, seed=0, workdir=None, **_):
    src = Path(primal[0])
    lang = "c" if src.suffix == ".c" else "fortran"
    deps, indeps = (m.split() for m in re.match(r"\w+\((.*)\)/\((.*)\)", head).groups())
    data = {"verdict": "pass", "wrong_pairs": [], "errors": []}
    try:
        cand = adspec.parse(Path(tangent[0]).read_text(), lang=lang)
    except Exception as e:
        data.update(verdict="fail", errors=[f"candidate does not compile: {e}"])
        return StubReport(data)
    ref = adspec.parse(adspec.differentiate(str(src), head, "tangent").text, lang=lang)
    proc = next(u for u in ref.units if u.op == "procedure" and u.name == "head_d")
    shapes = {"x": (4,), "y": (4,), "s": None}
    formals = []
    for name in proc.params:
        base = name[:-1] if name.endswith("d") and name[:-1] in shapes else name
        if base == "k":
            formals.append(Arg("k", "i4", None, False, 3))
        else:
            formals.append(Arg(name, "r8", shapes[base], lang == "c" and base == "s"))
    spec = Spec("head_d", tuple(formals))
    for x in indeps:
        inputs = make_inputs(spec, seed)
        for a in spec.args:
            if a.name.endswith("d") and a.name != x + "d":
                inputs[a.name] = np.zeros_like(inputs[a.name])
        try:
            got = interp_run(cand, spec, inputs)
        except Exception as e:
            data.update(verdict="fail", errors=[f"candidate run fails: {e}"])
            return StubReport(data)
        want = interp_run(ref, spec, inputs)
        for y in deps:
            if y + "d" in want and compare_rel({y: got[y + "d"]}, {y: want[y + "d"]}, 1e-9):
                data["wrong_pairs"].append({"dependent": y, "independent": x, "entry": f"d {y} / d {x}"})
    if data["wrong_pairs"]:
        data["verdict"] = "fail"
    return StubReport(data)
