"""CUDA kernels run by the interpreter (engine/interp_cuda.py): results against sequential
numpy references, barriers, shared memory, atomics, and the errors of racy or divergent kernels."""
from __future__ import annotations

import time

import numpy as np
import pytest

import adspec
from adspec.engine.il import check
from adspec.engine.interp import Interpreter, InterpError, KernelError
from adspec.engine.interp_intrinsics import C_IMPL


def interp(text, complex_step=False):
    """An interpreter of CUDA source `text`, read by the CUDA reader as the file k.cu."""
    return Interpreter(check(adspec.parse(text, lang="cuda", filename="k.cu")), complex_step=complex_step)


def line_of(text, needle, nth=1):
    """The line number, in k.cu holding `text`, of the nth line holding needle."""
    lines = [k for k, line in enumerate(text.splitlines(), 1) if needle in line]
    return lines[nth - 1]


SAXPY = """
__global__ void saxpy(int n, double a, const double *x, double *y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
void run(int n, double a, const double *x, double *y) {
    double *dx, *dy;
    cudaMalloc((void**)&dx, n * sizeof(double));
    cudaMalloc((void**)&dy, n * sizeof(double));
    cudaMemcpy(dx, x, n * sizeof(double), cudaMemcpyHostToDevice);
    cudaMemcpy(dy, y, n * sizeof(double), cudaMemcpyHostToDevice);
    saxpy<<<(n + 63) / 64, 64>>>(n, a, dx, dy);
    cudaDeviceSynchronize();
    cudaMemcpy(y, dy, n * sizeof(double), cudaMemcpyDeviceToHost);
    cudaFree(dx);
    cudaFree(dy);
}
"""


def test_saxpy_host_code_matches_numpy():
    rng = np.random.default_rng(1)
    n = 200  # not a multiple of the block: the guard matters
    x, y = rng.standard_normal(n), rng.standard_normal(n)
    expected = 2.5 * x + y
    it = interp(SAXPY)
    it.call("run", [n, 2.5, x, y])
    np.testing.assert_allclose(y, expected, rtol=1e-14, atol=0)


def test_launch_from_python_and_kernel_called_without_launch():
    it = interp(SAXPY)
    x, y = np.arange(10.0), np.ones(10)
    it.launch("saxpy", 3, 4, [10, 2.0, x, y])
    assert list(y) == list(2 * np.arange(10.0) + 1)
    bad = interp(SAXPY.replace("saxpy<<<(n + 63) / 64, 64>>>(n, a, dx, dy)", "saxpy(n, a, dx, dy)"))
    with pytest.raises(InterpError, match="called without a launch"):
        bad.call("run", [4, 1.0, np.ones(4), np.ones(4)])


REDUCE = """
__global__ void block_sum(const double *x, double *partial, int n) {
    __shared__ double s[64];
    int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[tid] = i < n ? x[i] * x[i] : 0.0;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (tid < k) s[tid] += s[tid + k];
        __syncthreads();
    }
    if (tid == 0) partial[blockIdx.x] = s[0];
}
"""


def tree_sum(v):
    """The reduction's own order of additions (s[t] += s[t + k], k halving)."""
    s = list(v)
    k = len(s) // 2
    while k > 0:
        for t in range(k):
            s[t] = s[t] + s[t + k]
        k //= 2
    return s[0]


def test_block_reduction_with_shared_memory_and_barriers_in_a_loop():
    rng = np.random.default_rng(2)
    n = 250
    x = rng.standard_normal(n)
    partial = np.zeros(4)
    it = interp(REDUCE)
    start = time.perf_counter()
    it.launch("block_sum", 4, 64, [x, partial, n])
    elapsed = time.perf_counter() - start
    padded = np.concatenate([x * x, np.zeros(256 - n)])
    assert list(partial) == [tree_sum(padded[64 * b:64 * b + 64]) for b in range(4)]  # same order: exact
    np.testing.assert_allclose(partial, [np.sum(padded[64 * b:64 * b + 64]) for b in range(4)], rtol=1e-14)
    assert elapsed < 10, elapsed  # 4 blocks x 64 threads x 7 barriers
    again = np.zeros(4)
    it.launch("block_sum", 4, 64, [x, again, n])
    assert list(again) == list(partial)  # deterministic


