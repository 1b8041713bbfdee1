"""CUDA kernels on the CPU: the interpreter's reference semantics of the IL's CUDA constructs
(issue 8; the IL conventions are in engine/il.py and the shared contract of the CUDA work).

`CudaKernels` is a mixin of `engine.interp.Interpreter`: it relies on the interpreter's
evaluation (`eval`, `_c_place`, `_c_index`, `_c_store`, `_invoke`) and frames. The rules:
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
  constants. CUDA math functions are in interp_intrinsics.CUDA_IMPL / CUDA_ALIASES.
"""
from __future__ import annotations

import threading

import numpy as np

from . import interp as _interp  # circular (interp imports this mixin): names used at call time
from .il import Node, walk
from .interp_intrinsics import CUDA_ALIASES, CUDA_IMPL, as_value, convert
from .intrinsics import CUDA_BUILTIN_VARIABLES as _BUILTIN_INDICES
from .intrinsics import CUDA_CONSTANTS as _MEMCPY_KINDS
from .symbols import xyz_struct

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
_HOST_CALLS = {"cudaMalloc": "_cuda_malloc", "cudaMemcpy": "_cuda_memcpy", "cudaMemset": "_cuda_memset",
               "cudaMemcpyToSymbol": "_cuda_memcpy_symbol", "cudaMemcpyFromSymbol": "_cuda_memcpy_symbol",
               "cudaFree": "_cuda_success", "cudaDeviceSynchronize": "_cuda_success",
               "cudaGetLastError": "_cuda_success", "cudaPeekAtLastError": "_cuda_success",
               "dim3": "_cuda_dim3", "__syncthreads": "_cuda_syncthreads",
               "__syncthreads_count": "_cuda_syncthreads", "__syncthreads_and": "_cuda_syncthreads",
               "__syncthreads_or": "_cuda_syncthreads"}
# The barriers that also combine a predicate of every thread of the block (the value returned).
_BARRIER_VOTES = {"__syncthreads_count": sum, "__syncthreads_and": all, "__syncthreads_or": any}
_BARRIERS = frozenset(_BARRIER_VOTES) | {"__syncthreads"}
READ, WRITE, ATOMIC = "read", "write", "atomic"
_VERBS = {READ: ("reads", "read"), WRITE: ("writes", "write"), ATOMIC: ("updates", "update")}
_DONE = "done"


def _err(node, msg):
    return _interp._err(node, msg)


def _xyz_record(tname, values=(0, 0, 0)):
    return _interp.Record(tname, {c: np.array(v, dtype=np.int32) for c, v in zip("xyz", values)})


def _set_xyz(record, values):
    for c, v in zip("xyz", values):
        record.fields[c][()] = v


def _coords(linear, dims):
    """(x, y, z) of the linear index of a thread (or block) in dims, x fastest."""
    x, y, z = dims
    return linear % x, linear // x % y, linear // (x * y)


def _show_coords(xyz, dims):
    rank = 3 if dims[2] > 1 else 2 if dims[1] > 1 else 1
    return "(" + ",".join(str(v) for v in xyz[:rank]) + ")"


