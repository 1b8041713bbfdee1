"""The schedule and the race log of a CUDA kernel launch in the interpreter (the rules are in
cuda.py's docstring): `KernelRun` is the state of one launch, `RaceLog` records the accesses
of each element and reports the first data race, `BlockThreads` runs the threads of a block
that reach barriers as Python threads taking turns.
"""
from __future__ import annotations

import threading

import numpy as np

from ..il import Node, walk
from .values import KernelError, Record

# The barriers that also combine a predicate of every thread of the block (the value returned).
BARRIER_VOTES = {"__syncthreads_count": sum, "__syncthreads_and": all, "__syncthreads_or": any}
BARRIERS = frozenset(BARRIER_VOTES) | {"__syncthreads"}
READ, WRITE, ATOMIC = "read", "write", "atomic"
_VERBS = {READ: ("reads", "read"), WRITE: ("writes", "write"), ATOMIC: ("updates", "update")}
_DONE = "done"


def xyz_record(tname, values=(0, 0, 0)):
    """A uint3 / dim3 value: a record of three ints x, y, z."""
    return Record(tname, {c: np.array(v, dtype=np.int32) for c, v in zip("xyz", values)})


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

    def __init__(self, interp, proc, grid, block, shmem, launch_node, describe):
        self.interp, self.proc, self.grid, self.block, self.shmem = interp, proc, grid, block, shmem
        self.describe = describe  # node -> source-like text of the element it accesses
        self.filename = interp.file.ann.get("filename", "<input>")
        self.indices = {"threadIdx": xyz_record("uint3"), "blockIdx": xyz_record("uint3"),
                        "blockDim": xyz_record("dim3", block), "gridDim": xyz_record("dim3", grid)}
        self.nthreads = block[0] * block[1] * block[2]
        self.nblocks = grid[0] * grid[1] * grid[2]
        self.block_id = self.thread_id = self.phase = 0
        self.shared: dict = {}        # id(declarator) -> storage, for the running block
        self.watched_scalars: dict = {}  # id(cell) -> cell: shared and file-scope scalar variables
        self.dynamic_shared = None    # the running block's extern __shared__ bytes
        self.threads: BlockThreads | None = None
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
            raise KernelError(f"{self.where(barrier)}: __syncthreads() reached by {len(waiting)} threads of "
                                      f"{self.block_text(self.block_id)} but not by {self.thread_text(done[0])}"
                                      f"{' and others' if len(done) > 1 else ''}, which returned (a barrier in "
                                      "divergent code)")
        other = next((t for t in waiting if where[t] is not barrier), None)
        if other is not None:
            raise KernelError(f"{self.where(barrier)}: threads of {self.block_text(self.block_id)} wait at "
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
            what = run.describe(node)
        finally:
            self.describing = False
        here = run.where(node)
        if other[0] == who[0] and kind == okind and run.line_of(onode) == run.line_of(node):
            a, b = sorted((other[1], who[1]))
            return KernelError(f"{here}: data race on {what}: threads {run.thread_coords(a)} and "
                                       f"{run.thread_coords(b)} of {run.block_text(who[0])} {_VERBS[kind][1]} it")
        return KernelError(f"{here}: data race on {what}: {run.who(*who)} {_VERBS[kind][0]} it here and "
                                   f"{run.who(*other)} {_VERBS[okind][0]} it at {run.where(onode)} with no barrier "
                                   "between")


class BlockThreads:
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
                    combine = BARRIER_VOTES.get(self.where[waiting[0]].name)
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

