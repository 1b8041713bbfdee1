"""The IL interpreter: the reference operational semantics of the IL.

    it = Interpreter(file_node)        # language from file_node.ann["lang"]
    result = it.call("head", args)     # numpy arrays by reference (Fortran; C pointers), numbers by value (C)
    it.output                          # text printed so far

    Interpreter(file_node, complex_step=True)   # complex step: reals are complex128
                                                # (engine/interp_complex_step.py)
    it.launch("kernel", grid, block, args)      # a CUDA __global__ function on the CPU
                                                # (engine/interp_cuda.py; host code launches too)

Values are numpy scalars (np.int32, np.float32, np.float64, ..., np.bool_) so that single
precision and integer arithmetic behave like the compiled code; arrays are numpy arrays.

Storage model (one word per kind of variable binding):
- a scalar variable is a 0-d numpy array (a "cell"); references alias it, C `&x` views it;
- a Fortran array is an `FArr`: a column-major numpy view plus its lower bounds (data None
  while an allocatable is unallocated or a pointer unassociated);
- a C array is a `CArr`: a flat buffer, an offset and the dimensions (row-major);
- a C pointer value is a `Ptr`: a flat buffer and an offset (NULL is None);
- a struct / derived-type value is a `Record` of field bindings; arrays of them and pointer
  variables live in numpy object arrays.
A C declarator dim(None, n) declares n elements (hi is the C count, as the C front end writes
it); a C array parameter `T a[][n]` is a CArr with an unchecked first dimension.
Statements return None or a control signal (EXIT, CYCLE, RETURN, a `_Goto`), which blocks and
loops consume; `goto` finds its label in the current block or an enclosing one.
"""
from __future__ import annotations

import re
import sys
import warnings
from math import prod

import numpy as np

from .enums import ENUM_OPS, ENUM_TYPE, enumerator_values
from .il import Node, walk
from . import interp_intrinsics as ii
from . import interp_complex_step as cs
from .interp_constructs import FortranConstructs, ABSENT
from .interp_cuda import CudaKernels
from .symbols import data_names, used_name
from .interp_intrinsics import INT_KINDS, REAL_KINDS, COMPLEX_KINDS, convert, promote

__all__ = ["Interpreter", "InterpError", "KernelError", "ProgramStop", "FArr", "CArr", "Ptr", "Record"]


class InterpError(Exception):
    """An IL construct the interpreter does not support, or a run-time fault (bounds, NULL)."""


class KernelError(InterpError):
    """A CUDA kernel run that has no meaning: a data race, or a barrier not reached by all the
    threads of a block (engine/interp_cuda.py)."""


class ProgramStop(Exception):
    """Fortran STOP: ends the whole run (Interpreter.call records it in `stopped`)."""

    def __init__(self, code):
        super().__init__(f"STOP {code}")
        self.code = code


# ---------------------------------------------------------------------------
# Run-time objects
# ---------------------------------------------------------------------------

class FArr:
    """A Fortran array variable: column-major data (a numpy view) and lower bounds."""
    __slots__ = ("data", "lb")

    def __init__(self, data, lb):
        self.data = data
        self.lb = lb


class CArr:
    """A C array (or row of one): flat buffer, offset of the first element, dimensions."""
    __slots__ = ("buf", "off", "dims")

    def __init__(self, buf, off, dims):
        self.buf, self.off, self.dims = buf, off, dims


class Ptr:
    """A C pointer value: a flat numpy buffer and an element offset into it."""
    __slots__ = ("buf", "off")

    def __init__(self, buf, off):
        self.buf, self.off = buf, off

    def __repr__(self):
        return f"Ptr(+{self.off} of {len(self.buf)})"


class Record:
    """A struct / derived-type value: field name -> binding (cell, FArr or CArr)."""
    __slots__ = ("tname", "fields")

    def __init__(self, tname, fields):
        self.tname, self.fields = tname, fields

    def copy(self) -> "Record":
        return Record(self.tname, {k: _copy_binding(b) for k, b in self.fields.items()})


class ComponentPlaces:
    """The places of one component (or one element of an array component) across an array
    of Fortran records: `ps%mass`, `cd%p%x(nd)` (Fortran's one part with a rank is the
    array of records). places[...] gathers their values into an array of the records' shape,
    places[...] = v scatters v (or a scalar) into them. cells: (container, key) per record, in
    np.ndindex order of shape."""
    __slots__ = ("cells", "shape")

    def __init__(self, cells, shape):
        self.cells, self.shape = cells, shape

    @property
    def dtype(self):
        return self.cells[0][0].dtype if self.cells else np.dtype(np.float64)

    def __getitem__(self, _key):
        return np.array([c[k] for c, k in self.cells], dtype=self.dtype).reshape(self.shape)

    def __setitem__(self, _key, value):
        for idx, (c, k) in zip(np.ndindex(self.shape), self.cells):
            c[k] = value[idx] if isinstance(value, np.ndarray) else value


class UnionRecord(Record):
    """A C union value: every field is a typed view of one shared byte buffer, so reading
    a field after writing another reinterprets the bytes as C does."""
    __slots__ = ("raw", "layout")

    def __init__(self, tname, layout, raw):
        self.raw, self.layout = raw, layout  # layout: (field, dtype, dims or None) in order
        super().__init__(tname, {name: _bytes_view(raw, dtype, dims) for name, dtype, dims in layout})

    def copy(self) -> "UnionRecord":
        return UnionRecord(self.tname, self.layout, self.raw.copy())


def _bytes_view(raw, dtype, dims):
    """A cell (dims None) or a CArr over the first bytes of a union's buffer."""
    n = prod(dims) if dims else 1
    view = raw[:n * dtype.itemsize].view(dtype)
    return CArr(view, 0, dims) if dims else view.reshape(())

    def __repr__(self):
        return f"{self.tname}({', '.join(f'{k}={_show(b)}' for k, b in self.fields.items())})"


def _copy_binding(b):
    if isinstance(b, np.ndarray):
        if b.dtype == object:
            return _object_copy(b)
        return b.copy(order="K")
    if isinstance(b, FArr):
        return FArr(None if b.data is None else _object_copy(b.data) if b.data.dtype == object
                    else b.data.copy(order="F"), b.lb)
    if isinstance(b, CArr):
        n = prod(b.dims)
        return CArr(_object_copy(b.buf[b.off:b.off + n]), 0, b.dims)
    return b


def _object_copy(a):
    if a.dtype != object:
        return a.copy(order="K")
    out = np.empty(a.shape, dtype=object, order="F")
    for idx in np.ndindex(a.shape):
        v = a[idx]
        out[idx] = v.copy() if isinstance(v, Record) else v
    return out


def _show(b):
    if isinstance(b, np.ndarray) and b.ndim == 0:
        return repr(b[()])
    if isinstance(b, FArr):
        return repr(b.data)
    return repr(b)


_COMMON_MIN_BYTES = 1 << 16
_ComplexWarning = getattr(getattr(np, "exceptions", np), "ComplexWarning")
UNASSOCIATED = object()  # binding of a Fortran scalar pointer not associated with a target
EXIT, CYCLE, RETURN = "exit", "cycle", "return"


class _Goto:
    __slots__ = ("label",)

    def __init__(self, label):
        self.label = label


def _err(node, msg):
    line = node.ann.get("line") if isinstance(node, Node) else None
    error = InterpError(f"{msg} (line {line})" if line is not None else msg)
    error.line = line
    return error


# ---------------------------------------------------------------------------
# Static information about a scope (procedure, module or C file), cached per node
# ---------------------------------------------------------------------------

class VarSpec:
    """What declarations say about one name."""
    __slots__ = ("name", "type", "dims", "init", "ptr", "attrs", "node")

    def __init__(self, name, type_, dims=None, init=None, ptr=0, attrs=frozenset(), node=None):
        self.name, self.type, self.dims, self.init, self.ptr = name, type_, dims, init, ptr
        self.attrs, self.node = attrs, node


_IMPLICIT_DEFAULT = {c: ("integer", 4) if "i" <= c <= "n" else ("real", 4) for c in "abcdefghijklmnopqrstuvwxyz_"}
_IMPLICIT_TYPE = re.compile(r"\s*(double\s*precision|double\s*complex|integer|real|complex|logical)"
                            r"\s*(?:\*\s*(\d+)|\(\s*(?:kind\s*=\s*)?(\d+)\s*\))?\s*\((.*)\)\s*$")


def _attr_word(a: str) -> str:
    return a.split("(")[0].strip().lower()