class KernelRun:
    """The state of one launch: its shape, the running block/thread/phase, shared memory of the
    running block, the index records bound in the kernel, and the race log."""

    def __init__(self, interp, proc, grid, block, shmem, launch_node):
        self.interp, self.proc, self.grid, self.block, self.shmem = interp, proc, grid, block, shmem
        self.filename = interp.file.ann.get("filename", "<input>")
        self.indices = {"threadIdx": _xyz_record("uint3"), "blockIdx": _xyz_record("uint3"),
                        "blockDim": _xyz_record("dim3", block), "gridDim": _xyz_record("dim3", grid)}
        self.nthreads = block[0] * block[1] * block[2]
        self.nblocks = grid[0] * grid[1] * grid[2]
        self.block_id = self.thread_id = self.phase = 0
        self.shared: dict = {}        # id(declarator) -> storage, for the running block
        self.watched_scalars: dict = {}  # id(cell) -> cell: shared and file-scope scalar variables
        self.dynamic_shared = None    # the running block's extern __shared__ bytes
        self.threads: _BlockThreads | None = None
        self.races = RaceLog(self)
        self.launch_node = launch_node

    def enter_block(self, b):
        self.block_id, self.phase = b, 0
        self.shared = {}
        self.dynamic_shared = np.zeros(self.shmem, dtype=np.uint8)
        _set_xyz(self.indices["blockIdx"], _coords(b, self.grid))

    def enter_thread(self, t):
        self.thread_id = t
        _set_xyz(self.indices["threadIdx"], _coords(t, self.block))

    def thread_coords(self, thread_id):
        return _show_coords(_coords(thread_id, self.block), self.block)

    def thread_text(self, thread_id):
        return "thread " + self.thread_coords(thread_id)

    def block_text(self, block_id):
        return "block " + _show_coords(_coords(block_id, self.grid), self.grid)

    def who(self, block_id, thread_id):
        return f"{self.thread_text(thread_id)} of {self.block_text(block_id)}"

    def where(self, node):
        """file:line of a node: its own line, or that of the statement holding it."""
        line = self.line_of(node)
        if line is None and isinstance(self.launch_node, Node):
            line = self.launch_node.line
        return f"{self.filename}:{line if line is not None else '?'}"

    def line_of(self, node):
        parents = self.interp._parents
        if parents is None:  # built once, when a first error needs it
            parents = self.interp._parents = {}
            for n in walk(self.interp.file):
                for k in n.kids:
                    for c in (k if isinstance(k, tuple) else (k,)):
                        if isinstance(c, Node):
                            parents[id(c)] = n
        while node is not None and node.line is None:
            node = parents.get(id(node))
        return None if node is None else node.line

    def check_barrier(self, where, live):
        """After a phase: every live thread at one barrier, else a KernelError."""
        waiting = [t for t in live if where[t] is not _DONE]
        done = [t for t in live if where[t] is _DONE]
        barrier = where[waiting[0]]
        if done:
            raise _interp.KernelError(f"{self.where(barrier)}: __syncthreads() reached by {len(waiting)} threads of "
                                      f"{self.block_text(self.block_id)} but not by {self.thread_text(done[0])}"
                                      f"{' and others' if len(done) > 1 else ''}, which returned (a barrier in "
                                      "divergent code)")
        other = next((t for t in waiting if where[t] is not barrier), None)
        if other is not None:
            raise _interp.KernelError(f"{self.where(barrier)}: threads of {self.block_text(self.block_id)} wait at "
                                      f"different barriers: {self.thread_text(waiting[0])} here and "
                                      f"{self.thread_text(other)} at {self.where(where[other])} (a barrier in "
                                      "divergent code)")
        self.phase += 1


class RaceLog:
    """The accesses of one launch to each element, by address (see the module doc)."""

    def __init__(self, run: KernelRun):
        self.run = run
        self.buffers: dict = {}  # id(buffer) -> (address of element 0, stride, buffer kept alive:
        #                           no id or address is reused while the launch runs)
        self.cells: dict = {}    # address -> ({who: (phase, node)} of writes, of atomics, of reads)
        self.describing = False

    def access(self, buf, k, kind, node):
        if self.describing:
            return
        info = self.buffers.get(id(buf))
        if info is None:
            stride = buf.strides[0] if buf.ndim else 0
            info = self.buffers[id(buf)] = (buf.__array_interface__["data"][0], stride, buf)
        addr = info[0] + k * info[1]
        cell = self.cells.get(addr)
        if cell is None:
            cell = self.cells[addr] = ({}, {}, {})
        writes, atomics, reads = cell
        run = self.run
        who, phase = (run.block_id, run.thread_id), run.phase
        against = ((writes, WRITE), (atomics, ATOMIC)) if kind == READ else \
            ((writes, WRITE), (reads, READ)) if kind == ATOMIC else ((writes, WRITE), (atomics, ATOMIC), (reads, READ))
        for group, gkind in against:
            for other, (ophase, onode) in group.items():
                if other != who and (other[0] != who[0] or ophase == phase):
                    raise self._race(node, kind, who, other, gkind, onode)
        (writes if kind == WRITE else atomics if kind == ATOMIC else reads)[who] = (phase, node)

    def _race(self, node, kind, who, other, okind, onode):
        run = self.run
        self.describing = True
        try:
            what = run.interp.describe_access(node)
        finally:
            self.describing = False
        here = run.where(node)
        if other[0] == who[0] and kind == okind and run.line_of(onode) == run.line_of(node):
            a, b = sorted((other[1], who[1]))
            return _interp.KernelError(f"{here}: data race on {what}: threads {run.thread_coords(a)} and "
                                       f"{run.thread_coords(b)} of {run.block_text(who[0])} {_VERBS[kind][1]} it")
        return _interp.KernelError(f"{here}: data race on {what}: {run.who(*who)} {_VERBS[kind][0]} it here and "
                                   f"{run.who(*other)} {_VERBS[okind][0]} it at {run.where(onode)} with no barrier "
                                   "between")


