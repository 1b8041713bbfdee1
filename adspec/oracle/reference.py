"""adspec's own derivatives, the reference a candidate is compared with; complex step.

The reference is adspec's tangent of the head (and of the procedures the bottom-up check
takes alone, as more heads of the same differentiation). Its procedures and modules are
renamed `adspec_ref_...` so that it links into one program with the candidate, which uses
Tapenade's names too.
"""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

import numpy as np

from .harness import TYPES
from .points import Layout
from .prototype import Procedure, procedures_of

PREFIX = "adspec_ref_"


@dataclass
class Reference:
    text: str            # the renamed source
    filename: str        # its file name in the work directory
    procs: dict          # primal name -> Procedure (the renamed tangent procedure)
    heads: list          # adspec's resolved HeadNames, one per head


def reference_tangent(primal_paths, heads: list, lang: str) -> Reference:
    """adspec's tangent of `heads` (head strings), renamed."""
    from adspec.pipeline import differentiate
    result = differentiate([str(p) for p in primal_paths], heads, "tangent")
    names = {v for v in result.procedure_names.values()}
    if lang == "c":   # its own derivative globals (`double gd;`): the candidate may define the same
        names |= {d.kids[0] for u in result.tree.kids if u.op == "varDecl" and "extern" not in u.kids[1]
                  for d in u.kids[2]}
    text = result.text
    if lang == "fortran":   # free form: the longer names must not cross column 72
        from adspec.backends import unparse
        text = unparse(result.tree, "fortran", form="free")
        names |= set(re.findall(r"(?im)^\s*module\s+(?!procedure\b)(\w+)\s*$", text))
    flags = re.I if lang == "fortran" else 0
    for name in sorted(names, key=len, reverse=True):
        text = re.sub(rf"\b{re.escape(name)}\b", PREFIX + name, text, flags=flags)
    ext = "f90" if lang == "fortran" else "c"
    fold = str.lower if lang == "fortran" else (lambda s: s)
    derived = procedures_of(result.tree, "<adspec's tangent>")
    procs = {}
    for primal, diff in result.procedure_names.items():
        proc = derived.get(fold(diff))
        if proc is not None:
            module = proc.module and (PREFIX + proc.module if proc.module in names else proc.module)
            procs[fold(primal)] = dataclasses.replace(proc, name=PREFIX + proc.name, module=module)
    return Reference(text, f"{PREFIX}tangent.{ext}", procs, result.heads)


class ComplexStepInvalid(Exception):
    """Complex step cannot be used here (the reason)."""


def complex_step(primal_trees, lay: Layout, point: dict, direction: dict, dependents, result_name) -> dict:
    """imag(P(x + i h d)) / h for each dependent (flat), P run in adspec's IL interpreter.
    ComplexStepInvalid where it does not apply (a kink, complex or unsupported code)."""
    from adspec.engine.il import mk
    from adspec.engine.interp import Interpreter, InterpError
    from adspec.engine.interp_complex_step import NonSmoothPoint
    lang = lay.proc.lang
    tree = mk("file", *(k for t in primal_trees for k in t.kids), lang=lang, form=primal_trees[0].ann.get("form"),
              filename=primal_trees[0].ann.get("filename"))
    actuals, passed = {}, {}
    for a in lay.args:
        value = np.array(point[a.name], copy=True)
        if a.type in ("r4", "r8"):
            value = complex_perturbed(value, direction.get(a.name))
        else:
            value = value.astype(TYPES[a.type][0])
        if lay.fields and a.name in lay.fields:
            actuals[a.name] = value
            passed[a.name] = _struct_pointer(value, lay.fields[a.name])
            continue
        if lang == "c" and a.by_value:
            actuals[a.name] = value[()]
        elif lang == "c" and a.pointer:
            actuals[a.name] = value.reshape(1)
        else:
            actuals[a.name] = value
    try:
        returned = Interpreter(tree, complex_step=True).call(lay.proc.name,
                                                             [passed.get(a.name, actuals[a.name]) for a in lay.args])
    except (NonSmoothPoint, InterpError) as e:
        raise ComplexStepInvalid(str(e)) from None
    except Exception as e:   # the interpreter does not run this code: no complex step, said so
        raise ComplexStepInvalid(f"the interpreter cannot run {lay.proc.name}: {type(e).__name__}: {e}") from None
    out = {}
    for name in dependents:
        value = returned if name == result_name else actuals[name]
        out[name] = complex_step_derivative(value).reshape(-1)
    return out


def complex_perturbed(value, direction=None) -> np.ndarray:
    """x + i h d as a complex array (h: the interpreter's complex step; no d: x as complex)."""
    from adspec.engine.interp_complex_step import STEP
    value = np.array(value, dtype=np.complex128)
    if direction is None:
        return value
    return np.array(value + 1j * STEP * np.asarray(direction).reshape(value.shape))   # 0-d stays an array


def complex_step_derivative(value) -> np.ndarray:
    """imag(P(x + i h d)) / h: the derivative along d of a value computed from complex_perturbed inputs."""
    from adspec.engine.interp_complex_step import STEP
    return np.imag(np.asarray(value, dtype=np.complex128)) / STEP


def _struct_pointer(value, fields):
    """A pointer to a C struct record whose fields are views of the flat array `value`."""
    from adspec.engine.interp import CArr, Ptr, Record
    record = {}
    for field, offset, count in fields:
        record[field] = CArr(value, offset, (count,)) if count > 1 else value[offset:offset + 1].reshape(())
    return Ptr(np.array([Record("struct", record)], dtype=object), 0)
