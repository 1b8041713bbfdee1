"""CUDA kernels on the CPU: the interpreter's reference semantics of the IL's CUDA constructs
(issue 8; the IL conventions are in engine/il.py and the shared contract of the CUDA work).

Functions of the interpreter `it`; the schedule and the race log are in cuda_threads.py.
The rules:
- A launch `kernelLaunch(k, grid, block, shmem, args)` runs every thread of every block.
  grid and block are dim3 values or integers; `dim3(x[, y[, z]])` has missing components 1.
  The arguments are evaluated once, in the host; every thread binds its own parameters.
  Blocks run one after the other (x fastest, then y, then z), and so do the threads of a
  block: a legal schedule, and the same one every run.
- `threadIdx`, `blockIdx`, `blockDim`, `gridDim` are records of three ints (x, y, z) bound for
  the running thread (CUDA's unsigned components are ints, as the interpreter treats every
  unsigned type).
- Memory is one space: cudaMalloc'd buffers, host arrays and file-scope variables are global
  memory, seen by every thread; a `__shared__` variable has one storage per block, created when
  the first thread of the block declares it; every `extern __shared__` array of a block starts
  at its dynamic shared memory (the launch's shmem bytes); other locals are per thread.
- `__syncthreads()` is a barrier of the block (`__syncthreads_count/and/or(p)` too, returning
  the number of threads whose p holds, whether all do, whether any does). A kernel that can reach one (in its body or in a
  procedure it calls) runs each thread of a block as a Python thread, but never two at once:
  a baton goes to thread 0, 1, ... in turn, and each runs until its next barrier or its end.
  Then either every thread stands at the same barrier (the next phase begins), or every thread
  has returned (the block is done); anything else is an error with the barrier's line: a
  barrier reached by some threads only (divergent code, or a different number of trips of a
  loop holding it), or threads waiting at different barriers. A kernel without barriers runs
  its threads in the calling thread, one after the other.
- Atomics (atomicAdd, atomicSub, atomicExch, atomicMin, atomicMax, atomicAnd/Or/Xor, atomicInc,
  atomicDec, atomicCAS) apply one at a time and return the old value.
- Data races: each element read, written or updated atomically through an array access or a
  pointer (global or shared memory), and each read or write of a scalar variable in shared
  memory or at file scope (`__shared__ double total;`, `__device__ int count;`), is recorded with its thread, its block and the barrier
  phase of the block. Two accesses of one element race when they come from different threads,
  at least one writes, they are not both atomic, and no barrier orders them: threads of
  different blocks are never ordered, threads of one block are ordered by the barriers between
  their phases. A write and a read race as much as two writes: the result of such a kernel
  depends on the schedule, so it has no derivative either. The first race stops the run with
  `file:line: data race on x[3]: ...` (the line of the second access). Not watched: a field
  written through a pointer to a structure (`p->f = v`).
- Host code: cudaMalloc, cudaMemcpy (any direction: one memory space), cudaMemset, cudaFree,
  cudaDeviceSynchronize, cudaGetLastError return cudaSuccess; the cudaMemcpyKind names are
  constants. CUDA math functions are in intrinsics.CUDA_IMPL / CUDA_ALIASES.
"""
from __future__ import annotations

import numpy as np

from ..il import Node, walk
from ..intrinsics import CUDA_BUILTIN_VARIABLES as _BUILTIN_INDICES
from ..intrinsics import CUDA_CONSTANTS as _MEMCPY_KINDS
from ..symbols import xyz_struct
from . import calls, expressions, frames, memory, places, statements
from .cuda_threads import ATOMIC, BARRIER_VOTES, BARRIERS, READ, WRITE, BlockThreads, KernelRun, xyz_record
from .intrinsics import CUDA_ALIASES, CUDA_IMPL, as_value, convert
from .scope import VarSpec
from .values import CArr, Ptr, Record, err

_ATOMIC_UPDATES = {
    "atomicAdd": lambda old, v: old + v,
    "atomicSub": lambda old, v: old - v,
    "atomicExch": lambda old, v: v,
    "atomicMin": lambda old, v: min(old, v),
    "atomicMax": lambda old, v: max(old, v),
    "atomicAnd": lambda old, v: old & v,
    "atomicOr": lambda old, v: old | v,
    "atomicXor": lambda old, v: old ^ v,
    "atomicInc": lambda old, v: 0 if old >= v else old + 1,
    "atomicDec": lambda old, v: v if old == 0 or old > v else old - 1,
    "atomicCAS": lambda old, compare, v: v if old == compare else old,
}


