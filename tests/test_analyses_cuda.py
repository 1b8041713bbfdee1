"""The data-flow analyses on CUDA (tests/cuda_programs, docs/analyses.md "CUDA"): the built-in
variables are read-only integers of device code, the runtime's calls have their own effects
(atomics, barrier, cudaMalloc, cudaMemcpy), and a kernel launch is a call of the kernel."""
import subprocess
import sys
from pathlib import Path

import pytest

import adspec
from adspec.analyses import run_analyses
from adspec.analyze import analyze_files, format_analysis
from adspec.engine.bitsets import zones_of
from adspec.engine.effects import LIBRARY_EFFECTS, external_call_effects, instruction_effects
from adspec.engine.errors import SourceError
from adspec.engine.intrinsics import CUDA_CALLS
from adspec.engine.program import build_program
from adspec.engine.solver import is_fixed_point
from adspec.heads import parse_heads, resolve_heads

CUDA = Path(__file__).parent / "cuda_programs"
ADSPEC = Path(sys.executable).parent / "adspec"

# one head per program (cu12 is racy): the host function `run` of its `adspec-test:` line,
# its real outputs from its real inputs (cu11 has only integers: no differentiable variable)
HEADS = {
    "cu01_saxpy.cu": "run(y)/(a x)",
    "cu02_stencil.cu": "run(v)/(u)",
    "cu03_reduce.cu": "run(total partial)/(x)",
    "cu04_histogram.cu": "run(weight)/(w)",
    "cu05_matvec.cu": "run(y)/(a x)",
    "cu06_device_helpers.cu": "run(out mid)/(u v)",
    "cu07_grid2d.cu": "run(lap)/(u)",
    "cu08_two_kernels.cu": "run(w y)/(x)",
    "cu09_math.cu": "run(y yf)/(x xf)",
    "cu10_dynamic_shared.cu": "run(y totals)/(x)",
    "cu11_atomics.cu": "run(stats seen)/(v)",
}


def test_every_program_but_the_racy_one_has_a_head():
    assert sorted(HEADS) == sorted(p.name for p in CUDA.glob("*.cu") if p.name != "cu12_racy.cu")


@pytest.mark.parametrize("name", sorted(HEADS))
def test_analyze_runs_on_every_program(name):
    program, results, sources = analyze_files(str(CUDA / name), HEADS[name])
    for solution in (results.dep, results.diff_dep, results.activity.varied, results.activity.useful,
                     results.diff_live.solution, results.tbr, results.adj_out, results.inout.solution):
        assert is_fixed_point(program, solution) == [], solution.analysis.name
    report = format_analysis(program, results, sources)
    kernels = [p.source_name for p in program.procedures.values() if "__global__" in p.node.kids[5]]
    assert kernels and all(f"function {k}" in report for k in kernels)
    # every kernel is a callee of run (its launches are calls)
    assert set(kernels) <= {site.callee.source_name for site in program.call_sites.values()}
    active = set()
    for instr in program.procedure("run").flow.instructions():
        active |= names(program.procedure("run"), results.activity.active_after(program.procedure("run"), instr))
    assert bool(active) == (name != "cu11_atomics.cu")     # cu11: integers only


