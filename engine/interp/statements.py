"""Statements of the IL interpreter: `exec_block` and the table STATEMENTS, IL operator -> the
function that runs it, one short function per statement kind (docs/semantics.md lists them).

A statement function takes the interpreter `it` and the node, and returns None or a control
signal (EXIT, CYCLE, RETURN, a Goto: values.py), which blocks and loops consume; a `goto`
finds its label in the current block or an enclosing one. WHERE and FORALL are in
constructs.py, kernel launches in cuda.py.
"""
from __future__ import annotations

import numpy as np

from ..il import Node
from . import calls, constructs, expressions, frames, memory, places
from . import intrinsics as ii
from .constructs import s_forall, s_where
from .intrinsic_calls import e_intrinsic
from .intrinsics import convert
from .scope import Frame, VarSpec, attr_word
from .values import (CArr, CYCLE, EXIT, FArr, Goto, InterpError, ProgramStop, Ptr, RETURN, Record, UNASSOCIATED,
                     err, render, trunc_div, truth)


def exec_block(it, block: Node):
    """Run the statements of `block` in the running frame; a `goto` to one of its labels
    continues there. Returns None or the control signal that leaves the block."""
    stmts = block.kids
    decls = it._block_decls.get(id(block))
    if decls is None:
        decls = it._block_decls[id(block)] = tuple(
            d.name for s in stmts if s.op == "varDecl" for d in s.declarators)
    if decls:
        vars_ = it.frame.vars
        shadowed = [(n, vars_.get(n)) for n in decls]
    i, n = 0, len(stmts)
    stmt = it._stmt
    sig = None
    while i < n:
        s = stmts[i]
        try:
            sig = stmt[s.op](it, s)
        except KeyError:
            if s.op in stmt:
                raise
            raise err(s, f"statement {s.op} is not supported by the interpreter") from None
        except InterpError as e:  # raised in an expression, which has no line: the statement's
            if getattr(e, "line", 0) is None and s.line is not None and type(e) is InterpError:
                e.args, e.line = (f"{e.args[0]} (line {s.line})",), s.line
            raise
        if sig is not None:
            if type(sig) is Goto:
                j = label_index(it, block).get(sig.label)
                if j is not None:
                    i, sig = j, None
                    continue
            break
        i += 1
    if decls:
        for name, old in shadowed:
            if old is None:
                vars_.pop(name, None)
            else:
                vars_[name] = old
    return sig


def label_index(it, block):
    idx = it._labels.get(id(block))
    if idx is None:
        idx = it._labels[id(block)] = {
            str(s.ann["label"]): k for k, s in enumerate(block.kids) if "label" in s.ann}
    return idx


def s_block(it, node):
    """The statements in order (exec_block)."""
    return exec_block(it, node)


def s_nothing(it, node):
    """No run-time effect (nop, comments, type definitions)."""
    return None


def s_varDecl(it, node):
    """A C declaration in a block: new storage (C static: once), its initial value."""
    frame = it.frame
    attrs = frozenset(attr_word(a) for a in node.attrs)
    for decl in node.declarators:
        spec = VarSpec(decl.name, node.type, decl.dims, decl.init, decl.ptr, attrs, decl)
        if "static" in attrs:
            b = frame.info.saved.get(id(decl))
            if b is None:
                b = frame.info.saved[id(decl)] = memory.new_storage(it, spec, frame)
                initial_value(it, b, spec, frame)
            frame.vars[decl.name] = b
            continue
        b = memory.new_storage(it, spec, frame)
        frame.vars[decl.name] = b  # visible in its own initializer, as in C
        initial_value(it, b, spec, frame)
    return None


def initial_value(it, b, spec: VarSpec, frame: Frame):
    if spec.init is not None:
        memory.initialize(it, b, spec, frame)
    elif spec.dims is None and not spec.ptr and (value := it.default_value(spec.type)) is not None:
        memory.store_cell(it, b, (), value)


def s_assign(it, node):
    """lhs = rhs: rhs evaluated first (copied if it views memory), under the WHERE mask if any."""
    lhs, rhs = node.kids
    value = expressions.eval(it, rhs)
    if isinstance(value, np.ndarray) and rhs.op in ("ident", "arrayAccess", "fieldAccess"):
        value = value.copy(order="K")  # a view of memory the lhs may overlap
    if it.frame.mask is not None:
        value = constructs.masked_value(it, lhs, value, node)
    return places.store(it, lhs, value, node)