DYNAMIC = """
__global__ void scale_sum(const float *x, float *out, int n) {
    extern __shared__ float s[];
    int tid = threadIdx.x;
    s[tid] = x[blockIdx.x * blockDim.x + tid];
    __syncthreads();
    if (tid == 0) {
        float acc = 0.0f;
        for (int k = 0; k < blockDim.x; k++) acc += s[k];
        out[blockIdx.x] = acc;
    }
}
void run(const float *x, float *out, int n, int threads) {
    scale_sum<<<n / threads, threads, threads * sizeof(float)>>>(x, out, n);
}
"""


def test_extern_shared_memory_sized_by_the_launch():
    x = np.arange(32, dtype=np.float32)
    out = np.zeros(4, dtype=np.float32)
    it = interp(DYNAMIC)
    it.launch("scale_sum", 4, 8, [x, out, 32], shmem=8 * 4)
    assert list(out) == [float(np.sum(x[8 * b:8 * b + 8], dtype=np.float32)) for b in range(4)]
    with pytest.raises(InterpError, match="out of bounds"):
        it.launch("scale_sum", 4, 8, [x, out, 32], shmem=4 * 4)  # too little shared memory
    by_host = np.zeros(2, dtype=np.float32)
    it.call("run", [x, by_host, 32, 16])  # the launch's third argument sizes it
    assert list(by_host) == [float(np.sum(x[:16], dtype=np.float32)), float(np.sum(x[16:], dtype=np.float32))]


HISTOGRAM = """
__global__ void histogram(const int *v, int *bins, int n, int nbins) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int stride = blockDim.x * gridDim.x;
    for (; i < n; i += stride) atomicAdd(&bins[v[i] % nbins], 1);
}
"""


def test_atomic_add_histogram():
    rng = np.random.default_rng(3)
    v = rng.integers(0, 1000, size=500).astype(np.int32)
    bins = np.zeros(10, dtype=np.int32)
    interp(HISTOGRAM).launch("histogram", 4, 32, [v, bins, 500, 10])
    assert list(bins) == list(np.bincount(v % 10, minlength=10))


ATOMICS = """
__global__ void atomics(int *a, double *d, int *olds) {
    int t = threadIdx.x;
    olds[t] = atomicMax(&a[0], t * 3 % 7);
    atomicMin(&a[1], 10 - t);
    atomicSub(&a[2], t);
    atomicExch(&a[3], 42);
    atomicCAS(&a[4], t, t + 1);
    atomicAdd(&d[0], 0.5 * t);
}
"""


def test_atomics_apply_one_at_a_time_and_return_the_old_value():
    a = np.array([0, 100, 0, 0, 0], dtype=np.int32)
    d = np.zeros(1)
    olds = np.zeros(8, dtype=np.int32)
    interp(ATOMICS).launch("atomics", 1, 8, [a, d, olds])
    seq = [t * 3 % 7 for t in range(8)]
    assert list(olds) == [max([0] + seq[:t]) for t in range(8)]  # threads in order
    assert list(a) == [max(seq), 3, -28, 42, 8] and d[0] == 14.0  # CAS chain: 0 -> 1 -> ... -> 8


GRID2D = """
__device__ float shift(float v, float s) { return fmaf(v, 2.0f, s) + rsqrtf(4.0f) + __expf(0.0f); }
__global__ void transpose_shift(const float *a, float *b, int rows, int cols) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols) b[c * rows + r] = shift(a[r * cols + c], (float) (gridDim.y * blockDim.y));
}
void run(const float *a, float *b, int rows, int cols) {
    dim3 block(4, 2);
    dim3 grid = dim3((cols + 3) / 4, (rows + 1) / 2);
    transpose_shift<<<grid, block>>>(a, b, rows, cols);
}
"""


def test_two_dimensional_grid_with_device_function_and_math():
    rows, cols = 5, 7
    a = np.arange(rows * cols, dtype=np.float32).reshape(rows, cols) / np.float32(3)
    b = np.zeros(rows * cols, dtype=np.float32)
    interp(GRID2D).call("run", [a.ravel(), b, rows, cols])
    expected = (a.T * np.float32(2) + np.float32(6)) + np.float32(0.5) + np.float32(1)
    np.testing.assert_allclose(b.reshape(cols, rows), expected, rtol=1e-7)  # float: one ulp
    assert b.dtype == np.float32