class _BlockThreads:
    """The threads of one block as Python threads that take turns (see the module doc)."""

    def __init__(self, interp, run: KernelRun, run_thread):
        n = run.nthreads
        self.interp, self.run, self.run_thread = interp, run, run_thread
        self.turn = [threading.Semaphore(0) for _ in range(n)]
        self.back = threading.Semaphore(0)
        self.where: list = [None] * n  # the barrier node a thread waits at, or _DONE
        self.votes: list = [False] * n  # the predicates given to __syncthreads_count/and/or
        self.vote = None                # what they return in the phase that follows
        self.parked = set(range(n))    # threads blocked on their turn (not started, or at a barrier)
        self.error = None
        self.aborting = False

    def run_block(self):
        run = self.run
        workers = [threading.Thread(target=self._work, args=(t,), daemon=True) for t in range(run.nthreads)]
        for w in workers:
            w.start()
        try:
            live = list(range(run.nthreads))
            while live:
                for t in live:
                    run.enter_thread(t)
                    self.turn[t].release()
                    self.back.acquire()
                    if self.error is not None:
                        raise self.error
                waiting = [t for t in live if self.where[t] is not _DONE]
                if waiting:
                    run.check_barrier(self.where, live)
                    combine = _BARRIER_VOTES.get(self.where[waiting[0]].name)
                    if combine is not None:
                        self.vote = np.int32(combine(self.votes[t] for t in waiting))
                live = waiting
        finally:
            self._stop(workers)

    def _work(self, t):
        self.turn[t].acquire()
        self.parked.discard(t)
        try:
            if not self.aborting:
                with np.errstate(all="ignore"):
                    self.run_thread()
                self.where[t] = _DONE
        except _Aborted:
            pass
        except BaseException as e:  # handed to the scheduler, which raises it in the caller
            self.error = e
        finally:
            self.back.release()

    def barrier(self, node, vote=False):
        """Called by the running thread at __syncthreads(): wait for the next phase."""
        t = self.run.thread_id
        frame = self.interp.frame
        self.where[t], self.votes[t] = node, vote
        self.parked.add(t)
        self.back.release()
        self.turn[t].acquire()
        self.parked.discard(t)
        if self.aborting:
            raise _Aborted()
        self.interp.frame = frame
        return self.vote

    def _stop(self, workers):
        """End the threads still parked (after an error), one at a time, and join all."""
        self.aborting = True
        for t in sorted(self.parked):
            self.turn[t].release()
            self.back.acquire()
        for w in workers:
            w.join()


class _Aborted(BaseException):
    """Unwinds a parked thread of a block whose run stopped (not an Exception: no handler in the
    interpreter catches it)."""