def default_value(it, typ: Node):
    """The value of a declared variable with no initializer, where the language gives one:
    a dim3 constructed with no argument is (1, 1, 1). None: no value."""
    if it._builtin_dim3 and typ.op == "typeRef" and typ.kids[0] == "dim3":
        return xyz_record("dim3", (1, 1, 1))
    return None


def cuda_builtin_variable(it, name, node):
    """The binding of a CUDA built-in name (None if `name` is not one)."""
    if name in _BUILTIN_INDICES:
        if it.kernel is None:
            raise err(node, f"{name} outside a kernel")
        return it.kernel.indices[name]
    if name in _MEMCPY_KINDS:
        return np.array(_MEMCPY_KINDS[name], dtype=np.int32)
    return None


def is_cuda_call(it, name):
    return (name in _HOST_CALLS or name in _ATOMIC_UPDATES or name in CUDA_IMPL or name in CUDA_ALIASES
            or name in it._intrinsics)


def cuda_call(it, node):
    """A call of a CUDA built-in function (host API, atomics, barrier, dim3, math)."""
    name = node.name
    host_call = _HOST_CALLS.get(name)
    if host_call is not None:
        return host_call(it, node)
    if name in _ATOMIC_UPDATES:
        return cuda_atomic(it, node)
    name = CUDA_ALIASES.get(name, name)
    fn = it._intrinsics.get(name) or (None if it.complex_step else CUDA_IMPL.get(name))
    if fn is None:
        raise err(node, f"{node.name} is not supported by the interpreter"
                   + (" in complex-step mode" if it.complex_step else ""))
    try:
        r = fn(*(expressions.eval(it, a) for a in node.args))
    except (TypeError, ValueError) as e:
        raise err(node, f"bad call of {node.name}: {e}") from None
    return r[()] if isinstance(r, np.ndarray) and r.ndim == 0 else r


def cuda_dim3(it, node):
    if not 1 <= len(node.args) <= 3:
        raise err(node, "dim3 takes 1 to 3 components")
    values = [int(expressions.eval(it, a)) for a in node.args] + [1] * (3 - len(node.args))
    return xyz_record("dim3", values)


def s_kernelLaunch(it, node):
    """k<<<grid, block, shmem>>>(args): every thread of every block runs k (see the module doc)."""
    name, grid, block, shmem, args = node.kids
    grid_v = launch_shape(expressions.eval(it, grid), grid)
    block_v = launch_shape(expressions.eval(it, block), block)
    shmem_v = 0 if shmem is None else int(expressions.eval(it, shmem))
    actuals = [calls.actual_argument(it, a) for a in args]
    run_kernel(it, kernel_proc(it, name, node), grid_v, block_v, shmem_v, actuals, node)
    return None


def launch(it, name: str, grid, block, args=(), shmem: int = 0):
    """Run kernel `name` from Python: grid and block are ints or (x[, y[, z]]) tuples; args as
    for `call` (numpy arrays are passed as device pointers)."""
    def shape(v):
        v = (v,) if isinstance(v, int) else tuple(v)
        return launch_shape(tuple(v) + (1,) * (3 - len(v)), None)
    proc = kernel_proc(it, name, None)
    params = frames.scope_info(it, proc).specs

    def actual(param, a):  # an array for a pointer: one pointer shared by all the threads
        spec = params.get(param)
        return memory.as_ptr(a, param) if isinstance(a, np.ndarray) and spec is not None and spec.ptr \
            else calls.external_actual(a)
    actuals = [actual(p, a) for p, a in zip(list(proc.params) + [None] * len(args), args)]
    calls.run_from_python(it, name, lambda: run_kernel(it, proc, shape(grid), shape(block), int(shmem), actuals, None))


def kernel_proc(it, name, node):
    proc = it.procs.get(name)
    if proc is None or proc.body is None:
        raise err(node, f"launch of unknown kernel {name}")
    if "__global__" not in proc.attrs:
        raise err(node, f"launch of {name}, which is not a __global__ function")
    return proc


def launch_shape(value, node):
    if isinstance(value, Record):
        value = tuple(int(value.fields[c][()]) for c in "xyz")
    elif isinstance(value, tuple):
        value = tuple(int(v) for v in value)
    else:
        try:
            value = (int(value), 1, 1)
        except (TypeError, ValueError):
            raise err(node, "a launch's grid and block are dim3 values or integers") from None
    if len(value) != 3 or min(value) < 1:
        raise err(node, f"launch shape {value} has a component below 1")
    return value