RACY = """
__global__ void last_wins(const double *x, double *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[0] = x[i];
}
__global__ void shift_left(double *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i + 1 < n) x[i] = x[i + 1];
}
__global__ void no_barrier(const double *x, double *out) {
    __shared__ double s[8];
    int t = threadIdx.x;
    s[t] = x[t];
    if (t == 0) out[0] = s[7];
}
"""


def test_write_write_race_is_reported_with_its_line():
    it = interp(RACY)
    with pytest.raises(KernelError, match=rf"^k\.cu:{line_of(RACY, 'out[0] = x[i]')}: data race on out\[0\]: threads \(0\) and \(1\) of block "
                                          r"\(0\) write it$"):
        it.launch("last_wins", 2, 4, [np.ones(8), np.zeros(1), 8])


def test_read_write_race_across_threads_and_blocks():
    SHIFT = line_of(RACY, "x[i] = x[i + 1]")
    it = interp(RACY)
    with pytest.raises(KernelError, match=rf"^k\.cu:{SHIFT}: data race on x\[1\]: thread \(1\) of block \(0\) writes "
                                          rf"it here and thread \(0\) of block \(0\) reads it at k\.cu:{SHIFT} "
                                          "with no barrier between$"):
        it.launch("shift_left", 1, 4, [np.arange(4.0), 4])
    with pytest.raises(KernelError, match=r"data race on x\[1\]: thread \(0\) of block \(1\) writes it here "
                                          r"and thread \(0\) of block \(0\) reads it"):
        it.launch("shift_left", 8, 1, [np.arange(8.0), 8])  # one thread per block: blocks are never ordered


def test_race_on_shared_memory_without_barrier():
    it = interp(RACY)
    with pytest.raises(KernelError, match=rf"k\.cu:{line_of(RACY, 's[t] = x[t]')}: data race on s\[7\]: thread \(7\) of block \(0\) "
                                          rf"writes it here and thread \(0\) of block \(0\) reads it at "
                                          rf"k\.cu:{line_of(RACY, 'out[0] = s[7]')}"):
        it.launch("no_barrier", 1, 8, [np.arange(8.0), np.zeros(1)])


def test_one_writer_per_element_and_ordered_by_barriers_is_no_race():
    x, y = np.arange(8.0), np.zeros(8)
    interp(SAXPY).launch("saxpy", 2, 4, [8, 1.0, x, y])  # threads read x[i], write y[i]
    partial = np.zeros(1)
    interp(REDUCE).launch("block_sum", 1, 64, [np.ones(64), partial, 64])
    assert partial[0] == 64.0


DIVERGENT = """
__global__ void half_barrier(double *x) {
    int t = threadIdx.x;
    if (t < 2) {
        x[t] = 1.0;
        __syncthreads();
    }
}
__global__ void early_return(double *x, int n) {
    int t = threadIdx.x;
    if (t >= n) return;
    x[t] = 2.0;
    __syncthreads();
}
__global__ void two_barriers(double *x) {
    if (threadIdx.x == 0) {
        __syncthreads();
    } else {
        __syncthreads();
    }
}
"""


def test_barrier_in_divergent_code_is_reported_with_its_line():
    it = interp(DIVERGENT)
    with pytest.raises(KernelError, match=rf"^k\.cu:{line_of(DIVERGENT, '__syncthreads')}: __syncthreads\(\) reached by 2 threads of block \(0\) but "
                                          r"not by thread \(2\) and others, which returned"):
        it.launch("half_barrier", 1, 4, [np.zeros(4)])
    with pytest.raises(KernelError, match=rf"k\.cu:{line_of(DIVERGENT, '__syncthreads', 2)}: __syncthreads\(\) reached by 3 threads .* thread \(3\),"):
        it.launch("early_return", 1, 4, [np.zeros(4), 3])
    x = np.zeros(4)
    it.launch("early_return", 1, 4, [x, 4])  # every thread reaches it: fine
    assert list(x) == [2.0] * 4
    with pytest.raises(KernelError, match=rf"k\.cu:{line_of(DIVERGENT, '__syncthreads', 3)}: threads of block \(0\) wait at different "
                                          rf"barriers: thread \(0\) here and thread \(1\) at "
                                          rf"k\.cu:{line_of(DIVERGENT, '__syncthreads', 4)}"):
        it.launch("two_barriers", 1, 2, [np.zeros(2)])