def s_pointerAssign(it, node):
    """Fortran p => t: p aliases t (null(): unassociated)."""
    lhs, rhs = node.kids
    if lhs.op != "ident":
        raise err(node, "pointer assignment to a component is not supported")
    b = frames.binding(it, lhs.name, node=lhs)
    null = rhs.op == "intrinsic" and rhs.name == "null"
    if isinstance(b, FArr):
        if null:
            b.data, b.lb = None, None
        elif rhs.op == "ident":
            t = frames.binding(it, rhs.name, node=rhs)
            b.data, b.lb = t.data, t.lb
        else:
            data, key = places.f_place(it, rhs)
            view = data[key]
            if not isinstance(view, np.ndarray):
                raise err(node, "array pointer to a scalar")
            b.data, b.lb = view, (1,) * view.ndim
        return None
    if null:
        target = UNASSOCIATED
    else:
        target = calls.actual_argument(it, rhs)
        if isinstance(target, tuple):
            data, key = target
            target = data[key + (Ellipsis,)]
    rebind(it, lhs.name, target)
    return None


def rebind(it, name, target):
    f = it.frame
    while f is not None:
        if name in f.vars or name in f.info.specs:
            f.vars[name] = target
            if name in f.info.saved:
                f.info.saved[name] = target
        f = f.host
    it.frame.vars[name] = target


def s_if(it, node):
    """The then block if the condition holds, else the else block."""
    cond, then, els = node.kids
    if truth(expressions.eval(it, cond)):
        return exec_block(it, then)
    if els is not None:
        return exec_block(it, els)
    return None


def _left(sig):
    """What a loop returns when its body ends by `sig` (not CYCLE): EXIT ends the loop only."""
    return None if sig is EXIT else sig


def s_do(it, node):
    """Fortran DO: the trip count computed once from lo, hi, step; the variable set to lo, then
    stepped after each trip (one step past the last on a normal exit)."""
    var, lo, hi, step, body = node.kids
    container, key = places.f_place(it, var) if var.op != "ident" else (frames.binding(it, var.name, node=var), ())
    dt = container.dtype
    lo_v = convert(ii.as_value(expressions.eval(it, lo)), dt)
    hi_v = convert(ii.as_value(expressions.eval(it, hi)), dt)
    step_v = convert(ii.as_value(expressions.eval(it, step)), dt) if step is not None else dt.type(1)
    if step_v == 0:
        raise err(node, "DO loop with a zero step")
    if dt.kind in "iu":
        trips = max(0, int(trunc_div(int(hi_v) - int(lo_v) + int(step_v), int(step_v))))
    else:
        trips = max(0, int((hi_v - lo_v + step_v) / step_v))
    v = lo_v
    for _ in range(trips):
        container[key] = v
        sig = exec_block(it, body)
        if sig is not None and sig is not CYCLE:
            return _left(sig)
        v = container[key] + step_v
    container[key] = v
    return None


def s_while(it, node):
    """C while / Fortran DO WHILE: the body while the condition holds."""
    cond, body = node.kids
    while truth(expressions.eval(it, cond)):
        sig = exec_block(it, body)
        if sig is not None and sig is not CYCLE:
            return _left(sig)
    return None


def s_doWhile(it, node):
    """C do-while: the body, then the test."""
    body, cond = node.kids
    while True:
        sig = exec_block(it, body)
        if sig is not None and sig is not CYCLE:
            return _left(sig)
        if not truth(expressions.eval(it, cond)):
            return None


def s_for(it, node):
    """C for: init, then the body and the step while the condition holds."""
    init, cond, step, body = node.kids
    if init is not None:
        it._stmt[init.op](it, init)
    while cond is None or truth(expressions.eval(it, cond)):
        sig = exec_block(it, body)
        if sig is not None and sig is not CYCLE:
            return _left(sig)
        if step is not None:
            it._stmt[step.op](it, step)
    return None


