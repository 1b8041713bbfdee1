"""CUDA IL from plain C text, for the interpreter's kernel tests (until the CUDA reader lands).

The C reader reads the kernels written in the C subset below; `cuda_from_c` rewrites its IL
into the IL of the CUDA contract (engine/il.py conventions, issue 8):
- the procedures named in `kernels` get the attrs ("__global__",), those in `device`
  ("__device__",);
- `volatile` in a declaration stands for `__shared__` (`extern volatile double s[];` is
  `extern __shared__ double s[];`);
- `make_dim3(x, y)` is `dim3(x, y)` (a file may `typedef struct {int x, y, z;} dim3;` for the
  C reader: the typedef is dropped);
- the statement `launch(k, grid, block, shmem, args...)` is `k<<<grid, block, shmem>>>(args)`
  (shmem 0: none);
- `__syncthreads()` and the atomics are `call`s, as the contract says.
"""
from __future__ import annotations

import adspec
from adspec.engine.il import Node, mk

_CALLS = {"__syncthreads", "atomicAdd", "atomicSub", "atomicMax", "atomicMin", "atomicExch", "atomicCAS"}


def cuda_from_c(text: str, kernels=(), device=(), filename="k.cu") -> Node:
    tree = adspec.parse(text, lang="c", filename=filename.replace(".cu", ".c"))

    def fix(k):
        if isinstance(k, tuple):
            return tuple(fix(x) for x in k)
        if not isinstance(k, Node):
            return k
        node = Node(k.op, tuple(fix(x) for x in k.kids), k.ann)
        if node.op == "procedure":
            extra = ("__global__",) if node.name in kernels else ("__device__",) if node.name in device else ()
            return node.replace(attrs=node.attrs + extra)
        if node.op == "varDecl" and "volatile" in node.attrs:
            return node.replace(attrs=tuple("__shared__" if a == "volatile" else a for a in node.attrs))
        if node.op in ("call", "intrinsic") and node.name == "make_dim3":
            return Node("call", ("dim3", node.args), node.ann)
        if node.op == "intrinsic" and node.name in _CALLS:
            return Node("call", node.kids, node.ann)
        if node.op in ("call", "intrinsic") and node.name == "launch":
            kernel, grid, block, shmem, *args = node.args
            if shmem.op == "intCst" and shmem.value == 0:
                shmem = None
            return Node("kernelLaunch", (kernel.name, grid, block, shmem, tuple(args)), node.ann)
        return node

    units = tuple(u for u in fix(tree.kids) if not (u.op == "typeDef" and u.name == "dim3"))
    return Node("file", units, tree.ann.set("filename", filename).set("dialect", "cuda"))