def run_kernel(it, proc, grid, block, shmem, actuals, node):
    if it.kernel is not None:
        raise err(node, "a kernel launch inside a kernel is not supported by the interpreter")
    run = it.kernel = KernelRun(it, proc, grid, block, shmem, node, lambda n: describe_access(it, n))
    host_frame = it.frame
    hooks = {"arrayAccess": cuda_read_element, "deref": cuda_read_deref, "ident": cuda_read_ident}
    stmt_hooks = {"assign": cuda_assign, "varDecl": cuda_varDecl}
    saved = ({k: it._expr[k] for k in hooks}, {k: it._stmt[k] for k in stmt_hooks})
    it._expr.update(hooks)
    it._stmt.update(stmt_hooks)

    def run_thread():
        args = [a.copy() if isinstance(a, Record) else a for a in actuals]
        calls.invoke(it, proc, args, {}, frames.host_frame(it, proc, None))
    try:
        watch_file_scalars(it, run)
        barriers = reaches_barrier(it, proc)
        for b in range(run.nblocks):
            run.enter_block(b)
            if barriers:
                run.threads = BlockThreads(it, run, run_thread)
                run.threads.run_block()
            else:
                for t in range(run.nthreads):
                    run.enter_thread(t)
                    run_thread()
    finally:
        it._expr.update(saved[0])
        it._stmt.update(saved[1])
        it.kernel = None
        it.frame = host_frame


def reaches_barrier(it, proc) -> bool:
    """Whether proc, or a procedure it calls, calls __syncthreads (cached)."""
    cache = it._barrier_cache
    if id(proc) not in cache:
        cache[id(proc)] = False  # a recursive call does not add barriers
        found = False
        for n in walk(proc.body):
            if n.op in ("call", "intrinsic"):
                if n.name in BARRIERS:
                    found = True
                else:
                    callee = it.procs.get(n.name)
                    found = callee is not None and callee.body is not None and reaches_barrier(it, callee)
                if found:
                    break
        cache[id(proc)] = found
    return cache[id(proc)]


def cuda_syncthreads(it, node):
    run = it.kernel
    if run is None:
        raise err(node, f"{node.name}() outside a kernel")
    voting = node.name in BARRIER_VOTES
    if len(node.args) != int(voting):
        raise err(node, f"{node.name} takes {int(voting)} argument{'s' if not voting else ''}")
    vote = bool(expressions.eval(it, node.args[0])) if voting else False
    result = run.threads.barrier(node, vote)
    return result if voting else None


def cuda_read_element(it, node):
    place = places.c_index(it, node)
    if type(place) is tuple:
        buf, k = place
        it.kernel.races.access(buf, k, READ, node)
        return buf[k]
    return place


def watch_file_scalars(it, run):
    if it.globals is None:
        return
    for name, spec in it.globals.info.specs.items():
        if spec.dims is None:
            b = frames.binding(it, name, it.globals)
            if isinstance(b, np.ndarray) and b.ndim == 0:
                run.watched_scalars[id(b)] = b


def cuda_read_ident(it, node):
    value = expressions.e_ident(it, node)
    b = it.frame.vars.get(node.kids[0])
    if id(b) in it.kernel.watched_scalars:
        it.kernel.races.access(b, 0, READ, node)
    return value


def cuda_read_deref(it, node):
    p = expressions.eval(it, node.expr)
    if type(p) is Ptr and 0 <= p.off < len(p.buf):
        it.kernel.races.access(p.buf, p.off, READ, node)
        return p.buf[p.off]
    return expressions.e_deref(it, node)


def cuda_assign(it, node):
    lhs, rhs = node.kids
    value = expressions.eval(it, rhs)
    container, key = places.c_place(it, lhs)
    if isinstance(key, (int, np.integer)) and lhs.op in ("arrayAccess", "deref"):
        it.kernel.races.access(container, key, WRITE, lhs)
    elif lhs.op == "ident" and id(container) in it.kernel.watched_scalars:
        it.kernel.races.access(container, 0, WRITE, lhs)
    return places.c_store(it, container, key, value, node)


def cuda_varDecl(it, node):
    if "__shared__" not in node.attrs:
        return statements.s_varDecl(it, node)
    run = it.kernel
    for decl in node.declarators:
        b = run.shared.get(id(decl))
        if b is None:
            b = run.shared[id(decl)] = new_shared(it, node, decl)
            if isinstance(b, np.ndarray) and b.ndim == 0:
                run.watched_scalars[id(b)] = b
        it.frame.vars[decl.name] = b
    return None