def s_switch(it, node):
    """C switch (fallThrough): run from the matching case on, an EXIT leaves the switch.
    Fortran SELECT CASE: run the matching case only; EXIT and CYCLE go to the loop."""
    selector, cases, fall_through = node.kids
    start = matching_case(it, cases, expressions.eval(it, selector))
    if start is None:
        return None
    if not fall_through:
        return exec_block(it, cases[start].body)
    for case in cases[start:]:
        sig = exec_block(it, case.body)
        if sig is not None:
            return _left(sig)
    return None


def matching_case(it, cases, value):
    """Index of the first case whose values hold `value`, else of the default, else None."""
    default = None
    for k, case in enumerate(cases):
        if not case.values:
            default = k if default is None else default
        elif any(case_holds(it, v, value) for v in case.values):
            return k
    return default


def case_holds(it, v, x) -> bool:
    """x == v, or lo <= x <= hi for a caseRange (either end open)."""
    if v.op != "caseRange":
        value = expressions.eval(it, v)
        return _case_key(value, x) == _case_key(x, value)
    lo = None if v.lo is None else expressions.eval(it, v.lo)
    hi = None if v.hi is None else expressions.eval(it, v.hi)
    return (lo is None or _case_key(lo, x) <= _case_key(x, lo)) and \
        (hi is None or _case_key(x, hi) <= _case_key(hi, x))


def s_exit(it, node):
    """Fortran EXIT, C break: the EXIT signal."""
    return EXIT


def s_cycle(it, node):
    """Fortran CYCLE, C continue: the CYCLE signal."""
    return CYCLE


def s_goto(it, node):
    """The Goto signal, caught by the block holding the label."""
    return Goto(str(node.label))


def s_computedGoto(it, node):
    """The kth label; an index outside 1..n goes on to the next statement (Fortran 2008 8.2.3)."""
    labels, index = node.kids
    k = int(np.real(expressions.eval(it, index)))
    return Goto(labels[k - 1]) if 1 <= k <= len(labels) else None


def s_arithmeticIf(it, node):
    """The label by the sign; the sign of a stepped real is that of its real part (complex step)."""
    value = np.real(expressions.eval(it, node.kids[0]))
    return Goto(node.kids[1] if value < 0 else node.kids[2] if value == 0 else node.kids[3])


def s_return(it, node):
    """The RETURN signal; C: the value converted to the function's type."""
    if node.value is not None:
        value = expressions.eval(it, node.value)
        proc = it.frame.info.node
        if proc.type is not None and proc.type.op == "type" and proc.type.base != "void" \
                and not isinstance(value, (Ptr, Record, CArr)) and value is not None:
            value = convert(ii.as_value(value), memory.elem_kind(it, proc.type)[0])
        elif isinstance(value, CArr):
            value = Ptr(value.buf, value.off)
        it.frame.retval = value
    return RETURN


def s_stop(it, node):
    """Fortran STOP: ends the whole run (Interpreter.stopped holds the code)."""
    raise ProgramStop(None if node.code is None else expressions.eval(it, node.code))


def s_call(it, node):
    """A subroutine call (calls.py)."""
    calls.call_user(it, node)
    return None


def s_intrinsic(it, node):
    """An intrinsic called as a statement (printf, ...): its value dropped."""
    e_intrinsic(it, node)
    return None


def s_allocate(it, node):
    """Fortran ALLOCATE: new storage with the given bounds; C malloc: a new buffer."""
    target, dims, type_ = node.kids
    if it.is_c:
        container, key = places.c_place(it, target)
        count = int(expressions.eval(it, dims[0]))
        if type_ is None:
            raise err(node, "malloc without an element type")
        dtype, factory = memory.elem_kind(it, type_)
        container[key] = Ptr(memory.new_array(it, (max(count, 0),), dtype, factory), 0)
        return None
    b = places.f_binding_of(it, target)
    if not isinstance(b, FArr):
        raise err(node, "ALLOCATE of a scalar is not supported")
    if b.data is not None and not places.is_pointer(it, target):
        raise err(node, "ALLOCATE of an allocated array")
    dim_nodes = tuple(d if d.op == "dim" else Node("dim", (None, d)) for d in dims)
    lb, shape = memory.bounds(it, it.frame, dim_nodes, node)
    spec = places.f_spec_of(it, target)
    dtype, factory = memory.elem_kind(it, memory.spec_type(it, spec, it.frame.info), 0)
    b.data, b.lb = memory.new_array(it, shape, dtype, factory), lb
    return None


