"""Names and bindings in the IL interpreter: which storage a name denotes in a frame.

A name is looked up in its frame's declarations, then through USE and host association, then
at C file scope; an undeclared Fortran name is typed implicitly. A variable's storage comes to
exist when first used (Fortran locals: at entry, calls.py), except a persistent one (SAVE,
PARAMETER, an initial value, DATA, C static), which is created once per scope and kept; DATA
values are given when a scope's persistent variables first exist. An absent OPTIONAL dummy
cannot be used.
"""
from __future__ import annotations

import numpy as np

from ..il import Node
from ..symbols import used_name
from . import memory
from .scope import Frame, ScopeInfo, VarSpec
from .values import InterpError, err


def scope_info(it, node: Node, host: ScopeInfo | None = None) -> ScopeInfo:
    """The ScopeInfo of a procedure, module or file node (cached)."""
    info = it._infos.get(id(node))
    if info is None:
        if host is None and node.op == "procedure" and node.name in it.proc_module:
            host = module_frame(it, it.proc_module[node.name]).info
        info = it._infos[id(node)] = ScopeInfo(node, it.lang, host)
    return info


def module_frame(it, name: str) -> Frame:
    """The one frame of module `name` (its variables persist)."""
    f = it._module_frames.get(name)
    if f is None:
        mod = it.modules.get(name)
        if mod is None:
            raise InterpError(f"USE of unknown module {name!r}")
        f = it._module_frames[name] = Frame(scope_info(it, mod), None)
        f.info.save_all = True
    return f


def host_frame(it, proc: Node, caller: Frame | None) -> Frame | None:
    """The frame whose variables `proc` sees by host association."""
    f = caller
    while f is not None:
        if proc.name in f.info.contains and f.info.contains[proc.name] is proc:
            return f
        f = f.host
    if proc.name in it.proc_module:
        return module_frame(it, it.proc_module[proc.name])
    return it.globals


def binding(it, name: str, frame: Frame | None = None, node=None):
    """The storage `name` denotes in `frame` (the running one by default), resolved once."""
    frame = frame or it.frame
    b = frame.vars.get(name)
    if b is None:
        b = resolve(it, frame, name, node)
        frame.vars[name] = b
    return b


def resolve(it, frame: Frame, name: str, node):
    """Where `name` comes from: a declaration, USE or host, an enumerator, CUDA, implicit typing."""
    info = frame.info
    if absent(frame, name):
        raise err(node, f"optional argument {name!r} is absent (not PRESENT) and cannot be used")
    if name in info.specs:
        return materialize(it, frame, info.specs[name])
    b = lookup_outer(it, frame, name)
    if b is not None:
        return b
    if name in it.enum_constants:
        return np.array(it.enum_constants[name], dtype=np.int32)
    if it.is_c:
        b = it.cuda_builtin_variable(name, node)
        if b is not None:
            return b
    if not it.is_c and info.node.op == "procedure":
        t = info.implicit_type(name)
        if t is not None:
            return materialize(it, frame, VarSpec(name, t))
    raise err(node, f"undeclared variable {name!r}")


def lookup_outer(it, frame: Frame, name: str):
    """A binding visible through USE, host association, or C file scope (None if none)."""
    f = frame
    while f is not None:
        if f is not frame and (name in f.info.specs or name in f.vars):
            return binding(it, name, f)
        for module, only, renames in f.info.uses:
            local = use_lookup(it, module, only, renames, name)
            if local is not None:
                return local
        f = f.host
    if it.globals is not None and frame is not it.globals and name in it.globals.info.specs:
        return binding(it, name, it.globals)
    return None


def use_lookup(it, module: str, only, renames: dict, name: str):
    target = used_name(only, renames, name)
    if target is None:
        return None
    mframe = module_frame(it, module)
    if target in mframe.info.specs:
        return binding(it, target, mframe)
    return lookup_outer(it, mframe, target) if mframe.info.uses else None


def materialize(it, frame: Frame, spec: VarSpec):
    """The storage of a declared variable: COMMON, new, or the saved one of a persistent variable."""
    info = frame.info
    persistent = ("save" in spec.attrs or "parameter" in spec.attrs or info.save_all
                  or "static" in spec.attrs or (spec.init is not None and not it.is_c))
    if persistent and spec.name in info.saved:
        return info.saved[spec.name]
    if spec.name in info.commons:
        b = memory.common_binding(it, frame, spec)
    else:
        b = memory.new_storage(it, spec, frame)
        if spec.init is not None:
            memory.initialize(it, b, spec, frame)
    if persistent:
        info.saved[spec.name] = b
        if info.data and not info.data_done:
            it.apply_data(frame)
    return b


def absent(frame, name) -> bool:
    """Is `name` an OPTIONAL dummy of `frame` that the call did not give?"""
    present = frame.present
    if present is None or name in present or name not in frame.info.params:
        return False
    spec = frame.info.specs.get(name)
    return spec is not None and "optional" in spec.attrs