def new_shared(it, node, decl):
    if "extern" in node.attrs:
        if decl.dims is None or len(decl.dims) != 1 or decl.dims[0].hi is not None:
            raise err(node, f"extern __shared__ {decl.name} must be an array of unspecified size")
        dtype, factory = memory.elem_kind(it, node.type, decl.ptr)
        if factory is not None or dtype == object:
            raise err(node, f"extern __shared__ {decl.name}: elements of this type are not supported")
        raw = it.kernel.dynamic_shared
        n = len(raw) // dtype.itemsize
        return CArr(raw[:n * dtype.itemsize].view(dtype), 0, (n,))
    spec = VarSpec(decl.name, node.type, decl.dims, None, decl.ptr, frozenset(node.attrs), decl)
    return memory.new_storage(it, spec, it.frame)


def describe_access(it, node):
    """Source-like text of the element an access node denotes, indices evaluated: x[3]."""
    op = node.op
    if op == "ident":
        return node.name
    if op == "arrayAccess":
        return describe_access(it, node.base) + "".join(f"[{int(expressions.eval(it, i))}]" for i in node.indices)
    if op in ("deref", "address", "cast"):
        inner = describe_access(it, node.kids[-1] if op == "cast" else node.expr)
        return "*" + inner if op == "deref" else inner
    if op == "fieldAccess":
        return describe_access(it, node.base) + "." + node.field
    return "memory"


def cuda_atomic(it, node):
    name, args = node.name, node.args
    expected = 3 if name == "atomicCAS" else 2
    if len(args) != expected:
        raise err(node, f"{name} takes {expected} arguments")
    p = expressions.eval(it, args[0])
    if isinstance(p, CArr):
        p = Ptr(p.buf, p.off)
    if type(p) is not Ptr:
        raise err(node, f"{name} on a non-pointer")
    if not 0 <= p.off < len(p.buf):
        raise err(node, f"{name} out of bounds")
    dtype = p.buf.dtype
    values = [convert(as_value(expressions.eval(it, a)), dtype) for a in args[1:]]
    if it.kernel is not None:
        it.kernel.races.access(p.buf, p.off, ATOMIC, args[0])
    old = p.buf[p.off]
    p.buf[p.off] = convert(as_value(_ATOMIC_UPDATES[name](old, *values)), dtype)
    return old


def cuda_success(it, node):
    return np.int32(0)


def cuda_malloc(it, node):
    if len(node.args) != 2:
        raise err(node, "cudaMalloc takes 2 arguments")
    target, nbytes = node.args
    slot = expressions.eval(it, target)
    if type(slot) is not Ptr:
        raise err(node, "cudaMalloc needs the address of a pointer variable")
    elem_type, ptr = pointee_declaration(it, target, node)
    dtype, factory = memory.elem_kind(it, elem_type, ptr)
    size = 8 if ptr else memory.sizeof_type(it, elem_type)
    count = int(expressions.eval(it, nbytes)) // size
    slot.buf[slot.off] = Ptr(memory.new_array(it, (max(count, 0),), dtype, factory), 0)
    return np.int32(0)


def pointee_declaration(it, target, node):
    """(type, pointer level) of the elements cudaMalloc allocates: the declaration of p in
    `(void**)&p`, one pointer level less; or of pp in `cudaMalloc(pp, ...)`, two less."""
    while target.op == "cast":
        target = target.expr
    if target.op == "address":
        target, levels = target.expr, 1
    else:
        levels = 2
    if target.op != "ident":
        raise err(node, "cudaMalloc of something else than a pointer variable is not supported")
    decl = declaration_of(it, target.name)
    if decl is None or decl[1] < levels:
        raise err(node, f"cudaMalloc: {target.name} is not declared as a pointer")
    return decl[0], decl[1] - levels


def declaration_of(it, name):
    """(type, ptr) of the declaration of `name` seen from the running procedure: a parameter,
    a local (the first declarator of that name in the body) or a file-scope variable."""
    info = it.frame.info
    spec = info.specs.get(name)
    if spec is not None:
        return spec.type, spec.ptr
    if info.node.op == "procedure" and info.node.body is not None:
        for n in walk(info.node.body):
            if n.op == "varDecl":
                for d in n.declarators:
                    if d.name == name:
                        return n.type, d.ptr
    spec = it.globals.info.specs.get(name) if it.globals is not None else None
    return (spec.type, spec.ptr) if spec is not None else None


def cuda_memcpy(it, node):
    if len(node.args) != 4:
        raise err(node, "cudaMemcpy takes 4 arguments")
    dst, src = (as_buffer(expressions.eval(it, a), node) for a in node.args[:2])
    return copy_memory(it, node, dst, src, int(expressions.eval(it, node.args[2])))