def s_deallocate(it, node):
    """Fortran DEALLOCATE: the array unallocated; C free: nothing (the buffer is left to stale pointers)."""
    target = node.target
    if it.is_c:
        return None  # free: the buffer stays reachable only through stale pointers
    b = places.f_binding_of(it, target)
    if not isinstance(b, FArr) or b.data is None:
        raise err(node, "DEALLOCATE of an unallocated array")
    b.data, b.lb = None, None
    return None


def s_io(it, node):
    """PRINT / WRITE append to the output; READ (s, *) reads a character variable; OPEN,
    CLOSE, FORMAT, ... do nothing."""
    kind = node.kind.lower()
    if kind in _PASSIVE_IO:
        return None
    if kind == "read":
        return _internal_read(it, node)
    if kind not in ("print", "write"):
        raise err(node, f"{kind.upper()} statement is not supported by the interpreter")
    it.output += " ".join(render(expressions.eval(it, i)) for i in node.items) + "\n"
    return None


def _internal_read(it, node):
    """READ (s, *) items: list-directed input from a character variable (an internal file),
    the values separated by blanks or commas; a whole array takes as many values as it has
    elements. Files and formats are not modelled."""
    parts = [p.strip() for p in node.control.split(",")]
    if len(parts) != 2 or parts[1].replace(" ", "").lower() not in ("*", "fmt=*") or not parts[0].isidentifier():
        raise err(node, "READ is supported by the interpreter only as READ (string, *)")
    text = expressions.eval(it, Node("ident", (parts[0].lower(),)))
    if not isinstance(text, str):
        raise err(node, f"READ from unit {parts[0]}: only internal files (character variables) are modelled")
    tokens = iter(text.replace(",", " ").split())
    for item in node.items:
        if item.op not in ("ident", "arrayAccess", "fieldAccess"):
            raise err(node, "READ of an implied DO is not supported by the interpreter")
        current = expressions.eval(it, item)
        try:
            if isinstance(current, np.ndarray):
                value = np.array([float(next(tokens).lower().replace("d", "e")) for _ in range(current.size)])
                value = value.reshape(current.shape, order="F")
            else:
                value = float(next(tokens).lower().replace("d", "e"))
        except StopIteration:
            raise err(node, "READ past the end of the string") from None
        places.store(it, item, value, node)
    return None


def _case_key(a, b):
    """A case value or selector made comparable with the other: a Fortran string blank-padded
    to the longer length, a number as itself."""
    if isinstance(a, str):
        return a.ljust(len(b)) if isinstance(b, str) else a
    return a.item() if isinstance(a, np.generic) else a


# I/O statements the interpreter runs as no-ops: files are not modelled (WRITE to any unit
# appends to `output`, like PRINT), and a FORMAT statement is only data for a WRITE.
_PASSIVE_IO = frozenset(("open", "close", "rewind", "inquire", "backspace", "endfile", "format"))



# IL operator -> the function that gives its meaning (docs/semantics.md lists them). A new
# statement kind is one function above and one line here.
STATEMENTS = {
    "block": s_block,
    "nop": s_nothing,
    "comment": s_nothing,
    "typeDef": s_nothing,
    "typeAlias": s_nothing,
    "enumDef": s_nothing,
    "typedefEnum": s_nothing,
    "varDecl": s_varDecl,
    "assign": s_assign,
    "pointerAssign": s_pointerAssign,
    "if": s_if,
    "do": s_do,
    "while": s_while,
    "doWhile": s_doWhile,
    "for": s_for,
    "switch": s_switch,
    "where": s_where,
    "forall": s_forall,
    "exit": s_exit,
    "cycle": s_cycle,
    "goto": s_goto,
    "computedGoto": s_computedGoto,
    "arithmeticIf": s_arithmeticIf,
    "return": s_return,
    "stop": s_stop,
    "call": s_call,
    "intrinsic": s_intrinsic,
    "allocate": s_allocate,
    "deallocate": s_deallocate,
    "io": s_io,
}