class ScopeInfo:
    """Declarations of one scope: variable specs, COMMON layout, USEs, implicit rules."""

    def __init__(self, node: Node, lang: str, host: "ScopeInfo | None" = None):
        self.node, self.lang, self.host = node, lang, host
        self.specs: dict[str, VarSpec] = {}
        self.order: list[str] = []
        self.uses: list[tuple[str, tuple | None, dict]] = []  # (module, ONLY names, local -> remote)
        self.data: list[Node] = []                         # DATA statements, applied once
        self.data_done = False
        self.commons: dict[str, tuple[str, int]] = {}      # var -> (block, position)
        self.common_members: dict[str, list[str]] = {}     # block -> var names in order
        self.common_layout: dict[str, dict] = {}           # block -> {var: (byte offset, nbytes)}
        self.save_all = False
        self.saved: dict = {}                              # persistent bindings (SAVE, PARAMETER, init)
        self.implicit = host.implicit if host is not None else dict(_IMPLICIT_DEFAULT)
        self.externals: set[str] = set()
        self.contains: dict[str, Node] = {}
        op = node.op
        if op == "procedure":
            decls, contains = node.decls, node.contains
            self.params = node.params
        elif op == "module":
            decls, contains = node.decls, node.contains
            self.params = ()
        else:  # C file: globals
            decls, contains = tuple(u for u in node.units if u.op == "varDecl"), ()
            self.params = ()
        for d in decls:
            self._declare(d)
        for u in contains:
            if u.op == "procedure":
                self.contains[u.name] = u
        if op == "procedure" and node.kind == "function" and lang == "fortran":
            result = self._spec(node.result or node.name)
            if result.type is None:
                result.type = node.type

    def _spec(self, name):
        s = self.specs.get(name)
        if s is None:
            s = self.specs[name] = VarSpec(name, None)
            self.order.append(name)
        return s

    def _declare(self, d: Node):
        op = d.op
        if op == "varDecl":
            attrs = frozenset(_attr_word(a) for a in d.attrs)
            for decl in d.declarators:
                s = self._spec(decl.name)
                s.type, s.ptr, s.attrs, s.node = d.type, decl.ptr, s.attrs | attrs, decl
                if decl.dims is not None:
                    s.dims = decl.dims
                if decl.init is not None:
                    s.init = decl.init
        elif op == "common":
            members = self.common_members.setdefault(d.name, [])
            for v in d.vars:
                if v.op == "arrayAccess":
                    name = v.base.kids[0]
                    self._spec(name).dims = tuple(
                        Node("dim", (i.lo, i.hi)) if i.op == "arrayTriplet" else Node("dim", (None, i))
                        for i in v.indices)
                else:
                    name = v.kids[0]
                    self._spec(name)
                self.commons[name] = (d.name, len(members))
                members.append(name)
        elif op == "use":
            self.uses.append((d.module, d.only, {r.local: r.remote for r in d.renames}))
        elif op == "data":
            self.data.append(d)
            for name in data_names(d.objects):  # DATA implies SAVE
                self._spec(name).attrs |= {"save"}
        elif op == "interface":
            # no run-time effect: the names are procedures (never variables of this scope)
            self.externals.update(p.name for p in d.procs if p.op == "procedure")
            if d.name:
                self.externals.add(d.name)
        elif op == "implicit":
            self._implicit(d)
        elif op == "attrDecl":
            attr = _attr_word(d.attr)
            names = [decl.name for decl in d.declarators]
            if attr == "save" and not names:
                self.save_all = True
            elif attr == "external":
                self.externals.update(names)
            elif attr in ("save", "allocatable", "pointer", "target", "optional", "parameter", "dimension"):
                for decl in d.declarators:
                    if decl.name.startswith("/"):
                        continue  # SAVE /common/: common blocks persist anyway
                    s = self._spec(decl.name)
                    if attr != "dimension":
                        s.attrs |= {attr}
                    if decl.dims is not None:
                        s.dims = decl.dims
                    if decl.init is not None:
                        s.init = decl.init
        elif op in ("typeDef", "typeAlias", "comment", "equivalence", "procedure"):
            if op == "equivalence":
                raise _err(d, "EQUIVALENCE is not supported by the interpreter")

    def _implicit(self, d: Node):
        text = d.text.strip().lower()
        if text == "none":
            self.implicit = {}
            return
        self.implicit = dict(self.implicit)
        for part in re.split(r"(?<=\))\s*,\s*", text):
            m = _IMPLICIT_TYPE.match(part)
            if not m:
                raise _err(d, f"IMPLICIT {d.text} is not supported by the interpreter")
            base, star, kind, letters = m.groups()
            base = base.replace(" ", "")
            if base == "doubleprecision":
                base, k = "real", 8
            elif base == "doublecomplex":
                base, k = "complex", 8
            else:
                k = int(star or kind or 4)
                if base == "complex" and star:
                    k //= 2
            for rng in letters.split(","):
                lo, _, hi = rng.strip().partition("-")
                for c in range(ord(lo.strip()), ord((hi or lo).strip()) + 1):
                    self.implicit[chr(c)] = (base, k)

    def implicit_type(self, name: str):
        t = self.implicit.get(name[0])
        if t is None:
            return None
        return Node("type", (t[0], t[1], None))


class Frame:
    """One activation: its bindings, the scope info and the host frame (host association)."""
    __slots__ = ("info", "vars", "host", "retval", "copyback", "present", "mask")

    def __init__(self, info: ScopeInfo, host: "Frame | None"):
        self.info, self.host = info, host
        self.vars: dict = {}
        self.retval = None
        self.copyback = None
        self.present = None
        self.mask = None  # the WHERE control mask of the statements running now


# ---------------------------------------------------------------------------
# The interpreter
# ---------------------------------------------------------------------------

