"""The IL interpreter: the state of a run, and the tables that give every IL operator its
meaning (the semantics itself is in the modules this one assembles).

`Interpreter` holds what a run needs: the file's procedures, modules and types, the frames,
COMMON blocks and saved variables, the output, and the dispatch tables (operator -> function).
The modules of the package are plain functions of the interpreter `it`; they import the
modules below them and reach those above only through the few methods of `Interpreter` listed
under "upward calls". Import order, lowest first: intrinsics, complex_step, values, scope,
memory, frames, places, constructs, stack, calls, intrinsic_calls, expressions, statements,
cuda_threads, cuda, machine.
"""
from __future__ import annotations

from ..enums import ENUM_OPS, ENUM_TYPE, enumerator_values
from ..il import Node, walk
from . import calls, constructs, cuda, expressions, frames, stack, statements
from . import complex_step as cs
from . import intrinsics as ii
from .scope import Frame, ScopeInfo
from .values import InterpError, err

# IL operator -> the function that gives its meaning (docs/semantics.md is generated from them).
STATEMENTS = {**statements.STATEMENTS, "kernelLaunch": cuda.s_kernelLaunch}
EXPRESSIONS = expressions.EXPRESSIONS
# Operators that are parts of another construct, and the function that reads them.
PARTS = {"case": statements.s_switch, "caseRange": statements.case_holds, "dataRepeat": constructs.data_values}


class Interpreter:
    """it = Interpreter(file_node); it.call("head", args); it.output (see the package doc)."""

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
        self.ad_stack = stack.ADStack()  # the push/pop stack of adjoint code (stack.py)
        self.procs: dict[str, Node] = {}
        self.proc_module: dict[str, str] = {}
        self.modules: dict[str, Node] = {}
        self.types: dict[str, Node] = {}
        self.aliases: dict[str, Node] = {}
        self._infos: dict[int, ScopeInfo] = {}
        self._module_frames: dict[str, Frame] = {}
        self._commons: dict = {}
        self._labels: dict[int, dict] = {}
        self._block_decls: dict[int, tuple] = {}
        self._consts: dict[int, object] = {}
        self._record_fields: dict[str, list] = {}
        self.enum_constants: dict[str, int] = {}
        self._index_units(file_node.units)
        self._index_enums(file_node)
        cuda.init_cuda(self)
        self.globals = Frame(ScopeInfo(file_node, self.lang), None) if self.is_c else None
        self.frame: Frame | None = None
        self._stmt = dict(STATEMENTS)  # copies: a kernel launch hooks its race log in for its run
        self._expr = dict(EXPRESSIONS)
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
                    raise err(enum, f"the value of enumerator {name} is not an integer constant")
                if self.enum_constants.get(name, value) != value:
                    raise err(enum, f"enumerator {name} is defined twice with different values")
                self.enum_constants[name] = value
            if enum.kids[0] is not None:
                self.aliases[enum.kids[0]] = ENUM_TYPE

    def _index_types(self, decls):
        for d in decls:
            if d.op == "typeDef":
                self.types[d.name] = d
            elif d.op == "typeAlias":
                self.aliases[d.name] = d.type

    # --- public entries -----------------------------------------------------------------------
    def call(self, name: str, args=()):
        """Run procedure `name` with Python-level actual arguments; return the function result."""
        proc = self.procs.get(name)
        if proc is None or proc.body is None:
            raise InterpError(f"no procedure {name!r} with a body in this file")
        return calls.run_from_python(self, name, lambda: calls.invoke(
            self, proc, [calls.external_actual(a) for a in args], {}, frames.host_frame(self, proc, None)))

    launch = cuda.launch  # (name, grid, block, args=(), shmem=0): a CUDA kernel from Python

    # --- upward calls: what the lower modules reach through the interpreter -------------------
    eval = expressions.eval
    exec_block = statements.exec_block
    apply_data = constructs.apply_data
    default_value = cuda.default_value
    cuda_builtin_variable = cuda.cuda_builtin_variable
    is_cuda_call = cuda.is_cuda_call
    cuda_call = cuda.cuda_call