def test_cuda_names_outside_a_kernel_are_errors():
    it = interp("void host(double *x) { x[0] = threadIdx.x; }\n"
                "void sync(double *x) { __syncthreads(); }\n")
    with pytest.raises(InterpError, match="threadIdx outside a kernel"):
        it.call("host", [np.zeros(1)])
    with pytest.raises(InterpError, match="outside a kernel"):
        it.call("sync", [np.zeros(1)])


def test_host_code_calls_host_device_functions_but_not_device_only_ones():
    text = ("__device__ double twice(double v) { return 2.0 * v; }\n"
            "__host__ __device__ double thrice(double v) { return 3.0 * v; }\n"
            "void host(double *x) { x[0] = thrice(x[0]); }\n"
            "void wrong(double *x) {\n  x[0] = twice(x[0]);\n}\n")
    it = interp(text)
    x = np.ones(1)
    it.call("host", [x])
    assert x[0] == 3.0
    with pytest.raises(InterpError, match="twice is a __device__ function: host code cannot call it") as e:
        it.call("wrong", [x])
    assert e.value.line == 5 and str(e.value).endswith("(line 5)")


SCALARS = """
__device__ double total;
__global__ void shared_total(const double *x, double *out) {
    __shared__ double acc;
    if (threadIdx.x == 0) acc = 0.0;
    __syncthreads();
    atomicAdd(&acc, x[blockIdx.x * blockDim.x + threadIdx.x]);
    __syncthreads();
    if (threadIdx.x == 0) out[blockIdx.x] = acc;
}
__global__ void racy_total(const double *x) {
    total = total + x[threadIdx.x];
}
__global__ void racy_acc(const double *x, double *out) {
    __shared__ double acc;
    acc = 0.0;
    __syncthreads();
    out[threadIdx.x] = acc;
}
"""


def test_shared_and_file_scope_scalars():
    it = interp(SCALARS)
    out = np.zeros(2)
    it.launch("shared_total", 2, 16, [np.arange(32.0), out])
    assert list(out) == [float(np.sum(np.arange(16.0))), float(np.sum(np.arange(16.0, 32.0)))]
    with pytest.raises(KernelError, match=rf"k\.cu:{line_of(SCALARS, 'total = total')}: data race on total: "
                                          r"thread \(1\) of block \(0\) reads it here and thread \(0\) of block \(0\) "
                                          "writes it"):
        it.launch("racy_total", 1, 4, [np.ones(4)])
    with pytest.raises(KernelError, match=rf"k\.cu:{line_of(SCALARS, 'acc = 0.0;', 2)}: data race on acc: "
                                          r"threads \(0\) and \(1\) of block \(0\) write it"):
        it.launch("racy_acc", 1, 4, [np.ones(4), np.zeros(4)])


def test_a_failed_launch_leaves_no_thread_and_the_interpreter_usable():
    import threading
    before = threading.active_count()
    it = interp(DYNAMIC)
    x, out = np.arange(32, dtype=np.float32), np.zeros(4, dtype=np.float32)
    with pytest.raises(InterpError, match="out of bounds"):
        it.launch("scale_sum", 4, 8, [x, out, 32], shmem=4 * 4)  # thread 4 fails, 0-3 wait at the barrier
    assert threading.active_count() == before
    it.launch("scale_sum", 4, 8, [x, out, 32], shmem=8 * 4)
    assert out[0] == 28.0


IDS = """
__global__ void ids(int *out) {
    int block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    int t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    out[block * blockDim.x * blockDim.y * blockDim.z + t] = 1000 * blockIdx.z + 100 * threadIdx.z + 10 * threadIdx.y + threadIdx.x;
}
void run(int *out) {
    ids<<<dim3(1, 1, 2), dim3(2, 3, 2)>>>(out);
}
"""


def test_three_dimensional_blocks_and_grids():
    out = np.full(24, -1, dtype=np.int32)
    interp(IDS).call("run", [out])
    expected = [1000 * bz + 100 * z + 10 * y + x for bz in range(2) for z in range(2) for y in range(3) for x in range(2)]
    assert list(out) == expected