class CudaKernels:
    # --- types and names -----------------------------------------------------------------------
    def _init_cuda(self):
        """No kernel running; dim3 is a struct of three ints (unless a C file defines its own)."""
        self.kernel: KernelRun | None = None  # the launch running now
        self._barrier_cache: dict = {}         # id(procedure) -> whether it can reach __syncthreads
        self._parents: dict | None = None      # id(node) -> parent node, for error lines
        self._builtin_dim3 = self.is_c and "dim3" not in self.types and "dim3" not in self.aliases
        if self._builtin_dim3:
            self.types["dim3"] = xyz_struct("dim3")

    def default_value(self, typ: Node):
        """The value of a declared variable with no initializer, where the language gives one:
        a dim3 constructed with no argument is (1, 1, 1). None: no value."""
        if self._builtin_dim3 and typ.op == "typeRef" and typ.kids[0] == "dim3":
            return _xyz_record("dim3", (1, 1, 1))
        return None

    def cuda_builtin_variable(self, name, node):
        """The binding of a CUDA built-in name (None if `name` is not one)."""
        if name in _BUILTIN_INDICES:
            if self.kernel is None:
                raise _err(node, f"{name} outside a kernel")
            return self.kernel.indices[name]
        if name in _MEMCPY_KINDS:
            return np.array(_MEMCPY_KINDS[name], dtype=np.int32)
        return None

    def is_cuda_call(self, name):
        return (name in _HOST_CALLS or name in _ATOMIC_UPDATES or name in CUDA_IMPL or name in CUDA_ALIASES
                or name in self._intrinsics)

    def cuda_call(self, node):
        """A call of a CUDA built-in function (host API, atomics, barrier, dim3, math)."""
        name = node.name
        method = _HOST_CALLS.get(name)
        if method is not None:
            return getattr(self, method)(node)
        if name in _ATOMIC_UPDATES:
            return self._cuda_atomic(node)
        name = CUDA_ALIASES.get(name, name)
        fn = self._intrinsics.get(name) or (None if self.complex_step else CUDA_IMPL.get(name))
        if fn is None:
            raise _err(node, f"{node.name} is not supported by the interpreter"
                       + (" in complex-step mode" if self.complex_step else ""))
        try:
            r = fn(*(self.eval(a) for a in node.args))
        except (TypeError, ValueError) as e:
            raise _err(node, f"bad call of {node.name}: {e}") from None
        return r[()] if isinstance(r, np.ndarray) and r.ndim == 0 else r

    def _cuda_dim3(self, node):
        if not 1 <= len(node.args) <= 3:
            raise _err(node, "dim3 takes 1 to 3 components")
        values = [int(self.eval(a)) for a in node.args] + [1] * (3 - len(node.args))
        return _xyz_record("dim3", values)

    # --- launches ----------------------------------------------------------------------------
    def s_kernelLaunch(self, node):
        name, grid, block, shmem, args = node.kids
        grid_v = self._launch_shape(self.eval(grid), grid)
        block_v = self._launch_shape(self.eval(block), block)
        shmem_v = 0 if shmem is None else int(self.eval(shmem))
        actuals = [self._actual(a) for a in args]
        self._run_kernel(self._kernel_proc(name, node), grid_v, block_v, shmem_v, actuals, node)
        return None

    def launch(self, name: str, grid, block, args=(), shmem: int = 0):
        """Run kernel `name` from Python: grid and block are ints or (x[, y[, z]]) tuples; args as
        for `call` (numpy arrays are passed as device pointers)."""
        def shape(v):
            v = (v,) if isinstance(v, int) else tuple(v)
            return self._launch_shape(tuple(v) + (1,) * (3 - len(v)), None)
        proc = self._kernel_proc(name, None)
        params = self._info(proc).specs

        def actual(param, a):  # an array for a pointer: one pointer shared by all the threads
            spec = params.get(param)
            return self._as_ptr(a, param) if isinstance(a, np.ndarray) and spec is not None and spec.ptr \
                else self._external_actual(a)
        self._run_from_python(name, lambda: self._run_kernel(
            proc, shape(grid), shape(block), int(shmem), [actual(p, a) for p, a in zip(list(proc.params) + [None] * len(args), args)], None))

    def _kernel_proc(self, name, node):
        proc = self.procs.get(name)
        if proc is None or proc.body is None:
            raise _err(node, f"launch of unknown kernel {name}")
        if "__global__" not in proc.attrs:
            raise _err(node, f"launch of {name}, which is not a __global__ function")
        return proc

    @staticmethod
    def _launch_shape(value, node):
        if isinstance(value, _interp.Record):
            value = tuple(int(value.fields[c][()]) for c in "xyz")
        elif isinstance(value, tuple):
            value = tuple(int(v) for v in value)
        else:
            try:
                value = (int(value), 1, 1)
            except (TypeError, ValueError):
                raise _err(node, "a launch's grid and block are dim3 values or integers") from None
        if len(value) != 3 or min(value) < 1:
            raise _err(node, f"launch shape {value} has a component below 1")
        return value

    def _run_kernel(self, proc, grid, block, shmem, actuals, node):
        if self.kernel is not None:
            raise _err(node, "a kernel launch inside a kernel is not supported by the interpreter")
        run = self.kernel = KernelRun(self, proc, grid, block, shmem, node)
        host_frame = self.frame
        hooks = {"arrayAccess": self._cuda_read_element, "deref": self._cuda_read_deref,
                 "ident": self._cuda_read_ident}
        stmt_hooks = {"assign": self._cuda_assign, "varDecl": self._cuda_varDecl}
        saved = ({k: self._expr[k] for k in hooks}, {k: self._stmt[k] for k in stmt_hooks})
        self._expr.update(hooks)
        self._stmt.update(stmt_hooks)

        def run_thread():
            args = [a.copy() if isinstance(a, _interp.Record) else a for a in actuals]
            self._invoke(proc, args, {}, self._host_frame(proc, None))
        try:
            self._watch_file_scalars(run)
            barriers = self._reaches_barrier(proc)
            for b in range(run.nblocks):
                run.enter_block(b)
                if barriers:
                    run.threads = _BlockThreads(self, run, run_thread)
                    run.threads.run_block()
                else:
                    for t in range(run.nthreads):
                        run.enter_thread(t)
                        run_thread()
        finally:
            self._expr.update(saved[0])
            self._stmt.update(saved[1])
            self.kernel = None
            self.frame = host_frame

    def _reaches_barrier(self, proc) -> bool:
        """Whether proc, or a procedure it calls, calls __syncthreads (cached)."""
        cache = self._barrier_cache
        if id(proc) not in cache:
            cache[id(proc)] = False  # a recursive call does not add barriers
            found = False
            for n in walk(proc.body):
                if n.op in ("call", "intrinsic"):
                    if n.name in _BARRIERS:
                        found = True
                    else:
                        callee = self.procs.get(n.name)
                        found = callee is not None and callee.body is not None and self._reaches_barrier(callee)
                    if found:
                        break
            cache[id(proc)] = found
        return cache[id(proc)]

    def _cuda_syncthreads(self, node):
        run = self.kernel
        if run is None:
            raise _err(node, f"{node.name}() outside a kernel")
        voting = node.name in _BARRIER_VOTES
        if len(node.args) != int(voting):
            raise _err(node, f"{node.name} takes {int(voting)} argument{'s' if not voting else ''}")
        vote = bool(self.eval(node.args[0])) if voting else False
        result = run.threads.barrier(node, vote)
        return result if voting else None

    # --- memory accesses of a running kernel (the race log) ------------------------------------
    def _cuda_read_element(self, node):
        place = self._c_index(node)
        if type(place) is tuple:
            buf, k = place
            self.kernel.races.access(buf, k, READ, node)
            return buf[k]
        return place

    def _watch_file_scalars(self, run):
        if self.globals is None:
            return
        for name, spec in self.globals.info.specs.items():
            if spec.dims is None:
                b = self.binding(name, self.globals)
                if isinstance(b, np.ndarray) and b.ndim == 0:
                    run.watched_scalars[id(b)] = b

    def _cuda_read_ident(self, node):
        value = self.e_ident(node)
        b = self.frame.vars.get(node.kids[0])
        if id(b) in self.kernel.watched_scalars:
            self.kernel.races.access(b, 0, READ, node)
        return value

    def _cuda_read_deref(self, node):
        p = self.eval(node.expr)
        if type(p) is _interp.Ptr and 0 <= p.off < len(p.buf):
            self.kernel.races.access(p.buf, p.off, READ, node)
            return p.buf[p.off]
        return self.e_deref(node)

    def _cuda_assign(self, node):
        lhs, rhs = node.kids
        value = self.eval(rhs)
        container, key = self._c_place(lhs)
        if isinstance(key, (int, np.integer)) and lhs.op in ("arrayAccess", "deref"):
            self.kernel.races.access(container, key, WRITE, lhs)
        elif lhs.op == "ident" and id(container) in self.kernel.watched_scalars:
            self.kernel.races.access(container, 0, WRITE, lhs)
        return self._c_store(container, key, value, node)

    def _cuda_varDecl(self, node):
        if "__shared__" not in node.attrs:
            return self.s_varDecl(node)
        run = self.kernel
        for decl in node.declarators:
            b = run.shared.get(id(decl))
            if b is None:
                b = run.shared[id(decl)] = self._new_shared(node, decl)
                if isinstance(b, np.ndarray) and b.ndim == 0:
                    run.watched_scalars[id(b)] = b
            self.frame.vars[decl.name] = b
        return None

    def _new_shared(self, node, decl):
        if "extern" in node.attrs:
            if decl.dims is None or len(decl.dims) != 1 or decl.dims[0].hi is not None:
                raise _err(node, f"extern __shared__ {decl.name} must be an array of unspecified size")
            dtype, factory = self.elem_kind(node.type, decl.ptr)
            if factory is not None or dtype == object:
                raise _err(node, f"extern __shared__ {decl.name}: elements of this type are not supported")
            raw = self.kernel.dynamic_shared
            n = len(raw) // dtype.itemsize
            return _interp.CArr(raw[:n * dtype.itemsize].view(dtype), 0, (n,))
        spec = _interp.VarSpec(decl.name, node.type, decl.dims, None, decl.ptr, frozenset(node.attrs), decl)
        return self._new_storage(spec, self.frame)

    def describe_access(self, node):
        """Source-like text of the element an access node denotes, indices evaluated: x[3]."""
        op = node.op
        if op == "ident":
            return node.name
        if op == "arrayAccess":
            return self.describe_access(node.base) + "".join(f"[{int(self.eval(i))}]" for i in node.indices)
        if op in ("deref", "address", "cast"):
            inner = self.describe_access(node.kids[-1] if op == "cast" else node.expr)
            return "*" + inner if op == "deref" else inner
        if op == "fieldAccess":
            return self.describe_access(node.base) + "." + node.field
        return "memory"

    # --- atomics -------------------------------------------------------------------------------
    def _cuda_atomic(self, node):
        name, args = node.name, node.args
        expected = 3 if name == "atomicCAS" else 2
        if len(args) != expected:
            raise _err(node, f"{name} takes {expected} arguments")
        p = self.eval(args[0])
        if isinstance(p, _interp.CArr):
            p = _interp.Ptr(p.buf, p.off)
        if type(p) is not _interp.Ptr:
            raise _err(node, f"{name} on a non-pointer")
        if not 0 <= p.off < len(p.buf):
            raise _err(node, f"{name} out of bounds")
        dtype = p.buf.dtype
        values = [convert(as_value(self.eval(a)), dtype) for a in args[1:]]
        if self.kernel is not None:
            self.kernel.races.access(p.buf, p.off, ATOMIC, args[0])
        old = p.buf[p.off]
        p.buf[p.off] = convert(as_value(_ATOMIC_UPDATES[name](old, *values)), dtype)
        return old

    # --- host API ------------------------------------------------------------------------------
    @staticmethod
    def _cuda_success(node):
        return np.int32(0)

    def _cuda_malloc(self, node):
        if len(node.args) != 2:
            raise _err(node, "cudaMalloc takes 2 arguments")
        target, nbytes = node.args
        slot = self.eval(target)
        if type(slot) is not _interp.Ptr:
            raise _err(node, "cudaMalloc needs the address of a pointer variable")
        elem_type, ptr = self._pointee_declaration(target, node)
        dtype, factory = self.elem_kind(elem_type, ptr)
        size = 8 if ptr else self._sizeof_type(elem_type)
        count = int(self.eval(nbytes)) // size
        slot.buf[slot.off] = _interp.Ptr(self._new_array((max(count, 0),), dtype, factory), 0)
        return np.int32(0)

    def _pointee_declaration(self, target, node):
        """(type, pointer level) of the elements cudaMalloc allocates: the declaration of p in
        `(void**)&p`, one pointer level less; or of pp in `cudaMalloc(pp, ...)`, two less."""
        while target.op == "cast":
            target = target.expr
        if target.op == "address":
            target, levels = target.expr, 1
        else:
            levels = 2
        if target.op != "ident":
            raise _err(node, "cudaMalloc of something else than a pointer variable is not supported")
        decl = self._declaration_of(target.name)
        if decl is None or decl[1] < levels:
            raise _err(node, f"cudaMalloc: {target.name} is not declared as a pointer")
        return decl[0], decl[1] - levels

    def _declaration_of(self, name):
        """(type, ptr) of the declaration of `name` seen from the running procedure: a parameter,
        a local (the first declarator of that name in the body) or a file-scope variable."""
        info = self.frame.info
        spec = info.specs.get(name)
        if spec is not None:
            return spec.type, spec.ptr
        if info.node.op == "procedure" and info.node.body is not None:
            for n in walk(info.node.body):
                if n.op == "varDecl":
                    for d in n.declarators:
                        if d.name == name:
                            return n.type, d.ptr
        spec = self.globals.info.specs.get(name) if self.globals is not None else None
        return (spec.type, spec.ptr) if spec is not None else None

    def _cuda_memcpy(self, node):
        if len(node.args) != 4:
            raise _err(node, "cudaMemcpy takes 4 arguments")
        dst, src = (self._as_buffer(self.eval(a), node) for a in node.args[:2])
        return self._copy(node, dst, src, int(self.eval(node.args[2])))

    def _cuda_memcpy_symbol(self, node):
        """cudaMemcpyToSymbol(symbol, src, bytes[, offset[, kind]]) and
        cudaMemcpyFromSymbol(dst, symbol, bytes[, offset[, kind]]): offset in bytes into the symbol."""
        if not 3 <= len(node.args) <= 5:
            raise _err(node, f"{node.name} takes 3 to 5 arguments")
        to_symbol = node.name == "cudaMemcpyToSymbol"
        dst, src = (self._as_buffer(self._symbol_memory(a) if is_symbol else self.eval(a), node)
                    for a, is_symbol in zip(node.args[:2], (to_symbol, not to_symbol)))
        offset = int(self.eval(node.args[3])) if len(node.args) > 3 else 0
        symbol = dst if to_symbol else src
        itemsize = 8 if symbol.buf.dtype == object else symbol.buf.dtype.itemsize
        if offset % itemsize:
            raise _err(node, f"{node.name}: an offset that is not a whole number of elements")
        symbol.off += offset // itemsize
        return self._copy(node, dst, src, int(self.eval(node.args[2])))

    def _symbol_memory(self, arg):
        """The memory of a file-scope variable named by a cudaMemcpy*Symbol argument."""
        if arg.op == "ident":
            b = self.binding(arg.name, node=arg)
            if isinstance(b, np.ndarray) and b.ndim == 0:
                return _interp.Ptr(b.reshape(1), 0)
        return self.eval(arg)

    def _copy(self, node, dst, src, nbytes):
        if dst.buf.dtype != src.buf.dtype:
            raise _err(node, f"cudaMemcpy between {src.buf.dtype} and {dst.buf.dtype} memory is not supported")
        n = nbytes // (8 if dst.buf.dtype == object else dst.buf.dtype.itemsize)
        if dst.off + n > len(dst.buf) or src.off + n > len(src.buf):
            raise _err(node, f"cudaMemcpy of {n} elements out of bounds")
        values = src.buf[src.off:src.off + n].copy()
        for k in range(n) if dst.buf.dtype == object else ():
            self._store_cell(dst.buf, dst.off + k, values[k])
        if dst.buf.dtype != object:
            dst.buf[dst.off:dst.off + n] = values
        return np.int32(0)

    def _cuda_memset(self, node):
        if len(node.args) != 3:
            raise _err(node, "cudaMemset takes 3 arguments")
        p = self._as_buffer(self.eval(node.args[0]), node)
        value, nbytes = int(self.eval(node.args[1])), int(self.eval(node.args[2]))
        if p.buf.dtype == object:
            raise _err(node, "cudaMemset of memory holding pointers or structures is not supported")
        n = -(-nbytes // p.buf.dtype.itemsize)
        if p.off + n > len(p.buf):
            raise _err(node, "cudaMemset out of bounds")
        p.buf[p.off:p.off + n].view(np.uint8)[:nbytes] = value & 0xFF
        return np.int32(0)

    @staticmethod
    def _as_buffer(v, node):
        """A fresh Ptr to the memory of a pointer, an array or a scalar variable's value."""
        if isinstance(v, (_interp.CArr, _interp.Ptr)):
            return _interp.Ptr(v.buf, v.off)
        if type(v) is not _interp.Ptr:
            raise _err(node, f"{node.name}: a pointer argument is NULL or not a pointer")
        return v