def test_analyze_command_on_a_kernel_exits_0(tmp_path):
    result = subprocess.run([str(ADSPEC), "analyze", str(CUDA / "cu01_saxpy.cu"), "-head", "saxpy(y)/(x)",
                             "--dot", str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "independents {*x}   dependents {*y}" in result.stdout
    assert "saxpy<<<(n + 63) / 64, 64>>>(n, a, d_x, d_y);" in (tmp_path / "run.dot").read_text()
    assert '"run" -> "saxpy"' in (tmp_path / "callgraph.dot").read_text()


# --- helpers ------------------------------------------------------------------------------------
def analysed(name, head):
    program = build_program(adspec.parse(str(CUDA / name)))
    return program, run_analyses(program, resolve_heads(program, parse_heads(head)))


def names(proc, s):
    return {proc.zones.zones[z].name for z in zones_of(s)}


def at_line(proc, line, kind=None):
    found = [i for i in proc.flow.instructions() if i.line == line and (kind is None or i.kind == kind)]
    assert found, line
    return found[-1]


def heap(proc, pointer):
    """The name of the heap zone of the cudaMalloc of `pointer`."""
    (target,) = proc.zones.pts[proc.zones.vars[pointer].zone]
    return target.name


class Sets:
    def __init__(self, program, results, proc_name):
        self.proc = program.procedure(proc_name)
        self.results = results

    def active(self, line, kind=None):
        instr = at_line(self.proc, line, kind)
        act = self.results.activity
        return names(self.proc, act.active_before(self.proc, instr)), names(self.proc, act.active_after(self.proc, instr))

    def varied_after(self, line):
        return names(self.proc, self.results.activity.varied[self.proc.name].after(at_line(self.proc, line)))

    def diff_live_before(self, line):
        return names(self.proc, self.results.diff_live.before(self.proc, at_line(self.proc, line)))


# --- built-in variables ---------------------------------------------------------------------------
def test_builtin_variables_are_read_only_integers_of_device_code():
    program, results = analysed("cu01_saxpy.cu", "saxpy(y)/(x)")
    kernel = Sets(program, results, "saxpy")
    assert not {"threadIdx", "blockIdx", "blockDim"} & set(kernel.proc.zones.vars)   # no zone: constants
    sym = kernel.proc.scope.lookup("threadIdx")
    assert sym.is_constant and not sym.is_storage
    i = instruction_effects(at_line(kernel.proc, 6), kernel.proc)   # int i = blockIdx.x * blockDim.x + threadIdx.x
    assert i.reads == 0 and names(kernel.proc, i.writes) == {"i"}
    assert "i" not in kernel.varied_after(6)


HOST_USE = """__global__ void k(double *y) { y[threadIdx.x] = 1.0; }

void host(double *y)
{
    int i = threadIdx.x;
    y[i] = 2.0;
}
"""


def test_builtin_variables_outside_kernels_stay_undeclared(tmp_path):
    path = tmp_path / "host_use.cu"
    path.write_text(HOST_USE)
    with pytest.raises(SourceError, match=r"undeclared identifier 'threadIdx' in host") as e:
        build_program(adspec.parse(str(path)))
    assert e.value.line == 5 and str(path) in str(e.value)
    result = subprocess.run([str(ADSPEC), "analyze", str(path), "-head", "k(y)/(y)"], capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 1 and f"{path}:5: undeclared identifier 'threadIdx'" in result.stderr


# --- saxpy: the kernel and the host function --------------------------------------------------------
def test_saxpy_kernel_activity():
    program, results = analysed("cu01_saxpy.cu", "saxpy(y)/(x)")
    kernel = Sets(program, results, "saxpy")
    assert kernel.active(6) == ({"*x"}, {"*x"})            # i: passive
    assert kernel.active(7, "test") == ({"*x"}, {"*x"})
    assert kernel.active(8) == ({"*x"}, {"*y"})            # y[i] = a * x[i] + y[i]: a is not varied


def test_saxpy_host_activity_flows_through_copies_and_the_launch():
    program, results = analysed("cu01_saxpy.cu", "run(y)/(x a)")
    run = Sets(program, results, "run")
    d_x, d_y = heap(run.proc, "d_x"), heap(run.proc, "d_y")
    assert run.active(15) == ({"a", "*x"}, {"a", "*x"})                  # cudaMalloc: no value flows
    assert run.active(17) == ({"a", "*x"}, {"a", d_x})                   # cudaMemcpy(d_x, x, ...)
    assert run.active(18) == ({"a", d_x}, {"a", d_x})                    # cudaMemcpy(d_y, y): y is passive
    assert run.active(19) == ({"a", d_x}, {d_y})                         # saxpy<<<...>>>(n, a, d_x, d_y)
    assert run.active(20) == ({d_y}, {"*y"})                             # cudaMemcpy(y, d_y, ...)
    assert run.active(21) == ({"*y"}, {"*y"})                            # cudaFree: no data effect
    kernel = Sets(program, results, "saxpy")                             # its context comes from the launch
    assert kernel.active(8) == ({"a", "*x"}, {"*y"})
    # the derivative launch runs on the same grid: n, read by the configuration, is diff-live
    assert "n" in run.diff_live_before(19)


# --- reduction in shared memory ---------------------------------------------------------------------
def test_reduction_shared_array_is_an_active_local():
    program, results = analysed("cu03_reduce.cu", "block_sum(partial)/(x)")
    kernel = Sets(program, results, "block_sum")
    s = kernel.proc.zones.vars["s"]
    assert kernel.proc.zones.zones[s.zone].kind == "local"
    assert kernel.active(10) == ({"*x"}, {"s"})              # s[t] = i < n ? x[i] * x[i] : 0.0
    assert kernel.active(11) == ({"s"}, {"s"})               # __syncthreads(): no data effect
    assert kernel.active(14) == ({"s"}, {"s"})               # s[t] += s[t + stride]
    assert kernel.active(18) == ({"s"}, {"*partial"})        # partial[blockIdx.x] = s[0]
    assert not {"t", "i", "stride"} & kernel.varied_after(14)


def test_reduction_host_total():
    program, results = analysed("cu03_reduce.cu", "run(total)/(x)")
    run = Sets(program, results, "run")
    d_x, d_partial = heap(run.proc, "d_x"), heap(run.proc, "d_partial")
    assert run.active(30) == ({d_x}, {d_partial})            # block_sum<<<nblocks, 64>>>(n, d_x, d_partial)
    assert run.active(31) == ({d_partial}, {"*partial"})
    assert run.active(34) == ({"*partial", "*total"}, {"*partial", "*total"})   # *total += partial[b]
    assert "nblocks" in run.diff_live_before(30)             # the grid of the active launch


# --- histogram: atomicAdd ---------------------------------------------------------------------------
def test_histogram_atomic_add_accumulates():
    program, results = analysed("cu04_histogram.cu", "histogram(weight)/(w)")
    kernel = Sets(program, results, "histogram")
    assert kernel.active(10) == ({"*w"}, {"*w"})             # atomicAdd(&count[bin], 1): int counts
    assert kernel.active(11) == ({"*w"}, {"*weight"})        # atomicAdd(&weight[bin], w[i])
    diff_dep = results.diff_dep.summaries["histogram"]
    zones = {z.name: z.index for z in kernel.proc.zones.zones}
    assert names(kernel.proc, diff_dep.row(zones["*weight"])) == {"*w", "*weight"}   # weight += w
    assert zones["*count"] not in diff_dep.rows


def test_histogram_host():
    program, results = analysed("cu04_histogram.cu", "run(weight)/(w)")
    run = Sets(program, results, "run")
    d_w, d_weight = heap(run.proc, "d_w"), heap(run.proc, "d_weight")
    assert run.active(33) == ({d_w}, {d_w})                  # cudaMemcpy(d_weight, weight): zeros
    assert run.active(34) == ({d_w}, {d_weight})             # histogram<<<...>>>(...)
    assert run.active(36) == ({d_weight}, {"*weight"})       # cudaMemcpy(weight, d_weight, ...)


# --- two kernels in sequence ----------------------------------------------------------------------
def test_two_kernels_chain_activity():
    program, results = analysed("cu08_two_kernels.cu", "run(y)/(x)")
    run = Sets(program, results, "run")
    d_x, d_w, d_y = (heap(run.proc, p) for p in ("d_x", "d_w", "d_y"))
    assert run.active(34) == ({d_x}, {d_w})                  # square_plus_one: y[i] = -1.0 is passive
    assert run.active(35) == ({d_w}, {d_w})                  # cudaDeviceSynchronize()
    assert run.active(36) == ({d_w}, {d_y})                  # smooth reads the w of other blocks
    assert run.active(39) == ({d_y}, {"*y"})
    assert "*w" not in run.active(38)[1]                     # w copied back, but not useful for y
    first = Sets(program, results, "square_plus_one")
    assert first.active(10) == ({"*x"}, {"*w"})              # w[i] = x[i] * x[i] + 1.0
    assert first.active(11) == ({"*w"}, {"*w"})              # y[i] = -1.0: *y stays passive


# --- the effects of the runtime's calls -------------------------------------------------------------
ATOMICS = """__global__ void k(double *p, double *q, double *r, double v, double w, int *f, int *g)
{
    double old = atomicAdd(p, v);
    *r = atomicExch(q, v) + old;
    atomicMax(&p[1], w);
    int o = atomicCAS(f, 0, 1);
    atomicOr(g, o);
    __syncthreads();
}
"""


def test_every_cuda_runtime_call_has_its_effects():
    assert CUDA_CALLS == set(LIBRARY_EFFECTS)


def test_atomics_effects(tmp_path):
    path = tmp_path / "atomics.cu"
    path.write_text(ATOMICS)
    program = build_program(adspec.parse(str(path)))
    proc = program.procedure("k")
    zm = proc.zones
    z = {zone.name: 1 << zone.index for zone in zm.zones}
    calls = {i.node.kids[0]: i for i in proc.flow.instructions() if i.kind == "call"}
    add = external_call_effects(calls["atomicAdd"], proc)
    result = calls["atomicAdd"].result
    assert add.writes == z["*p"] | 1 << result and add.kills == 1 << result   # *p is never killed
    assert add.diff_dep.row(_index(z["*p"])) == z["*p"] | z["v"]             # *p += v
    assert add.diff_dep.row(result) == z["*p"]                               # the old *p
    exch = external_call_effects(calls["atomicExch"], proc)
    assert exch.diff_dep.row(_index(z["*q"])) == z["*q"] | z["v"]
    mx = external_call_effects(calls["atomicMax"], proc)
    assert mx.diff_dep.row(_index(z["*p"])) == z["*p"] | z["w"] and mx.reads == z["*p"] | z["p"] | z["w"]
    cas = external_call_effects(calls["atomicCAS"], proc)
    assert cas.dep.row(_index(z["*f"])) == z["*f"] | z["f"]                  # constants compared and stored
    assert cas.diff_dep.row(calls["atomicCAS"].result) == 0                  # passive result
    orr = external_call_effects(calls["atomicOr"], proc)
    assert orr.writes == z["*g"] and orr.dep.row(_index(z["*g"])) == z["*g"] | z["g"] | z["o"]
    sync = external_call_effects(calls["__syncthreads"], proc)
    assert sync.writes == sync.reads == 0


def _index(bit):
    return bit.bit_length() - 1


MEMORY = """void h(double *x, double *y, int n)
{
    double *d;
    cudaMalloc((void **)&d, n * sizeof(double));
    cudaMemcpy(d, x, n * sizeof(double), cudaMemcpyHostToDevice);
    cudaMemset(d, 0, n);
    cudaMemcpy(y, d, n * sizeof(double), cudaMemcpyDeviceToHost);
    cudaFree(d);
}
"""


def test_memory_calls_effects(tmp_path):
    path = tmp_path / "memory.cu"
    path.write_text(MEMORY)
    program = build_program(adspec.parse(str(path)))
    proc = program.procedure("h")
    z = {zone.name: 1 << zone.index for zone in proc.zones.zones}
    heap_d = z[heap(proc, "d")]
    malloc, to_device, memset, to_host, free = (external_call_effects(at_line(proc, line), proc) for line in range(4, 9))
    assert malloc.writes == malloc.kills == z["d"] and malloc.reads == z["n"]
    assert malloc.diff_dep.row(_index(z["d"])) == 0                          # a new address: no value
    assert to_device.writes == heap_d and to_device.kills == 0
    assert to_device.diff_dep.row(_index(heap_d)) == heap_d | z["*x"]        # *d gets *x
    assert to_device.dep.row(_index(heap_d)) == heap_d | z["*x"] | z["x"] | z["d"] | z["n"]
    assert memset.diff_dep.row(_index(heap_d)) == heap_d                     # bytes: nothing differentiable
    assert to_host.diff_dep.row(_index(z["*y"])) == z["*y"] | heap_d
    assert free.writes == 0 and free.reads == z["d"]


def test_runtime_call_with_too_few_arguments_is_refused(tmp_path):
    path = tmp_path / "bad.cu"
    path.write_text("__global__ void k(double *p)\n{\n    atomicAdd(p);\n}\n")
    program = build_program(adspec.parse(str(path)))
    with pytest.raises(SourceError, match="atomicAdd takes at least 2 arguments") as e:
        run_analyses(program, resolve_heads(program, parse_heads("k(p)/(p)")))
    assert e.value.line == 3


def test_cuda_names_are_known_in_cuda_files_only():
    program = build_program(adspec.parse(str(CUDA / "cu07_grid2d.cu")))
    run = program.procedure("run")
    block = run.zones.vars["block"]                       # dim3 block(8, 8): three integer fields
    assert set(block.fields) == {"x", "y", "z"} and not block.all & run.zones.differentiable_mask
    assert program.root_scope.lookup("cudaMemcpyHostToDevice").init.kids[0] == 1
    c = build_program(adspec.parse("void f(double *x) { x[0] = 1.0; }\n", lang="c"))
    assert c.root_scope.lookup("cudaMemcpyHostToDevice") is None and c.root_scope.lookup("dim3") is None