MATH = """
__global__ void math(double *d, float *f) {
    d[0] = fma(d[1], d[1], -1.0);
    d[2] = rsqrt(d[2]);
    d[3] = max(d[3], 2.0) + min(3, 4);
    f[0] = __expf(f[0]) + __fdividef(1.0f, 4.0f);
}
"""


def test_cuda_math_functions():
    e = 2.0 ** -30
    d = np.array([0.0, 1 + e, 16.0, 1.5])
    f = np.array([1.0], dtype=np.float32)
    interp(MATH).launch("math", 1, 1, [d, f])
    assert d[0] == 2 * e + e * e  # one rounding: (1 + e)**2 - 1 exactly
    assert list(d[2:]) == [0.25, 5.0]
    assert f[0] == C_IMPL["expf"](np.float32(1)) + np.float32(0.25)  # __expf: computed as expf


def test_complex_step_through_a_kernel_with_barriers():
    h = 1e-30
    rng = np.random.default_rng(5)
    x = rng.standard_normal(128)
    it = interp(REDUCE, complex_step=True)
    xc = x.astype(complex)
    xc[70] += 1j * h
    partial = np.zeros(2, dtype=complex)
    it.launch("block_sum", 2, 64, [xc, partial, 128])
    np.testing.assert_allclose(partial.imag / h, [0.0, 2 * x[70]], rtol=1e-14)


SYMBOLS = """
__constant__ double coef[3];
__device__ double bias;
__global__ void poly(const double *x, double *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = coef[0] + x[i] * (coef[1] + x[i] * coef[2]) + bias;
}
void run(const double *c, double b, const double *x, double *y, int n) {
    cudaMemcpyToSymbol(coef, c, 3 * sizeof(double));
    cudaMemcpyToSymbol(bias, &b, sizeof(double));
    poly<<<2, 8>>>(x, y, n);
    cudaMemcpyFromSymbol(&b, coef, sizeof(double), 2 * sizeof(double), cudaMemcpyDeviceToHost);
    y[n] = b;
}
"""


def test_constant_memory_through_symbols():
    c, x, y = np.array([0.5, -1.0, 2.0]), np.linspace(-1, 1, 13), np.zeros(14)
    interp(SYMBOLS).call("run", [c, 0.25, x, y, 13])
    np.testing.assert_allclose(y[:13], 0.5 + x * (-1.0 + x * 2.0) + 0.25, rtol=1e-14, atol=0)
    assert y[13] == 2.0


VOTES = """
__global__ void votes(const double *x, int *out) {
    int t = threadIdx.x;
    int n = __syncthreads_count(x[t] > 0.0);
    int all = __syncthreads_and(x[t] > -5.0);
    int any = __syncthreads_or(x[t] > 2.5);
    out[t] = 100 * n + 10 * all + any;
}
"""


def test_barriers_that_vote():
    out = np.zeros(8, dtype=np.int32)
    interp(VOTES).launch("votes", 1, 8, [np.array([1.0, -1, 2, 3, -4, 0, 0.5, -0.5]), out])
    assert list(out) == [411] * 8  # 4 positive, all above -5, one above 2.5


DEVICE_BARRIER = """
__device__ double neighbour_sum(double *s, int t, int n) {
    __syncthreads();
    return s[(t + 1) % n] + s[(t + n - 1) % n];
}
__global__ void smooth(double *x) {
    __shared__ double s[16];
    int t = threadIdx.x;
    for (int sweep = 0; sweep < 3; sweep++) {
        s[t] = x[t];
        double v = 0.5 * x[t] + 0.25 * neighbour_sum(s, t, blockDim.x);
        x[t] = v;
        __syncthreads();
    }
}
"""


def test_barrier_inside_a_device_function_called_in_a_loop():
    rng = np.random.default_rng(7)
    x = rng.standard_normal(16)
    expected = x.copy()
    for _ in range(3):
        expected = 0.5 * expected + 0.25 * (np.roll(expected, -1) + np.roll(expected, 1))
    interp(DEVICE_BARRIER).launch("smooth", 1, 16, [x])
    np.testing.assert_allclose(x, expected, rtol=1e-14, atol=1e-15)