class Interpreter(FortranConstructs, CudaKernels):
    def __init__(self, file_node: Node, lang: str | None = None, complex_step: bool = False):
        if file_node.op != "file":
            raise InterpError(f"the interpreter runs an IL file node, not {file_node.op}")
        self.file = file_node
        self.lang = lang or file_node.ann.get("lang", "fortran")
        if self.lang not in ("fortran", "c"):
            raise InterpError(f"unknown language {self.lang!r}")
        self.is_c = self.lang == "c"
        self.output = ""
        self.stopped = None
        self.procs: dict[str, Node] = {}
        self.proc_module: dict[str, str] = {}
        self.modules: dict[str, Node] = {}
        self.types: dict[str, Node] = {}
        self.aliases: dict[str, Node] = {}
        self._infos: dict[int, ScopeInfo] = {}
        self._module_frames: dict[str, Frame] = {}
        self._commons: dict[str, np.ndarray] = {}
        self._labels: dict[int, dict] = {}
        self._block_decls: dict[int, tuple] = {}
        self._consts: dict[int, object] = {}
        self._record_fields: dict[str, list] = {}
        self.enum_constants: dict[str, int] = {}
        self._index_units(file_node.units)
        self._index_enums(file_node)
        self._init_cuda()
        self.globals = Frame(ScopeInfo(file_node, self.lang), None) if self.is_c else None
        self.frame: Frame | None = None
        self._stmt = {name[2:]: getattr(self, name) for name in dir(self) if name.startswith("s_")}
        self._expr = {name[2:]: getattr(self, name) for name in dir(self) if name.startswith("e_")}
        self.complex_step = complex_step
        if complex_step:
            self._intrinsics = cs.C_CS if self.is_c else cs.FORTRAN_CS
        else:
            self._intrinsics = ii.C_IMPL if self.is_c else ii.FORTRAN_IMPL

    def _index_units(self, units, module=None):
        for u in units:
            if u.op == "procedure":
                if u.body is not None or u.name not in self.procs:
                    self.procs[u.name] = u
                    if module:
                        self.proc_module[u.name] = module
                self._index_types(u.decls)
            elif u.op == "module":
                self.modules[u.name] = u
                self._index_types(u.decls)
                self._index_units(u.contains, u.name)
            elif u.op in ("typeDef", "typeAlias"):
                self._index_types((u,))

    def _index_enums(self, file_node):
        """Enumerators (anywhere in the file) are integer constants; enum tags name int."""
        for enum in (x for x in walk(file_node) if x.op in ENUM_OPS):
            for name, value in enumerator_values(enum, self.enum_constants.get):
                if value is None:
                    raise _err(enum, f"the value of enumerator {name} is not an integer constant")
                if self.enum_constants.get(name, value) != value:
                    raise _err(enum, f"enumerator {name} is defined twice with different values")
                self.enum_constants[name] = value
            if enum.kids[0] is not None:
                self.aliases[enum.kids[0]] = ENUM_TYPE

    def _index_types(self, decls):
        for d in decls:
            if d.op == "typeDef":
                self.types[d.name] = d
            elif d.op == "typeAlias":
                self.aliases[d.name] = d.type

    # --- public entry -------------------------------------------------------------------
    def call(self, name: str, args=()):
        """Run procedure `name` with Python-level actual arguments; return the function result."""
        proc = self.procs.get(name)
        if proc is None or proc.body is None:
            raise InterpError(f"no procedure {name!r} with a body in this file")
        return self._run_from_python(
            name, lambda: self._invoke(proc, [self._external_actual(a) for a in args], {},
                                       self._host_frame(proc, None)))

    def _run_from_python(self, name, run):
        """run() with the numeric environment of compiled code (no floating-point exceptions)
        and room for deep recursion; a Fortran STOP ends it normally."""
        old_limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(old_limit, 20000))
        try:
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore", _ComplexWarning)
                return run()
        except ProgramStop as stop:
            self.stopped = stop.code
            return None
        except RecursionError:
            raise InterpError(f"recursion too deep while running {name}") from None
        finally:
            sys.setrecursionlimit(old_limit)

    def _external_actual(self, a):
        if isinstance(a, np.ndarray):
            return a
        if isinstance(a, (Ptr, Record)) or a is None:
            return a
        return ii.as_value(a)

    # --- scopes and bindings --------------------------------------------------------------
    def _info(self, node: Node, host: ScopeInfo | None = None) -> ScopeInfo:
        info = self._infos.get(id(node))
        if info is None:
            if host is None and node.op == "procedure" and node.name in self.proc_module:
                host = self._module_frame(self.proc_module[node.name]).info
            info = self._infos[id(node)] = ScopeInfo(node, self.lang, host)
        return info

    def _module_frame(self, name: str) -> Frame:
        f = self._module_frames.get(name)
        if f is None:
            mod = self.modules.get(name)
            if mod is None:
                raise InterpError(f"USE of unknown module {name!r}")
            f = self._module_frames[name] = Frame(self._info(mod), None)
            f.info.save_all = True
        return f

    def _host_frame(self, proc: Node, caller: Frame | None) -> Frame | None:
        """The frame whose variables `proc` sees by host association."""
        f = caller
        while f is not None:
            if proc.name in f.info.contains and f.info.contains[proc.name] is proc:
                return f
            f = f.host
        if proc.name in self.proc_module:
            return self._module_frame(self.proc_module[proc.name])
        return self.globals

    def binding(self, name: str, frame: Frame | None = None, node=None):
        frame = frame or self.frame
        b = frame.vars.get(name)
        if b is None:
            b = self._resolve(frame, name, node)
            frame.vars[name] = b
        return b

    def _resolve(self, frame: Frame, name: str, node):
        info = frame.info
        if self._absent(frame, name):
            raise _err(node, f"optional argument {name!r} is absent (not PRESENT) and cannot be used")
        if name in info.specs:
            return self._materialize(frame, info.specs[name])
        b = self._lookup_outer(frame, name)
        if b is not None:
            return b
        if name in self.enum_constants:
            return np.array(self.enum_constants[name], dtype=np.int32)
        if self.is_c:
            b = self.cuda_builtin_variable(name, node)
            if b is not None:
                return b
        if not self.is_c and info.node.op == "procedure":
            t = info.implicit_type(name)
            if t is not None:
                return self._materialize(frame, VarSpec(name, t))
        raise _err(node, f"undeclared variable {name!r}")

    def _lookup_outer(self, frame: Frame, name: str):
        """A binding visible through USE, host association, or C file scope (None if none)."""
        f = frame
        while f is not None:
            if f is not frame and (name in f.info.specs or name in f.vars):
                return self.binding(name, f)
            for module, only, renames in f.info.uses:
                local = self._use_lookup(module, only, renames, name)
                if local is not None:
                    return local
            f = f.host
        if self.globals is not None and frame is not self.globals and name in self.globals.info.specs:
            return self.binding(name, self.globals)
        return None

    def _use_lookup(self, module: str, only, renames: dict, name: str):
        target = used_name(only, renames, name)
        if target is None:
            return None
        mframe = self._module_frame(module)
        if target in mframe.info.specs:
            return self.binding(target, mframe)
        return self._lookup_outer(mframe, target) if mframe.info.uses else None

    # --- storage creation -----------------------------------------------------------------------
    def _materialize(self, frame: Frame, spec: VarSpec):
        info = frame.info
        persistent = ("save" in spec.attrs or "parameter" in spec.attrs or info.save_all
                      or "static" in spec.attrs or (spec.init is not None and not self.is_c))
        if persistent and spec.name in info.saved:
            return info.saved[spec.name]
        if spec.name in info.commons:
            b = self._common_binding(frame, spec)
        else:
            b = self._new_storage(spec, frame)
            if spec.init is not None:
                self._initialize(b, spec, frame)
        if persistent:
            info.saved[spec.name] = b
            if info.data and not info.data_done:
                self._apply_data(frame)
        return b

    def _spec_type(self, spec: VarSpec, info: ScopeInfo):
        if spec.type is not None:
            return spec.type
        t = info.implicit_type(spec.name) if not self.is_c else None
        if t is None:
            raise _err(spec.node, f"no type for {spec.name!r}")
        return t

    def elem_kind(self, type_node: Node, ptr: int = 0):
        """(numpy dtype, factory of one object element or None) for a declared element type."""
        if ptr:
            return np.dtype(object), None
        op = type_node.op
        if op == "pointerType":
            return np.dtype(object), None
        if op == "typeRef":
            name = type_node.name
            tdef = self.types.get(name)  # before aliases: `typedef struct s {..} s;` names both
            if tdef is None:
                alias = self.aliases.get(name)
                if alias is None or alias == type_node:
                    raise _err(type_node, f"unknown type {name!r}")
                return self.elem_kind(alias)
            return np.dtype(object), lambda: self._new_record(tdef)
        base, kind = type_node.base, type_node.kind
        if base == "integer":
            return INT_KINDS.get(kind or 4) or _bad_kind(type_node), None
        if base == "real":
            dtype = REAL_KINDS.get(kind or 4) or _bad_kind(type_node)
            return (cs.C128 if self.complex_step else dtype), None
        if base == "complex":
            if self.complex_step:
                raise _err(type_node, "complex step on a program with complex variables is not supported")
            return COMPLEX_KINDS.get(kind or 4) or _bad_kind(type_node), None
        if base == "logical":
            return (np.dtype(np.int32) if self.is_c else np.dtype(np.bool_)), None
        if base == "character":
            if self.is_c:
                return np.dtype(np.int8), None
            blank = " " * self._char_len(type_node)
            return np.dtype(object), lambda: blank
        if base == "void":
            return np.dtype(object), None
        raise _err(type_node, f"type {base} is not supported by the interpreter")

    def _char_len(self, type_node):
        n = type_node.len
        if n is None:
            return 1
        if n.op == "intCst":
            return n.value
        if n.op == "star":
            return 0  # len=*: takes the actual's length
        return int(self._eval_in(self.frame, n)) if self.frame is not None else 0

    def _new_array(self, shape, dtype, factory):
        if factory is None:
            if dtype == object:
                return np.full(shape, None, dtype=object, order="F")
            return np.zeros(shape, dtype=dtype, order="F")
        a = np.empty(shape, dtype=object, order="F")
        for idx in np.ndindex(*shape):
            a[idx] = factory()
        return a

    def _new_storage(self, spec: VarSpec, frame: Frame):
        dtype, factory = self.elem_kind(self._spec_type(spec, frame.info), spec.ptr)
        if spec.dims is None:
            if not self.is_c and ("pointer" in spec.attrs):
                return UNASSOCIATED
            return self._new_array((), dtype, factory)
        if self.is_c:
            sizes = tuple(None if d.hi is None else int(self._eval_in(frame, d.hi)) for d in spec.dims)
            if sizes and sizes[0] is None:
                init = spec.init
                if init is None or init.op != "arrayConstructor":
                    raise _err(spec.node, f"array {spec.name} has no size")
                sizes = (len(init.items),) + sizes[1:]
            return CArr(self._new_array((prod(sizes),), dtype, factory), 0, sizes)
        if "allocatable" in spec.attrs or "pointer" in spec.attrs or any(d.hi is None for d in spec.dims):
            return FArr(None, None)
        lb, shape = self._bounds(frame, spec.dims, spec.node)
        return FArr(self._new_array(shape, dtype, factory), lb)

    def _bounds(self, frame, dims, node, assumed_last=None):
        lbs, shape = [], []
        for k, d in enumerate(dims):
            lo = 1 if d.lo is None else int(self._eval_in(frame, d.lo))
            if d.hi is not None and d.hi.op == "star":
                if assumed_last is None:
                    raise _err(node, "assumed-size array needs an actual argument")
                hi = lo + assumed_last // max(1, prod(shape)) - 1
            else:
                hi = int(self._eval_in(frame, d.hi))
            lbs.append(lo)
            shape.append(max(0, hi - lo + 1))
        return tuple(lbs), tuple(shape)

    def _eval_in(self, frame, node):
        saved, self.frame = self.frame, frame
        try:
            return self.eval(node)
        finally:
            self.frame = saved

    def _initialize(self, b, spec: VarSpec, frame: Frame):
        value = self._eval_in(frame, spec.init)
        if isinstance(b, np.ndarray):
            self._store_cell(b, (), value)
        elif isinstance(b, FArr):
            b.data[...] = np.reshape(value, b.data.shape, order="F") if isinstance(value, np.ndarray) else value
        elif isinstance(b, CArr):
            flat = _flatten_c(value)
            b.buf[b.off:b.off + len(flat)] = flat
        else:
            raise _err(spec.node, f"cannot initialize {spec.name}")

    def _store_cell(self, container, key, value):
        if isinstance(value, Record):
            container[key] = value.copy()
        elif isinstance(value, CArr):
            container[key] = Ptr(value.buf, value.off)
        elif isinstance(value, str) and container.dtype == object:
            old = container[key]
            n = len(old) if isinstance(old, str) and old else len(value)
            container[key] = value[:n].ljust(n)  # Fortran blank-pads to the declared length
        elif isinstance(value, tuple):  # C brace initializer of a struct
            rec = container[key]
            for field, v in zip(rec.fields, value):
                fb = rec.fields[field]
                if isinstance(fb, CArr):
                    flat = _flatten_c(v)
                    fb.buf[fb.off:fb.off + len(flat)] = flat
                else:
                    self._store_cell(fb, (), v)
        else:
            container[key] = value

    def _new_record(self, tdef: Node) -> Record:
        if tdef.style in ("union", "typedefUnion"):
            return self._new_union(tdef)
        fields = self._record_fields.get(tdef.name)
        if fields is None:
            fields = self._record_fields[tdef.name] = [
                VarSpec(decl.name, d.type, decl.dims, decl.init, decl.ptr,
                        frozenset(_attr_word(a) for a in d.attrs), decl)
                for d in tdef.fields if d.op == "varDecl" for decl in d.declarators]
        # Fortran: the bounds of the components are constants seen where the type is (nbdirsmax
        # of a USEd module, in a vector T_diff): evaluated where the structure is created
        frame = self.globals or self.frame or Frame(ScopeInfo(Node("module", (tdef.name, (), ())), self.lang), None)
        rec = {}
        for spec in fields:
            b = self._new_storage(spec, frame)
            if spec.init is not None:
                self._initialize(b, spec, frame)
            rec[spec.name] = b
        return Record(tdef.name, rec)

    def _new_union(self, tdef: Node) -> UnionRecord:
        layout = self._record_fields.get(tdef.name)
        if layout is None:
            frame = self.globals or Frame(ScopeInfo(Node("module", (tdef.name, (), ())), self.lang), None)
            layout = []
            for d in tdef.fields:
                for decl in (d.declarators if d.op == "varDecl" else ()):
                    dtype, factory = self.elem_kind(d.type, decl.ptr)
                    if factory is not None or dtype == object:
                        raise _err(d, f"union {tdef.name}: field {decl.name} is not a number")
                    dims = None if decl.dims is None else tuple(int(self._eval_in(frame, x.hi)) for x in decl.dims)
                    layout.append((decl.name, dtype, dims))
            self._record_fields[tdef.name] = layout
        align = max((dtype.itemsize for _, dtype, _ in layout), default=1)
        size = max((dtype.itemsize * (prod(dims) if dims else 1) for _, dtype, dims in layout), default=0)
        return UnionRecord(tdef.name, layout, np.zeros(-(-size // align) * align, dtype=np.uint8))

    def _common_binding(self, frame: Frame, spec: VarSpec):
        """A COMMON member: a typed view of the block's byte buffer at its sequence offset."""
        info = frame.info
        block, _ = info.commons[spec.name]
        layout = info.common_layout.get(block)
        if layout is None:
            layout, off = {}, 0
            for name in info.common_members[block]:
                s = info.specs[name]
                dtype, factory = self.elem_kind(self._spec_type(s, info), s.ptr)
                if factory is not None or dtype == object:
                    raise _err(s.node, f"COMMON member {name} of a derived or character type is not supported")
                lb, shape = self._bounds(frame, s.dims, s.node) if s.dims else (None, ())
                layout[name] = (off, dtype, lb, shape)
                off += dtype.itemsize * prod(shape)
            info.common_layout[block] = layout
        size = sum(d.itemsize * prod(sh) for _, d, _, sh in layout.values())
        buf = self._commons.get(block)
        if buf is None:
            # room to spare: a later procedure may declare the block longer (blank COMMON)
            buf = self._commons[block] = np.zeros(max(size, _COMMON_MIN_BYTES), dtype=np.uint8)
        elif len(buf) < size:
            raise _err(spec.node, f"COMMON /{block}/ is declared longer here than where first used")
        off, dtype, lb, shape = layout[spec.name]
        view = buf[off:off + dtype.itemsize * prod(shape)].view(dtype)
        if lb is None:
            return view.reshape(())
        return FArr(view.reshape(shape, order="F"), lb)

    # --- procedure calls -------------------------------------------------------------------------
    def _find_proc(self, name: str, node) -> Node:
        f = self.frame
        while f is not None:
            p = f.info.contains.get(name)
            if p is not None:
                return p
            f = f.host
        p = self.procs.get(name) or self._used_proc(name)
        if p is None or p.body is None:
            if self._has_interface(name):
                raise _err(node, f"call of procedure {name!r}: it has an interface but no definition in the files")
            raise _err(node, f"call of unknown procedure {name!r}")
        return p

    def _used_proc(self, name: str):
        """The module procedure a USE rename makes visible as `name` (None if none)."""
        f = self.frame
        while f is not None:
            for module, only, renames in f.info.uses:
                remote = used_name(only, renames, name)
                mod = self.modules.get(module)
                if remote is not None and remote != name and mod is not None:
                    p = self._module_frame(module).info.contains.get(remote)
                    if p is not None:
                        return p
            f = f.host
        return None

    def _has_interface(self, name: str) -> bool:
        f = self.frame
        while f is not None:
            if name in f.info.externals:
                return True
            f = f.host
        return False

    def _invoke(self, proc: Node, actuals: list, named: dict, host: Frame | None):
        info = self._info(proc, host.info if host is not None and host.info.node.op == "procedure" else None)
        frame = Frame(info, host)
        params = info.params
        if len(actuals) > len(params):
            raise _err(proc, f"too many arguments in call of {proc.name}")
        bound = dict(zip(params, actuals))
        for k, v in named.items():
            if k not in params:
                raise _err(proc, f"{proc.name} has no argument {k!r}")
            if k in bound:
                raise _err(proc, f"argument {k!r} of {proc.name} given twice")
            bound[k] = v
        bound = {k: v for k, v in bound.items() if v is not ABSENT}  # absent optional actuals
        frame.present = set(bound)
        saved, self.frame = self.frame, frame  # actuals are evaluated: the callee is current now
        try:
            if self.is_c:
                self._bind_c(frame, proc, bound)
            else:
                self._bind_fortran(frame, bound)
                self._materialize_locals(frame)
            sig = self.exec_block(proc.body)
        finally:
            self.frame = saved
        if isinstance(sig, _Goto):
            raise _err(proc, f"GOTO {sig.label}: label not found in an enclosing block of {proc.name}")
        if frame.copyback:
            for orig, tmp in frame.copyback:
                orig[...] = np.reshape(tmp, orig.shape, order="F")
        return self._result(proc, frame)

    def _materialize_locals(self, frame):
        """Fortran locals exist from entry: automatic arrays take their size now."""
        info = frame.info
        for name in info.order:
            if name in frame.vars or name in info.externals or name in info.params:
                continue
            spec = info.specs[name]
            if spec.type is None and spec.dims is None and name not in info.commons:
                continue  # only named by SAVE & co: typed implicitly when first used
            frame.vars[name] = self._materialize(frame, spec)

    def _result(self, proc, frame):
        if proc.kind != "function":
            return None
        if self.is_c:
            return frame.retval
        name = proc.result or proc.name
        b = self.binding(name, frame, proc)
        if isinstance(b, FArr):
            return b.data.copy(order="F")
        return b[()]

    def _bind_fortran(self, frame: Frame, bound: dict):
        info = frame.info
        arrays = []
        for name, actual in bound.items():
            spec = info.specs.get(name) or VarSpec(name, None)
            if spec.dims is None or "allocatable" in spec.attrs or "pointer" in spec.attrs:
                frame.vars[name] = self._bind_scalar_dummy(frame, spec, actual)
            else:
                arrays.append((spec, actual))
        for spec, actual in arrays:  # after scalars: their bounds may use the scalar dummies
            frame.vars[spec.name] = self._bind_array_dummy(frame, spec, actual)

    def _dummy_dtype(self, frame, spec):
        return self.elem_kind(self._spec_type(spec, frame.info), spec.ptr)[0]

    def _bind_scalar_dummy(self, frame, spec, actual):
        if isinstance(actual, FArr):
            if spec.dims is not None:
                return actual  # allocatable / pointer dummy: the caller's descriptor itself
            actual = actual.data
        if isinstance(actual, tuple):  # array element (data, index)
            data, key = actual
            actual = data[key + (Ellipsis,)]
        if isinstance(actual, np.ndarray):
            if spec.dims is not None:
                return FArr(actual, (1,) * actual.ndim)
            if actual.ndim and actual.size >= 1:
                actual = actual.reshape(-1, order="A")[:1].reshape(())
            return self._check_dtype(frame, spec, actual)
        cell = np.empty((), dtype=self._dummy_dtype(frame, spec)) if not isinstance(actual, (Record, str)) \
            else np.empty((), dtype=object)
        self._store_cell(cell, (), actual)
        return cell

    def _check_dtype(self, frame, spec, arr):
        want = self._dummy_dtype(frame, spec)
        have = arr.dtype
        if have != want and not (want.kind == "b" and have.kind in "iu") and not (want == object == have):
            raise InterpError(f"argument {spec.name}: actual of type {have} for a dummy of type {want}")
        return arr

    def _bind_array_dummy(self, frame, spec, actual):
        if isinstance(actual, FArr):
            if actual.data is None:
                raise InterpError(f"argument {spec.name}: unallocated array")
            actual = actual.data
        if isinstance(actual, tuple):  # array element: the tail of the array from it on
            data, key = actual
            flat = _memory_flat(data, spec)
            pos = int(np.ravel_multi_index(key, data.shape, order="F")) if data.ndim else 0
            flat, shape_src = flat[pos:], None
        elif isinstance(actual, np.ndarray):
            if not (actual.flags.f_contiguous or actual.flags.c_contiguous):
                tmp = np.asfortranarray(actual)
                frame.copyback = (frame.copyback or []) + [(actual, tmp)]
                actual = tmp
            flat, shape_src = _memory_flat(actual, spec), actual.shape
        else:  # an expression value
            value = np.asarray(actual)
            flat, shape_src = value.astype(self._dummy_dtype(frame, spec)).ravel(order="F"), value.shape
        self._check_dtype(frame, spec, flat)
        if any(d.hi is None for d in spec.dims):  # assumed shape: the actual's shape
            if shape_src is None or len(shape_src) != len(spec.dims):
                raise InterpError(f"argument {spec.name}: actual of rank {len(shape_src or ())} "
                                  f"for assumed-shape dummy of rank {len(spec.dims)}")
            lb = tuple(1 if d.lo is None else int(self._eval_in(frame, d.lo)) for d in spec.dims)
            shape = shape_src
        else:
            lb, shape = self._bounds(frame, spec.dims, spec.node, assumed_last=len(flat))
        n = prod(shape)
        if n > len(flat):
            raise InterpError(f"argument {spec.name}: dummy of {n} elements on an actual of {len(flat)}")
        return FArr(flat[:n].reshape(shape, order="F"), lb)

    def _bind_c(self, frame: Frame, proc: Node, bound: dict):
        info = frame.info
        for name, actual in bound.items():
            spec = info.specs.get(name)
            if spec is None:
                raise _err(proc, f"parameter {name} of {proc.name} is not declared")
            if spec.dims is not None:  # T a[][n]: a pointer to rows
                ptr = self._as_ptr(actual, spec.name)
                dims = tuple(None if d.hi is None else int(self._eval_in(frame, d.hi)) for d in spec.dims)
                frame.vars[name] = CArr(ptr.buf, ptr.off, (None,) + dims[1:])  # C does not check rows
                continue
            dtype, factory = self.elem_kind(spec.type, spec.ptr)
            cell = np.empty((), dtype=dtype)
            if spec.ptr:
                cell[()] = self._as_ptr(actual, spec.name) if actual is not None else None
            elif isinstance(actual, np.ndarray):  # a by-value argument given as a 1-element array
                self._store_cell(cell, (), actual.reshape(-1)[0])
            else:
                self._store_cell(cell, (), actual)
            frame.vars[name] = cell

    @staticmethod
    def _as_ptr(v, name=""):
        if isinstance(v, Ptr) or v is None:
            return v
        if isinstance(v, CArr):
            return Ptr(v.buf, v.off)
        if isinstance(v, np.ndarray):
            flat = v.ravel(order="K")
            if not np.shares_memory(flat, v) and v.size > 1:
                raise InterpError(f"argument {name}: a non-contiguous array cannot be passed by pointer")
            return Ptr(flat, 0)
        if isinstance(v, (int, np.integer)) and v == 0:
            return None
        raise InterpError(f"argument {name}: {type(v).__name__} given for a pointer")

    def _call_user(self, node: Node):
        if self.is_c and node.name not in self.procs and self.is_cuda_call(node.name):
            return self.cuda_call(node)
        proc = self._find_proc(node.name, node)
        if "__global__" in proc.attrs:
            raise _err(node, f"kernel {proc.name} called without a launch {proc.name}<<<grid, block>>>(...)")
        if self.kernel is None and "__device__" in proc.attrs and "__host__" not in proc.attrs:
            raise _err(node, f"{proc.name} is a __device__ function: host code cannot call it")
        positional, named = [], {}
        for a in node.args:
            if a.op == "namedArg":
                named[a.name] = self._actual(a.value)
            else:
                if named:
                    raise _err(node, "positional argument after a keyword argument")
                positional.append(self._actual(a))
        return self._invoke(proc, positional, named, self._host_frame(proc, self.frame))

    def _actual(self, node: Node):
        """An actual argument: a reference for variables/elements/sections (Fortran), a value otherwise."""
        if self.is_c:
            v = self.eval(node)
            return v.copy() if isinstance(v, Record) else v
        op = node.op
        if op == "ident":
            if self._absent(self.frame, node.name):
                return ABSENT  # passed on as absent to an optional dummy
            if node.name not in self.frame.info.specs and node.name not in self.frame.vars and (
                    node.name in self.procs or node.name in self.frame.info.externals):
                raise _err(node, f"procedure argument {node.name} is not supported by the interpreter")
            b = self.binding(node.name, node=node)
            if b is UNASSOCIATED:
                raise _err(node, f"pointer {node.name} is not associated")
            return b
        if op == "arrayAccess":
            data, key = self._f_place(node)
            if type(data) is ComponentPlaces:  # cd%p%x(1): passed by value
                return data[key]
            if all(type(k) is int for k in key):
                return (data, key)
            return data[key]
        if op == "fieldAccess":
            rec = self.eval(node.base)
            b = self._field(rec, node)
            return b
        v = self.eval(node)
        if isinstance(v, np.ndarray):
            return np.asfortranarray(v).copy(order="F") if v.base is not None else v
        return v

    # --- statements ------------------------------------------------------------------------
    def exec_block(self, block: Node):
        stmts = block.kids
        decls = self._block_decls.get(id(block))
        if decls is None:
            decls = self._block_decls[id(block)] = tuple(
                d.name for s in stmts if s.op == "varDecl" for d in s.declarators)
        if decls:
            vars_ = self.frame.vars
            shadowed = [(n, vars_.get(n)) for n in decls]
        i, n = 0, len(stmts)
        stmt = self._stmt
        sig = None
        while i < n:
            s = stmts[i]
            try:
                sig = stmt[s.op](s)
            except KeyError:
                if s.op in stmt:
                    raise
                raise _err(s, f"statement {s.op} is not supported by the interpreter") from None
            except InterpError as e:  # raised in an expression, which has no line: the statement's
                if getattr(e, "line", 0) is None and s.line is not None and type(e) is InterpError:
                    e.args, e.line = (f"{e.args[0]} (line {s.line})",), s.line
                raise
            if sig is not None:
                if type(sig) is _Goto:
                    j = self._label_index(block).get(sig.label)
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

    def _label_index(self, block):
        idx = self._labels.get(id(block))
        if idx is None:
            idx = self._labels[id(block)] = {
                str(s.ann["label"]): k for k, s in enumerate(block.kids) if "label" in s.ann}
        return idx

    def s_block(self, node):
        return self.exec_block(node)

    def s_nop(self, node):
        return None

    def s_comment(self, node):
        return None

    def s_typeDef(self, node):
        return None

    s_typeAlias = s_enumDef = s_typedefEnum = s_typeDef

    def s_varDecl(self, node):
        frame = self.frame
        attrs = frozenset(_attr_word(a) for a in node.attrs)
        for decl in node.declarators:
            spec = VarSpec(decl.name, node.type, decl.dims, decl.init, decl.ptr, attrs, decl)
            if "static" in attrs:
                b = frame.info.saved.get(id(decl))
                if b is None:
                    b = frame.info.saved[id(decl)] = self._new_storage(spec, frame)
                    self._initial_value(b, spec, frame)
                frame.vars[decl.name] = b
                continue
            b = self._new_storage(spec, frame)
            frame.vars[decl.name] = b  # visible in its own initializer, as in C
            self._initial_value(b, spec, frame)
        return None

    def _initial_value(self, b, spec: VarSpec, frame: Frame):
        if spec.init is not None:
            self._initialize(b, spec, frame)
        elif spec.dims is None and not spec.ptr and (value := self.default_value(spec.type)) is not None:
            self._store_cell(b, (), value)

    def s_assign(self, node):
        lhs, rhs = node.kids
        value = self.eval(rhs)
        if isinstance(value, np.ndarray) and rhs.op in ("ident", "arrayAccess", "fieldAccess"):
            value = value.copy(order="K")  # a view of memory the lhs may overlap
        if self.frame.mask is not None:
            value = self._masked_value(lhs, value, node)
        return self._store(lhs, value, node)

    def _store(self, lhs, value, node):
        """Assign an evaluated value to the reference lhs (node: the statement, for errors)."""
        if self.is_c:
            container, key = self._c_place(lhs)
            return self._c_store(container, key, value, node)
        if lhs.op == "ident":
            b = self.binding(lhs.name, node=lhs)
            if isinstance(b, FArr):
                self._assign_whole_array(b, value, node)
                return None
            if b is UNASSOCIATED:
                raise _err(node, f"pointer {lhs.name} is not associated")
            self._store_cell(b, (), value)
            return None
        if lhs.op == "arrayAccess" and self._is_substring(lhs):
            text, lo, hi = self._substring(lhs)
            self.binding(lhs.base.name)[()] = text[:lo] + str(value)[:hi - lo].ljust(hi - lo) + text[hi:]
            return None
        container, key = self._f_place(lhs)
        if isinstance(container, FArr):
            self._assign_whole_array(container, value, node)
        elif container.dtype == object:
            if key is Ellipsis or any(type(k) is slice for k in key):
                target = container[key]
                for idx in np.ndindex(target.shape):
                    v = value[idx] if isinstance(value, np.ndarray) else value
                    target[idx] = v.copy() if isinstance(v, Record) else v
            else:
                self._store_cell(container, key, value)
        else:
            container[key] = value
        return None

    def _c_store(self, container, key, value, node):
        """Store value into the C place (container, key) found by _c_place."""
        if isinstance(container, CArr):
            raise _err(node, "assignment to an array")
        if container.dtype == object or isinstance(value, (Record, tuple)):
            self._store_cell(container, key, value)
        else:
            if isinstance(value, (Ptr, CArr)):
                raise _err(node, "pointer assigned to a number")
            container[key] = value
        return None

    def _assign_whole_array(self, b: FArr, value, node):
        if b.data is None:  # Fortran 2003: assignment allocates an unallocated allocatable
            if not isinstance(value, np.ndarray):
                raise _err(node, "assignment of a scalar to an unallocated array")
            b.data = np.asfortranarray(value).copy(order="F")
            b.lb = (1,) * value.ndim
            return
        if isinstance(value, np.ndarray) and value.shape != b.data.shape:
            raise _err(node, f"array shapes {value.shape} and {b.data.shape} do not conform")
        if b.data.dtype == object:
            for idx in np.ndindex(b.data.shape):
                v = value[idx] if isinstance(value, np.ndarray) else value
                b.data[idx] = v.copy() if isinstance(v, Record) else v
        else:
            b.data[...] = value

    def s_pointerAssign(self, node):
        lhs, rhs = node.kids
        if lhs.op != "ident":
            raise _err(node, "pointer assignment to a component is not supported")
        b = self.binding(lhs.name, node=lhs)
        null = rhs.op == "intrinsic" and rhs.name == "null"
        if isinstance(b, FArr):
            if null:
                b.data, b.lb = None, None
            elif rhs.op == "ident":
                t = self.binding(rhs.name, node=rhs)
                b.data, b.lb = t.data, t.lb
            else:
                data, key = self._f_place(rhs)
                view = data[key]
                if not isinstance(view, np.ndarray):
                    raise _err(node, "array pointer to a scalar")
                b.data, b.lb = view, (1,) * view.ndim
            return None
        if null:
            target = UNASSOCIATED
        else:
            target = self._actual(rhs)
            if isinstance(target, tuple):
                data, key = target
                target = data[key + (Ellipsis,)]
        self._rebind(lhs.name, target)
        return None

    def _rebind(self, name, target):
        f = self.frame
        while f is not None:
            if name in f.vars or name in f.info.specs:
                f.vars[name] = target
                if name in f.info.saved:
                    f.info.saved[name] = target
            f = f.host
        self.frame.vars[name] = target

    def s_if(self, node):
        cond, then, els = node.kids
        if self._truth(self.eval(cond)):
            return self.exec_block(then)
        if els is not None:
            return self.exec_block(els)
        return None

    def s_do(self, node):
        var, lo, hi, step, body = node.kids
        container, key = self._f_place(var) if var.op != "ident" else (self.binding(var.name, node=var), ())
        dt = container.dtype
        lo_v = convert(ii.as_value(self.eval(lo)), dt)
        hi_v = convert(ii.as_value(self.eval(hi)), dt)
        step_v = convert(ii.as_value(self.eval(step)), dt) if step is not None else dt.type(1)
        if step_v == 0:
            raise _err(node, "DO loop with a zero step")
        if dt.kind in "iu":
            trips = max(0, int(_trunc_div(int(hi_v) - int(lo_v) + int(step_v), int(step_v))))
        else:
            trips = max(0, int((hi_v - lo_v + step_v) / step_v))
        v = lo_v
        run = self.exec_block
        for _ in range(trips):
            container[key] = v
            sig = run(body)
            if sig is not None:
                if sig is EXIT:
                    return None
                if sig is not CYCLE:
                    return sig
            v = container[key] + step_v
        container[key] = v
        return None

    def s_while(self, node):
        cond, body = node.kids
        while self._truth(self.eval(cond)):
            sig = self.exec_block(body)
            if sig is not None:
                if sig is EXIT:
                    break
                if sig is not CYCLE:
                    return sig
        return None

    def s_doWhile(self, node):
        body, cond = node.kids
        while True:
            sig = self.exec_block(body)
            if sig is not None:
                if sig is EXIT:
                    break
                if sig is not CYCLE:
                    return sig
            if not self._truth(self.eval(cond)):
                break
        return None

    def s_for(self, node):
        init, cond, step, body = node.kids
        if init is not None:
            self._stmt[init.op](init)
        while cond is None or self._truth(self.eval(cond)):
            sig = self.exec_block(body)
            if sig is not None:
                if sig is EXIT:
                    break
                if sig is not CYCLE:
                    return sig
            if step is not None:
                self._stmt[step.op](step)
        return None

    def s_switch(self, node):
        """C switch (fallThrough): run from the matching case on, an EXIT leaves the switch.
        Fortran SELECT CASE: run the matching case only; EXIT and CYCLE go to the loop."""
        selector, cases, fall_through = node.kids
        start = self._matching_case(cases, self.eval(selector))
        if start is None:
            return None
        if not fall_through:
            return self.exec_block(cases[start].body)
        for case in cases[start:]:
            sig = self.exec_block(case.body)
            if sig is not None:
                return None if sig is EXIT else sig
        return None

    def _matching_case(self, cases, value):
        """Index of the first case whose values hold `value`, else of the default, else None."""
        default = None
        for k, case in enumerate(cases):
            if not case.values:
                default = k if default is None else default
            elif any(self._case_holds(v, value) for v in case.values):
                return k
        return default

    def _case_holds(self, v, x) -> bool:
        """x == v, or lo <= x <= hi for a caseRange (either end open)."""
        if v.op != "caseRange":
            value = self.eval(v)
            return _case_key(value, x) == _case_key(x, value)
        lo = None if v.lo is None else self.eval(v.lo)
        hi = None if v.hi is None else self.eval(v.hi)
        return (lo is None or _case_key(lo, x) <= _case_key(x, lo)) and \
            (hi is None or _case_key(x, hi) <= _case_key(hi, x))

    def s_exit(self, node):
        return EXIT

    def s_cycle(self, node):
        return CYCLE

    def s_goto(self, node):
        return _Goto(str(node.label))

    def s_computedGoto(self, node):
        """An index outside 1..n goes on to the next statement (Fortran 2008 8.2.3)."""
        labels, index = node.kids
        k = int(np.real(self.eval(index)))
        return _Goto(labels[k - 1]) if 1 <= k <= len(labels) else None

    def s_arithmeticIf(self, node):
        """The sign of a stepped real is the sign of its real part (complex step)."""
        value = np.real(self.eval(node.kids[0]))
        return _Goto(node.kids[1] if value < 0 else node.kids[2] if value == 0 else node.kids[3])

    def s_return(self, node):
        if node.value is not None:
            value = self.eval(node.value)
            proc = self.frame.info.node
            if proc.type is not None and proc.type.op == "type" and proc.type.base != "void" \
                    and not isinstance(value, (Ptr, Record, CArr)) and value is not None:
                value = convert(ii.as_value(value), self.elem_kind(proc.type)[0])
            elif isinstance(value, CArr):
                value = Ptr(value.buf, value.off)
            self.frame.retval = value
        return RETURN

    def s_stop(self, node):
        raise ProgramStop(None if node.code is None else self.eval(node.code))

    def s_call(self, node):
        self._call_user(node)
        return None

    def s_intrinsic(self, node):
        self.e_intrinsic(node)
        return None

    def s_allocate(self, node):
        target, dims, type_ = node.kids
        if self.is_c:
            container, key = self._c_place(target)
            count = int(self.eval(dims[0]))
            if type_ is None:
                raise _err(node, "malloc without an element type")
            dtype, factory = self.elem_kind(type_)
            container[key] = Ptr(self._new_array((max(count, 0),), dtype, factory), 0)
            return None
        b = self._f_binding_of(target)
        if not isinstance(b, FArr):
            raise _err(node, "ALLOCATE of a scalar is not supported")
        if b.data is not None and not self._is_pointer(target):
            raise _err(node, "ALLOCATE of an allocated array")
        dim_nodes = tuple(d if d.op == "dim" else Node("dim", (None, d)) for d in dims)
        lb, shape = self._bounds(self.frame, dim_nodes, node)
        spec = self._f_spec_of(target)
        dtype, factory = self.elem_kind(self._spec_type(spec, self.frame.info), 0)
        b.data, b.lb = self._new_array(shape, dtype, factory), lb
        return None

    def _is_pointer(self, target):
        spec = self._f_spec_of(target)
        return "pointer" in spec.attrs

    def _f_spec_of(self, target):
        if target.op == "ident":
            f = self.frame
            while f is not None:
                if target.name in f.info.specs:
                    return f.info.specs[target.name]
                for module, only, renames in f.info.uses:
                    m = self._module_frame(module).info
                    remote = used_name(only, renames, target.name)
                    if remote in m.specs:
                        return m.specs[remote]
                f = f.host
        if target.op == "fieldAccess":
            rec = self.eval(target.base)
            for spec in self._record_fields.get(rec.tname, ()):
                if spec.name == target.field:
                    return spec
        raise _err(target, "cannot find the declaration of the allocated object")

    def _f_binding_of(self, target):
        if target.op == "ident":
            return self.binding(target.name, node=target)
        if target.op == "fieldAccess":
            return self._field(self.eval(target.base), target)
        raise _err(target, f"cannot allocate {target.op}")

    def s_deallocate(self, node):
        target = node.target
        if self.is_c:
            return None  # free: the buffer stays reachable only through stale pointers
        b = self._f_binding_of(target)
        if not isinstance(b, FArr) or b.data is None:
            raise _err(node, "DEALLOCATE of an unallocated array")
        b.data, b.lb = None, None
        return None

    def s_io(self, node):
        kind = node.kind.lower()
        if kind in _PASSIVE_IO:
            return None
        if kind not in ("print", "write"):
            raise _err(node, f"{kind.upper()} statement is not supported by the interpreter")
        self.output += " ".join(_render(self.eval(i)) for i in node.items) + "\n"
        return None

    # --- expressions -----------------------------------------------------------------------------
    def eval(self, node: Node):
        try:
            return self._expr[node.op](node)
        except KeyError:
            if node.op in self._expr:
                raise
            raise _err(node, f"expression {node.op} is not supported by the interpreter") from None

    def e_intCst(self, node):
        v = self._consts.get(id(node))
        if v is None:
            value, kind = node.kids
            if kind is None:
                kind = 4 if -2**31 <= value < 2**31 else 8
            v = self._consts[id(node)] = INT_KINDS[kind].type(value)
        return v

    def e_realCst(self, node):
        v = self._consts.get(id(node))
        if v is None:
            v = self._consts[id(node)] = _parse_real(node.text, node.kind, node)
        return v

    def e_boolCst(self, node):
        return np.int32(node.value) if self.is_c else np.bool_(node.value)

    def e_stringCst(self, node):
        return node.value

    def e_complexCst(self, node):
        if self.complex_step:
            raise _err(node, "complex step on a program with complex constants is not supported")
        re_, im = ii.as_value(self.eval(node.re)), ii.as_value(self.eval(node.im))
        kinds = [v.dtype.itemsize for v in (re_, im) if v.dtype.kind == "f"]
        dt = COMPLEX_KINDS[max(kinds) if kinds else 4]
        return dt.type(complex(re_, im))

    def e_ident(self, node):
        b = self.frame.vars.get(node.kids[0])
        if b is None:
            b = self.binding(node.kids[0], node=node)
        if type(b) is np.ndarray:
            return b[()]
        if type(b) is FArr:
            if b.data is None:
                raise _err(node, f"array {node.kids[0]} is not allocated")
            return b.data
        if b is UNASSOCIATED:
            raise _err(node, f"pointer {node.kids[0]} is not associated")
        return b  # CArr

    def e_arrayAccess(self, node):
        if self.is_c:
            place = self._c_index(node)
            if type(place) is tuple:
                return place[0][place[1]]
            return place
        if self._is_substring(node):
            text, lo, hi = self._substring(node)
            return text[lo:hi]
        data, key = self._f_place(node)
        return data[key]

    def _is_substring(self, node):
        base = node.kids[0]
        if base.op != "ident" or len(node.kids[1]) != 1 or node.kids[1][0].op != "arrayTriplet":
            return False
        b = self.binding(base.name, node=base)
        return type(b) is np.ndarray and b.dtype == object and isinstance(b[()], str)

    def _substring(self, node):
        """(text, start, stop) of a character substring s(lo:hi), as a Python slice."""
        text = self.eval(node.kids[0])
        t = node.kids[1][0]
        lo = 1 if t.lo is None else int(self.eval(t.lo))
        hi = len(text) if t.hi is None else int(self.eval(t.hi))
        if t.stride is not None or lo < 1 or hi > len(text):
            raise _err(node, f"substring ({lo}:{hi}) out of range of a string of length {len(text)}")
        return text, lo - 1, max(lo - 1, hi)

    def e_fieldAccess(self, node):
        b = self._field(self.eval(node.base), node)
        if type(b) is np.ndarray:
            return b[()]
        if type(b) is FArr:
            if b.data is None:
                raise _err(node, f"component {node.field} is not allocated")
            return b.data
        return b

    def _field(self, rec, node):
        if isinstance(rec, np.ndarray) and rec.dtype == object and not self.is_c:
            # a component of an array of records: the array of the components' values
            out = [self._field(r, node) for r in rec.ravel(order="F")]
            vals = [b[()] if isinstance(b, np.ndarray) else b for b in out]
            return np.array(vals).reshape(rec.shape, order="F")
        if not isinstance(rec, Record):
            raise _err(node, f"field {node.field} of a non-record value")
        b = rec.fields.get(node.field)
        if b is None:
            raise _err(node, f"{rec.tname} has no field {node.field!r}")
        return b

    def e_address(self, node):
        if node.ann.get("pointer_sum"):  # C `p + k` (may point one past the end): pointer arithmetic
            base, (index,) = node.expr.kids
            return self.e_add(Node("add", (base, index), node.ann))
        place = self._c_index(node.expr) if node.expr.op == "arrayAccess" else self._c_place(node.expr)
        if isinstance(place, CArr):
            return Ptr(place.buf, place.off)
        container, key = place
        if isinstance(container, CArr):
            return Ptr(container.buf, container.off)
        if container.ndim == 0:
            return Ptr(container.reshape(1), 0)
        return Ptr(container, key)

    def e_deref(self, node):
        p = self.eval(node.expr)
        if isinstance(p, CArr):
            return self._c_row(p, 0, node)
        if type(p) is not Ptr:
            raise _err(node, "dereference of a null or non-pointer value")
        if not 0 <= p.off < len(p.buf):
            raise _err(node, "dereference out of bounds")
        return p.buf[p.off]

    def e_call(self, node):
        return self._call_user(node)

    def e_namedArg(self, node):
        raise _err(node, "keyword argument outside a call")

    def e_cast(self, node):
        v = self.eval(node.expr)
        t = node.type
        if t.op == "pointerType" or isinstance(v, (Ptr, CArr)) or v is None:
            return Ptr(v.buf, v.off) if isinstance(v, CArr) else v
        dtype, factory = self.elem_kind(t)
        if factory is not None or dtype == object:
            return v
        return convert(ii.as_value(v), dtype)

    def e_sizeof(self, node):
        arg = node.arg
        if arg.op in ("type", "typeRef", "pointerType"):
            return np.int64(self._sizeof_type(arg))
        v = self.eval(arg)
        if isinstance(v, CArr):
            return np.int64(prod(v.dims) * self._sizeof_elem(v.buf.flat[0] if v.buf.dtype == object
                                                              else v.buf.dtype))
        return np.int64(self._sizeof_elem(v if isinstance(v, (Record, Ptr)) or v is None else v.dtype))

    def _sizeof_type(self, t):
        dtype, factory = self.elem_kind(t)
        if factory is not None:
            return self._sizeof_elem(factory())
        return 8 if dtype == object else dtype.itemsize

    def _sizeof_elem(self, x):
        if isinstance(x, np.dtype):
            return 8 if x == object else x.itemsize
        if isinstance(x, UnionRecord):
            return len(x.raw)
        if isinstance(x, Record):
            return sum(self._sizeof_binding(b) for b in x.fields.values())
        return 8

    def _sizeof_binding(self, b):
        if isinstance(b, CArr):
            return prod(b.dims) * self._sizeof_elem(b.buf[0] if b.buf.dtype == object else b.buf.dtype)
        return self._sizeof_elem(b[()] if b.dtype == object else b.dtype)

    def e_ifExpr(self, node):
        cond, a, b = node.kids
        return self.eval(a) if self._truth(self.eval(cond)) else self.eval(b)

    def e_arrayConstructor(self, node):
        vals = [self.eval(i) for i in node.items]
        if self.is_c:
            return tuple(vals)
        return self._concat_values(vals)

    @staticmethod
    def _concat_values(vals):
        """The values (scalars, arrays, implied DO expansions) one after the other, as one 1-d
        array of their common type; empty expansions do not take part in the type."""
        parts = [np.asarray(v).ravel(order="F") for v in vals]
        parts = [p for p in parts if p.size] or parts[:1]
        if not parts:
            return np.zeros(0, dtype=np.float32)
        dt = parts[0].dtype
        for p in parts[1:]:
            dt = promote(dt, p.dtype) if dt.kind in "biufc" and p.dtype.kind in "biufc" else np.dtype(object)
        return np.concatenate([p.astype(dt) for p in parts])

    def e_arrayTriplet(self, node):
        raise _err(node, "array section outside an array reference")

    def e_star(self, node):
        raise _err(node, "'*' outside a declaration or I/O list")

    # --- arithmetic ----------------------------------------------------------------------------
    def _arith(self, node, fn, int_fn=None):
        a = self.eval(node.kids[0])
        b = self.eval(node.kids[1])
        if self.is_c and (type(a) in (Ptr, CArr) or type(b) in (Ptr, CArr) or a is None or b is None):
            return self._ptr_arith(node, a, b)
        try:
            dt = promote(a.dtype, b.dtype, self.is_c)
        except (AttributeError, TypeError):
            raise _err(node, f"{node.op} of {type(a).__name__} and {type(b).__name__}") from None
        if a.dtype != dt:
            a = convert(a, dt)
        if b.dtype != dt:
            b = convert(b, dt)
        if int_fn is not None and dt.kind in "iu":
            return int_fn(node, a, b)
        return fn(a, b)

    def e_add(self, node):
        return self._arith(node, _add)

    def e_sub(self, node):
        return self._arith(node, _sub)

    def e_mul(self, node):
        return self._arith(node, _mul)

    def e_div(self, node):
        return self._arith(node, _truediv, self._int_div)

    def e_mod(self, node):
        return self._arith(node, np.fmod, self._int_mod)

    def _int_div(self, node, a, b):
        if np.any(b == 0):
            raise _err(node, "integer division by zero")
        q = np.abs(a) // np.abs(b)
        return q * np.sign(a) * np.sign(b)

    def _int_mod(self, node, a, b):
        if np.any(b == 0):
            raise _err(node, "integer modulo by zero")
        return np.fmod(a, b)

    def e_power(self, node):
        a = ii.as_value(self.eval(node.left))
        b = ii.as_value(self.eval(node.right))
        if b.dtype.kind in "iu":
            if a.dtype.kind in "iu":
                dt = promote(a.dtype, b.dtype)
                return _int_power(convert(a, dt), int(b) if not isinstance(b, np.ndarray) else b, node)
            if isinstance(b, np.ndarray):
                return np.power(a, b.astype(a.dtype))
            return _powi(a, int(b))
        dt = promote(a.dtype, b.dtype)
        return ii.real_power(convert(a, dt), convert(b, dt))

    def e_neg(self, node):
        v = self.eval(node.expr)
        if self.is_c and v.dtype.kind == "b":
            v = np.int32(v)
        return -v

    def e_pos(self, node):
        return self.eval(node.expr)

    def e_not(self, node):
        v = self.eval(node.expr)
        if self.is_c:
            return np.int32(not self._truth(v))
        return np.logical_not(v)

    def e_bitNot(self, node):
        return ~self.eval(node.expr)

    def _compare(self, node, fn):
        a = self.eval(node.kids[0])
        b = self.eval(node.kids[1])
        if isinstance(a, str) or isinstance(b, str):
            r = fn(str(a).rstrip(" "), str(b).rstrip(" "))
        elif self.is_c and (type(a) in (Ptr, CArr) or type(b) in (Ptr, CArr) or a is None or b is None):
            r = fn(*_ptr_keys(a, b, node))
        else:
            dt = promote(a.dtype, b.dtype, self.is_c)
            a, b = convert(a, dt), convert(b, dt)
            if self.complex_step and dt.kind == "c":  # complex step: branches follow the real parts
                a, b = np.real(a), np.real(b)
            r = fn(a, b)
        return np.int32(r) if self.is_c else (np.bool_(r) if not isinstance(r, np.ndarray) else r)

    def e_eq(self, node):
        return self._compare(node, _eq)

    def e_ne(self, node):
        return self._compare(node, _ne)

    def e_lt(self, node):
        return self._compare(node, _lt)

    def e_le(self, node):
        return self._compare(node, _le)

    def e_gt(self, node):
        return self._compare(node, _gt)

    def e_ge(self, node):
        return self._compare(node, _ge)

    def e_and(self, node):
        a = self.eval(node.left)
        if isinstance(a, np.ndarray):
            return np.logical_and(a, self.eval(node.right))
        if not self._truth(a):
            return np.int32(0) if self.is_c else np.bool_(False)
        b = self.eval(node.right)
        if isinstance(b, np.ndarray):
            return np.logical_and(a, b)
        return np.int32(self._truth(b)) if self.is_c else np.bool_(self._truth(b))

    def e_or(self, node):
        a = self.eval(node.left)
        if isinstance(a, np.ndarray):
            return np.logical_or(a, self.eval(node.right))
        if self._truth(a):
            return np.int32(1) if self.is_c else np.bool_(True)
        b = self.eval(node.right)
        if isinstance(b, np.ndarray):
            return np.logical_or(a, b)
        return np.int32(self._truth(b)) if self.is_c else np.bool_(self._truth(b))

    def e_eqv(self, node):
        return np.equal(np.asarray(self.eval(node.left), bool), np.asarray(self.eval(node.right), bool))[()]

    def e_neqv(self, node):
        return np.not_equal(np.asarray(self.eval(node.left), bool), np.asarray(self.eval(node.right), bool))[()]

    def e_concat(self, node):
        return str(self.eval(node.left)) + str(self.eval(node.right))

    def _bitop(self, node, fn):
        return self._arith(node, fn)

    def e_bitAnd(self, node):
        return self._bitop(node, np.bitwise_and)

    def e_bitOr(self, node):
        return self._bitop(node, np.bitwise_or)

    def e_bitXor(self, node):
        return self._bitop(node, np.bitwise_xor)

    def e_lShift(self, node):
        return self._bitop(node, np.left_shift)

    def e_rShift(self, node):
        return self._bitop(node, np.right_shift)

    @staticmethod
    def _truth(v):
        if type(v) is Ptr:
            return True
        if v is None:
            return False
        if isinstance(v, np.ndarray):
            raise InterpError("array used as a condition")
        return bool(v)

    def _ptr_arith(self, node, a, b):
        if isinstance(a, CArr):
            a = Ptr(a.buf, a.off)
        if isinstance(b, CArr):
            b = Ptr(b.buf, b.off)
        op = node.op
        if op == "add" and type(a) is Ptr and type(b) is not Ptr and b is not None:
            return Ptr(a.buf, a.off + int(b))
        if op == "add" and type(b) is Ptr and type(a) is not Ptr and a is not None:
            return Ptr(b.buf, b.off + int(a))
        if op == "sub" and type(a) is Ptr and type(b) is Ptr:
            return np.int64(a.off - b.off)
        if op == "sub" and type(a) is Ptr and b is not None:
            return Ptr(a.buf, a.off - int(b))
        raise _err(node, f"{op} on pointers is not supported")

    # --- places (lvalues) --------------------------------------------------------------------
    def _f_place(self, node):
        """(container, key) of a Fortran variable reference; container[key] reads or writes it."""
        op = node.op
        if op == "ident":
            b = self.binding(node.name, node=node)
            if isinstance(b, FArr):
                if b.data is None:
                    raise _err(node, f"array {node.name} is not allocated")
                return b.data, Ellipsis
            return b, ()
        if op == "fieldAccess":
            rec = self.eval(node.base)
            if _is_records(rec):  # ps%mass: the component in every record
                return self._component_places(rec, node), ()
            b = self._field(rec, node)
            if isinstance(b, FArr):
                return b.data, Ellipsis
            return b, ()
        if op == "arrayAccess":
            base = node.base
            if base.op == "ident":
                b = self.binding(base.name, node=base)
            elif base.op == "fieldAccess":
                rec = self.eval(base.base)
                if _is_records(rec):  # cd%p%x(nd): the element of the component in every record
                    return self._component_places(rec, base, node), ()
                b = self._field(rec, base)
            else:
                raise _err(node, f"indexing of {base.op}")
            if type(b) is not FArr:
                if isinstance(b, np.ndarray) and b.dtype == object and isinstance(b[()], str):
                    raise _err(node, "character substrings are not supported by the interpreter")
                raise _err(node, f"{base.kids[0]} is not an array")
            data = b.data
            if data is None:
                raise _err(node, "array is not allocated")
            return data, self._f_key(node, data.shape, b.lb)
        if op == "deref":
            raise _err(node, "deref in Fortran")
        raise _err(node, f"{op} is not a variable")

    def _component_places(self, records, field, indexed=None) -> ComponentPlaces:
        """The places of component field.field of each record (indexed: the arrayAccess of
        field whose element is meant, `x(nd)` of `p%x(nd)`)."""
        cells = []
        for idx in np.ndindex(records.shape):
            b = self._field(records[idx], field)
            if indexed is None:
                cells.append((b.data, Ellipsis) if isinstance(b, FArr) else (b, ()))
            elif type(b) is FArr and b.data is not None:
                cells.append((b.data, self._f_key(indexed, b.data.shape, b.lb)))
            else:
                raise _err(indexed, f"component {field.field} is not an allocated array")
        return ComponentPlaces(cells, records.shape)

    def _f_key(self, node, shape, lb):
        idx = node.kids[1]
        if len(idx) != len(shape):
            raise _err(node, f"{len(idx)} subscripts for an array of rank {len(shape)}")
        key = []
        for d, i in enumerate(idx):
            if i.op == "arrayTriplet":
                key.append(self._f_slice(i, lb[d], shape[d]))
                continue
            v = self.eval(i)
            if isinstance(v, np.ndarray):
                k = v.astype(np.int64) - lb[d]
                if k.size and (k.min() < 0 or k.max() >= shape[d]):
                    raise _err(node, "vector subscript out of bounds")
                key.append(k)
                continue
            k = int(v) - lb[d]
            if not 0 <= k < shape[d]:
                raise _err(node, f"subscript {int(v)} out of bounds {lb[d]}:{lb[d] + shape[d] - 1}")
            key.append(k)
        return tuple(key)

    def _f_slice(self, t, lb, extent):
        lo, hi, st = t.kids
        lo_v = lb if lo is None else int(self.eval(lo))
        hi_v = lb + extent - 1 if hi is None else int(self.eval(hi))
        st_v = 1 if st is None else int(self.eval(st))
        if st_v == 0:
            raise _err(t, "array section with a zero stride")
        start = lo_v - lb
        n = max(0, _trunc_div(hi_v - lo_v + st_v, st_v))
        if n == 0:
            return slice(0, 0)
        last = start + (n - 1) * st_v
        if not (0 <= start < extent and 0 <= last < extent):
            raise _err(t, "array section out of bounds")
        stop = last + (1 if st_v > 0 else -1)
        return slice(start, None if stop < 0 else stop, st_v)

    def _c_place(self, node):
        op = node.op
        if op == "ident":
            b = self.frame.vars.get(node.name)
            if b is None:
                b = self.binding(node.name, node=node)
            return (b, ()) if type(b) is np.ndarray else (b, None)
        if op == "arrayAccess":
            place = self._c_index(node)
            return place if type(place) is tuple else (place, None)
        if op == "deref":
            p = self.eval(node.expr)
            if isinstance(p, CArr):
                p = Ptr(p.buf, p.off)
            if type(p) is not Ptr:
                raise _err(node, "dereference of a null or non-pointer value")
            if not 0 <= p.off < len(p.buf):
                raise _err(node, "dereference out of bounds")
            return p.buf, p.off
        if op == "fieldAccess":
            b = self._field(self.eval(node.base), node)
            return (b, ()) if type(b) is np.ndarray else (b, None)
        if op == "cast":
            return self._c_place(node.expr)
        raise _err(node, f"{op} is not assignable")

    def _c_index(self, node):
        """C a[i]: an element place (buf, k) or, for a row of a multi-dimensional array, a CArr."""
        base = self.eval(node.kids[0])
        idx = node.kids[1]
        if len(idx) != 1:
            raise _err(node, "C array access with several indices")
        i = int(self.eval(idx[0]))
        if type(base) is CArr:
            return self._c_row(base, i, node)
        if type(base) is Ptr:
            k = base.off + i
            if not 0 <= k < len(base.buf):
                raise _err(node, "pointer index out of bounds")
            return base.buf, k
        raise _err(node, "indexing of a non-array value")

    def _c_row(self, arr: CArr, i, node):
        dims = arr.dims
        if dims[0] is not None and not 0 <= i < dims[0]:
            raise _err(node, f"index {i} out of bounds 0:{dims[0] - 1}")
        if len(dims) == 1:
            k = arr.off + i
            if not 0 <= k < len(arr.buf):
                raise _err(node, "index out of bounds")
            return arr.buf, k
        return CArr(arr.buf, arr.off + i * prod(dims[1:]), dims[1:])

    # --- intrinsics ---------------------------------------------------------------------------------
    def e_intrinsic(self, node):
        name = node.name
        special = _SPECIAL.get(name)
        if special is not None:
            return getattr(self, special)(node)
        fn = self._intrinsics.get(name)
        if fn is None:
            if self.is_c and self.is_cuda_call(name):
                return self.cuda_call(node)
            raise _err(node, f"intrinsic {name} is not supported by the interpreter")
        args, kw = [], {}
        for a in node.args:
            if a.op == "namedArg":
                kw[a.name] = self.eval(a.value)
            else:
                args.append(self.eval(a))
        try:
            r = fn(*args, **kw)
        except (TypeError, ValueError, KeyError, IndexError) as e:
            raise _err(node, f"bad call of intrinsic {name}: {e}") from None
        if isinstance(r, np.ndarray) and r.ndim == 0:
            return r[()]
        return r

    def _array_desc(self, node):
        """(data, lower bounds) of an array argument of an inquiry intrinsic."""
        if node.op in ("ident", "fieldAccess"):
            b = self.binding(node.name, node=node) if node.op == "ident" else \
                self._field(self.eval(node.base), node)
            if isinstance(b, FArr):
                if b.data is None:
                    raise _err(node, "inquiry on an unallocated array")
                return b.data, b.lb
        v = np.asarray(self.eval(node))
        return v, (1,) * v.ndim

    def _inquiry_args(self, node):
        pos = [a for a in node.args if a.op != "namedArg"]
        kw = {a.name: a.value for a in node.args if a.op == "namedArg"}
        names = ("array", "dim", "kind")
        for n, a in zip(names, pos):
            kw[n] = a
        data, lb = self._array_desc(kw["array"])
        dim = int(self.eval(kw["dim"])) if "dim" in kw else None
        if dim is not None and not 1 <= dim <= data.ndim:
            raise _err(node, f"dim={dim} out of range for rank {data.ndim}")
        return data, lb, dim

    def i_size(self, node):
        data, lb, dim = self._inquiry_args(node)
        return np.int32(data.size if dim is None else data.shape[dim - 1])

    def i_shape(self, node):
        data, lb, dim = self._inquiry_args(node)
        return np.array(data.shape, dtype=np.int32)

    def i_lbound(self, node):
        data, lb, dim = self._inquiry_args(node)
        lbs = [l if n > 0 else 1 for l, n in zip(lb, data.shape)]
        return np.int32(lbs[dim - 1]) if dim is not None else np.array(lbs, dtype=np.int32)

    def i_ubound(self, node):
        data, lb, dim = self._inquiry_args(node)
        ubs = [l + n - 1 if n > 0 else 0 for l, n in zip(lb, data.shape)]
        return np.int32(ubs[dim - 1]) if dim is not None else np.array(ubs, dtype=np.int32)

    def i_allocated(self, node):
        b = self._f_binding_of(node.args[0])
        return np.bool_(isinstance(b, FArr) and b.data is not None)

    def i_associated(self, node):
        arg = node.args[0]
        b = self._f_binding_of(arg)
        if isinstance(b, FArr):
            return np.bool_(b.data is not None)
        return np.bool_(b is not UNASSOCIATED)

    def i_present(self, node):
        arg = node.args[0]
        if arg.op != "ident":
            raise _err(node, "present() of a non-name")
        return np.bool_(arg.name in (self.frame.present or ()))

    def i_null(self, node):
        raise _err(node, "null() outside a pointer assignment")

    def i_printf(self, node):
        args = [self.eval(a) for a in node.args]
        if not args or not isinstance(args[0], str):
            raise _err(node, "printf without a literal format")
        fmt = re.sub(r"%([-+ #0]*\d*(?:\.\d+)?)(?:hh|h|ll|l|z|L)?([diouxXeEfgGcsp%])",
                     lambda m: "%" + m.group(1) + ("d" if m.group(2) in "iu" else m.group(2)), args[0])
        vals = tuple(_printf_value(v) for v in args[1:])
        try:
            text = fmt % vals
        except (TypeError, ValueError):
            text = args[0] + " " + " ".join(map(_render, vals))
        self.output += text
        return np.int32(len(text))

    def i_alloc_call(self, node):
        raise _err(node, f"{node.name} outside the allocate/deallocate forms")



_SPECIAL = {"size": "i_size", "shape": "i_shape", "lbound": "i_lbound", "ubound": "i_ubound",
            "allocated": "i_allocated", "associated": "i_associated", "present": "i_present",
            "null": "i_null", "printf": "i_printf", "malloc": "i_alloc_call", "free": "i_alloc_call"}


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------

def _is_records(value) -> bool:
    """An array of Fortran records (derived-type values)."""
    return (isinstance(value, np.ndarray) and value.dtype == object and value.ndim > 0 and value.size > 0
            and isinstance(value.flat[0], Record))


def _case_key(a, b):
    """A case value or selector made comparable with the other: a Fortran string blank-padded
    to the longer length, a number as itself."""
    if isinstance(a, str):
        return a.ljust(len(b)) if isinstance(b, str) else a
    return a.item() if isinstance(a, np.generic) else a


# I/O statements the interpreter runs as no-ops: files are not modelled (WRITE to any unit
# appends to `output`, like PRINT), and a FORMAT statement is only data for a WRITE.
_PASSIVE_IO = frozenset(("open", "close", "rewind", "inquire", "backspace", "endfile", "format"))


def _bad_kind(type_node):
    raise _err(type_node, f"kind {type_node.kind} of {type_node.base} is not supported")


def _add(a, b):
    return a + b


def _sub(a, b):
    return a - b


def _mul(a, b):
    return a * b


def _truediv(a, b):
    return a / b


def _eq(a, b):
    return a == b


def _ne(a, b):
    return a != b


def _lt(a, b):
    return a < b


def _le(a, b):
    return a <= b


def _gt(a, b):
    return a > b


def _ge(a, b):
    return a >= b


def _ptr_keys(a, b, node):
    """Comparable keys of two C pointer operands (NULL is None or the integer 0)."""
    def key(p):
        if isinstance(p, CArr):
            return (id(p.buf.base if p.buf.base is not None else p.buf), p.off)
        if type(p) is Ptr:
            return (id(p.buf.base if p.buf.base is not None else p.buf), p.off)
        if p is None or (not isinstance(p, (Ptr, CArr)) and p == 0):
            return (0, 0)
        raise _err(node, "comparison of a pointer with a number")
    ka, kb = key(a), key(b)
    if ka[0] != kb[0] and node.op not in ("eq", "ne"):
        raise _err(node, "ordering of pointers into different buffers")
    return ka, kb


def _trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _int_power(a, n, node):
    """Integer ** integer; a negative power truncates 1/a**|n| toward zero."""
    if isinstance(n, np.ndarray) or isinstance(a, np.ndarray):
        raise _err(node, "integer ** on arrays is not supported")
    if n >= 0:
        return _powi(a, n)
    if a == 0:
        raise _err(node, "0 ** negative integer")
    if a == 1 or a == -1:
        return a.dtype.type(a if n % 2 else 1)
    return a.dtype.type(0)


def _powi(x, n: int):
    """x**n by repeated squaring in the type of x (gfortran's _gfortran_pow / __builtin_powi)."""
    if n < 0:
        return x.dtype.type(1) / _powi(x, -n) if not isinstance(x, np.ndarray) else 1 / _powi(x, -n)
    result = None
    while n:
        if n & 1:
            result = x if result is None else result * x
        n >>= 1
        if n:
            x = x * x
    if result is None:
        return np.ones_like(x) if isinstance(x, np.ndarray) else x.dtype.type(1)
    return result


def _memory_flat(arr, spec):
    """The 1-D view of an array's memory, in column-major order for a Fortran array."""
    if arr.flags.f_contiguous:
        return arr.ravel(order="F")
    if arr.ndim <= 1 or arr.flags.c_contiguous:
        return arr.ravel(order="K")
    raise InterpError(f"argument {spec.name}: actual array is not contiguous")


def _flatten_c(value):
    if isinstance(value, tuple):
        out = []
        for v in value:
            out.extend(_flatten_c(v))
        return out
    if isinstance(value, np.ndarray):
        return list(value.ravel())
    return [value]


def _printf_value(v):
    if isinstance(v, np.generic):
        return v.item()
    if type(v) is Ptr:
        return f"0x{v.off:x}"
    return v


def _render(v):
    if isinstance(v, np.ndarray):
        return " ".join(_render(x) for x in v.ravel(order="F"))
    if isinstance(v, (np.bool_, bool)):
        return "T" if v else "F"
    if isinstance(v, np.generic):
        return repr(v.item()) if v.dtype.kind == "f" else str(v.item())
    return str(v)


def _parse_real(text: str, kind: int, node):
    """The literal `text` rounded once, directly to the precision of `kind`."""
    if kind == 8:
        return np.float64(text)
    if kind in (10, 16):
        return np.longdouble(text)
    if kind != 4:
        raise _err(node, f"real kind {kind} is not supported")
    from fractions import Fraction
    exact = Fraction(text)
    f = np.float32(float(text))
    best = f
    for cand in (np.nextafter(f, np.float32(np.inf)), np.nextafter(f, np.float32(-np.inf))):
        if np.isfinite(cand):
            d_best, d_cand = abs(Fraction(float(best)) - exact), abs(Fraction(float(cand)) - exact)
            if d_cand < d_best or (d_cand == d_best and int(cand.view(np.int32)) % 2 == 0):
                best = cand
    return best