def cuda_memcpy_symbol(it, node):
    """cudaMemcpyToSymbol(symbol, src, bytes[, offset[, kind]]) and
    cudaMemcpyFromSymbol(dst, symbol, bytes[, offset[, kind]]): offset in bytes into the symbol."""
    if not 3 <= len(node.args) <= 5:
        raise err(node, f"{node.name} takes 3 to 5 arguments")
    to_symbol = node.name == "cudaMemcpyToSymbol"
    dst, src = (as_buffer(symbol_memory(it, a) if is_symbol else expressions.eval(it, a), node)
                for a, is_symbol in zip(node.args[:2], (to_symbol, not to_symbol)))
    offset = int(expressions.eval(it, node.args[3])) if len(node.args) > 3 else 0
    symbol = dst if to_symbol else src
    itemsize = 8 if symbol.buf.dtype == object else symbol.buf.dtype.itemsize
    if offset % itemsize:
        raise err(node, f"{node.name}: an offset that is not a whole number of elements")
    symbol.off += offset // itemsize
    return copy_memory(it, node, dst, src, int(expressions.eval(it, node.args[2])))


def symbol_memory(it, arg):
    """The memory of a file-scope variable named by a cudaMemcpy*Symbol argument."""
    if arg.op == "ident":
        b = frames.binding(it, arg.name, node=arg)
        if isinstance(b, np.ndarray) and b.ndim == 0:
            return Ptr(b.reshape(1), 0)
    return expressions.eval(it, arg)


def copy_memory(it, node, dst, src, nbytes):
    if dst.buf.dtype != src.buf.dtype:
        raise err(node, f"cudaMemcpy between {src.buf.dtype} and {dst.buf.dtype} memory is not supported")
    n = nbytes // (8 if dst.buf.dtype == object else dst.buf.dtype.itemsize)
    if dst.off + n > len(dst.buf) or src.off + n > len(src.buf):
        raise err(node, f"cudaMemcpy of {n} elements out of bounds")
    values = src.buf[src.off:src.off + n].copy()
    for k in range(n) if dst.buf.dtype == object else ():
        memory.store_cell(it, dst.buf, dst.off + k, values[k])
    if dst.buf.dtype != object:
        dst.buf[dst.off:dst.off + n] = values
    return np.int32(0)


def cuda_memset(it, node):
    if len(node.args) != 3:
        raise err(node, "cudaMemset takes 3 arguments")
    p = as_buffer(expressions.eval(it, node.args[0]), node)
    value, nbytes = int(expressions.eval(it, node.args[1])), int(expressions.eval(it, node.args[2]))
    if p.buf.dtype == object:
        raise err(node, "cudaMemset of memory holding pointers or structures is not supported")
    n = -(-nbytes // p.buf.dtype.itemsize)
    if p.off + n > len(p.buf):
        raise err(node, "cudaMemset out of bounds")
    p.buf[p.off:p.off + n].view(np.uint8)[:nbytes] = value & 0xFF
    return np.int32(0)


def as_buffer(v, node):
    """A fresh Ptr to the memory of a pointer, an array or a scalar variable's value."""
    if isinstance(v, (CArr, Ptr)):
        return Ptr(v.buf, v.off)
    if type(v) is not Ptr:
        raise err(node, f"{node.name}: a pointer argument is NULL or not a pointer")
    return v


_HOST_CALLS = {"cudaMalloc": cuda_malloc, "cudaMemcpy": cuda_memcpy, "cudaMemset": cuda_memset,
               "cudaMemcpyToSymbol": cuda_memcpy_symbol, "cudaMemcpyFromSymbol": cuda_memcpy_symbol,
               "cudaFree": cuda_success, "cudaDeviceSynchronize": cuda_success,
               "cudaGetLastError": cuda_success, "cudaPeekAtLastError": cuda_success,
               "dim3": cuda_dim3, "__syncthreads": cuda_syncthreads,
               "__syncthreads_count": cuda_syncthreads, "__syncthreads_and": cuda_syncthreads,
               "__syncthreads_or": cuda_syncthreads}


def init_cuda(it):
    """No kernel running; dim3 is a struct of three ints (unless a C file defines its own)."""
    it.kernel = None                     # the KernelRun of the launch running now
    it._barrier_cache = {}               # id(procedure) -> whether it can reach __syncthreads
    it._parents = None                   # id(node) -> parent node, for error lines
    it._builtin_dim3 = it.is_c and "dim3" not in it.types and "dim3" not in it.aliases
    if it._builtin_dim3:
        it.types["dim3"] = xyz_struct("dim3")
