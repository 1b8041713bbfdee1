"""CUDA in (issue 8): .cu files read into the IL by the C front end (frontends/cuda.py maps
CUDA's syntax onto C), written back by the C back end as CUDA that nvcc compiles, and
refused with file:line when they hold C++ or unknown intrinsics."""
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import adspec
from adspec.engine.errors import SourceError, UnsupportedError
from adspec.engine.il import walk

PROGRAMS = Path(__file__).parent / "cuda_reader"
CU_FILES = sorted(PROGRAMS.glob("*.cu"))
NVCC = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc" if Path("/usr/local/cuda/bin/nvcc").exists() else None)
ADSPEC = Path(sys.executable).parent / "adspec"


def procedures(tree):
    return {p.kids[0]: p for p in walk(tree) if p.op == "procedure"}


def nodes(tree, op):
    return [n for n in walk(tree) if n.op == op]


def unparsed_and_reparsed(path: Path, tmp_path: Path):
    tree = adspec.parse(str(path))
    text = adspec.unparse(tree)
    out = tmp_path / path.name
    out.write_text(text)
    return tree, text, adspec.parse(str(out))


@pytest.mark.parametrize("path", CU_FILES, ids=lambda p: p.name)
def test_round_trip_gives_the_same_il(path, tmp_path):
    tree, _, again = unparsed_and_reparsed(path, tmp_path)
    assert tree.ann["dialect"] == "cuda" and again.ann["dialect"] == "cuda"
    assert again == tree


def test_kernel_words_threads_and_builtins():
    tree = adspec.parse(str(PROGRAMS / "saxpy.cu"))
    saxpy = procedures(tree)["saxpy"]
    assert saxpy.kids[5] == ("__global__",)
    assert saxpy.kids[4].kids[0] == "void"
    accesses = {(f.kids[0].kids[0], f.kids[1]) for f in nodes(saxpy, "fieldAccess")}
    assert accesses == {("blockIdx", "x"), ("blockDim", "x"), ("threadIdx", "x")}
    host = procedures(adspec.parse(str(PROGRAMS / "host.cu")))
    assert host["square"].kids[5] == ("__device__", "__host__")
    assert host["host_squares"].kids[5] == ()


def test_shared_arrays_and_syncthreads():
    tree = adspec.parse(str(PROGRAMS / "reduce.cu"))
    shared = {d.declarators[0].name: d for d in nodes(tree, "varDecl") if "__shared__" in d.kids[1]}
    assert shared["s"].kids[1] == ("__shared__",)
    assert shared["s"].declarators[0].kids[1][0].kids[1].kids[0] == 128  # BLOCK expanded
    assert shared["buf"].kids[1] == ("extern", "__shared__")
    assert shared["buf"].declarators[0].kids[1][0].kids == (None, None)
    syncs = [c for c in nodes(tree, "call") if c.kids[0] == "__syncthreads"]
    assert len(syncs) == 3 and all(c.kids[1] == () for c in syncs)
    assert not nodes(tree, "intrinsic")


def test_atomics_are_calls_by_name_as_statements_and_expressions():
    tree = adspec.parse(str(PROGRAMS / "histogram.cu"))
    atomics = [c for c in nodes(tree, "call") if c.kids[0] == "atomicAdd"]
    assert len(atomics) == 2
    assert atomics[0].kids[1][0].op == "address"
    kernel = procedures(tree)["histogram"]
    statement_calls = [s for s in walk(kernel.kids[7]) if s.op == "call" and s.ann.get("line") == 11]
    assert [s.kids[0] for s in statement_calls] == ["atomicAdd"]
    assert procedures(tree)["bin_of"].kids[5] == ("__device__",)


def test_voting_barriers_are_calls_by_name():
    text = ("__global__ void votes(const double *x, int *out)\n{\n"
            "    out[threadIdx.x] = __syncthreads_count(x[threadIdx.x] > 0.0) + __syncthreads_and(x[0] > 1.0)\n"
            "        + __syncthreads_or(x[1] > 1.0);\n}\n")
    tree = adspec.parse(text, lang="cuda", filename="k.cu")
    assert [c.kids[0] for c in nodes(tree, "call")] == ["__syncthreads_count", "__syncthreads_and", "__syncthreads_or"]
    assert all(len(c.kids[1]) == 1 for c in nodes(tree, "call")) and not nodes(tree, "intrinsic")
    assert adspec.parse(adspec.unparse(tree), lang="cuda", filename="k.cu") == tree


def test_dim3_both_forms_and_launches():
    tree = adspec.parse(str(PROGRAMS / "grid2d.cu"))
    run2d = procedures(tree)["run2d"]
    dims = {d.declarators[0].name: d for d in nodes(run2d, "varDecl")}
    assert dims["block"].kids[0].op == "typeRef" and dims["block"].kids[0].kids[0] == "dim3"
    block_init = dims["block"].declarators[0].kids[2]
    assert block_init.op == "call" and block_init.kids[0] == "dim3"
    assert [a.kids[0] for a in block_init.kids[1]] == [16, 16]
    assert dims["grid"].declarators[0].kids[2].kids[0] == "dim3"
    (launch,) = nodes(run2d, "kernelLaunch")
    name, grid, block, shared, args = launch.kids
    assert (name, grid.kids[0], block.kids[0], shared, len(args)) == ("scale2d", "grid", "block", None, 3)
    constant = [d for d in nodes(tree, "varDecl") if d.kids[1] == ("__constant__",)]
    assert [d.declarators[0].name for d in constant] == ["scale"]
    assert {i.kids[0] for i in nodes(tree, "intrinsic")} == {"sqrt", "rsqrt"}


def test_c_linkage_in_both_forms_is_a_word_of_each_function():
    tree = adspec.parse(str(PROGRAMS / "linkage.cu"))
    attrs = {p.kids[0]: p.kids[5] for p in nodes(tree, "procedure")}
    assert attrs["fill"] == ('extern "C"', "__global__") and attrs["twice"] == ('extern "C"', "__host__", "__device__")
    assert attrs["run"] == ('extern "C"',)
    text = adspec.unparse(tree)
    assert 'extern "C" __host__ __device__ double twice(double v)' in text and "{\n" not in text.split("twice")[0][-20:]


def test_several_dim3_declarators_and_the_default_one():
    tree = adspec.parse(str(PROGRAMS / "linkage.cu"))
    decls = {d.name: d for d in nodes(procedures(tree)["run"], "declarator")}
    assert [decls[k].kids[2].kids[0] for k in ("grid", "block")] == ["dim3", "dim3"]
    assert decls["unit"].kids[2] is None
    from adspec.engine.interp import Interpreter
    import numpy as np
    it = Interpreter(tree)
    x = np.zeros(8)
    it.call("run", [x, 8])  # no cudaMalloc: the interpreter's device memory is the host's
    assert x.tolist() == [0.5] + [3.0] * 7  # `dim3 unit;` is (1, 1, 1): one thread writes x[0]


def test_host_runtime_calls_and_launch_with_shared_bytes():
    tree = adspec.parse(str(PROGRAMS / "host.cu"))
    host = procedures(tree)["host_squares"]
    calls = [c.kids[0] for c in walk(host) if c.op == "call"]
    assert calls == ["cudaMalloc", "cudaMemcpy", "cudaDeviceSynchronize", "cudaMemcpy", "cudaFree"]
    copy = next(c for c in walk(host) if c.op == "call" and c.kids[0] == "cudaMemcpy")
    assert copy.kids[1][3].op == "ident" and copy.kids[1][3].kids[0] == "cudaMemcpyHostToDevice"
    launches = nodes(host, "kernelLaunch")
    assert [l.kids[3] for l in launches][0] is None
    assert launches[1].kids[3].kids[0] == 0
    assert {i.kids[0] for i in nodes(tree, "intrinsic")} == {"__expf", "fma"}


def test_text_api_with_the_cu_name_or_the_cuda_language():
    text = "__global__ void k(double *x) { x[threadIdx.x] = 2.0; }\n"
    by_name = adspec.parse(text, lang="c", filename="k.cu")
    by_lang = adspec.parse(text, lang="cuda", filename="k.txt")
    assert by_name == by_lang and by_lang.ann["dialect"] == "cuda"
    assert "__global__ void k(double *x)" in adspec.unparse(by_name)
    assert "dialect" not in adspec.parse("void k(double *x) { x[0] = 2.0; }\n", lang="c").ann


def test_launch_bounds_is_a_word_of_the_kernel_and_struct_fields_keep_theirs():
    text = ("struct P { double a; };\n__device__ struct P g;\n"
            "__global__ void __launch_bounds__(256,\n 2) k(double *__restrict__ x) { x[0] = g.a; }\n")
    tree = adspec.parse(text, lang="cuda", filename="k.cu")
    assert procedures(tree)["k"].kids[5] == ("__global__", "__launch_bounds__(256, 2)")
    decls = {d.declarators[0].name: d.kids[1] for d in nodes(tree, "varDecl")}
    assert decls == {"a": (), "g": ("__device__",), "x": ("*restrict",)}
    out = adspec.unparse(tree)
    assert "__global__ __launch_bounds__(256, 2) void k(double *__restrict__ x)" in out
    assert adspec.parse(out, lang="cuda", filename="k.cu") == tree


def test_cuda_words_in_the_users_headers(tmp_path):
    (tmp_path / "helper.cuh").write_text("__device__ __forceinline__ double twice(double v) { return 2.0 * v; }\n"
                                         "__device__ double third(const double *__restrict__ p);\n")
    src = tmp_path / "k.cu"
    src.write_text('#include "helper.cuh"\n__global__ void k(double *x) { x[0] = twice(x[0]); }\n')
    tree = adspec.parse(str(src))
    assert list(procedures(tree)) == ["k"] and tree.ann["includes"] == ('#include "helper.cuh"',)
    assert [c.kids[0] for c in nodes(tree, "call")] == ["twice"]


BAD_CUDA = {
    "template": ("template <typename T>\n__global__ void k(T *x) { x[0] = 1; }\n", 1, "template"),
    "class": ("// a class\nclass Foo {\n public: int x;\n};\n", 2, "class"),
    "scope": ("__global__ void k(double *x)\n{\n    x[0] = std::sin(1.0);\n}\n", 3, "::"),
    "intrinsic": ("__global__ void k(double *x)\n{\n    x[threadIdx.x] = __shfl_down_sync(0xffffffff, x[0], 1);\n}\n",
                  3, "unknown CUDA intrinsic __shfl_down_sync"),
    "launch in expression": ("__global__ void k(double *x)\n{\n    x[0] = 1.0;\n}\nint g(double *x)\n{\n"
                             "    return k<<<1, 1>>>(x);\n}\n", 7, "kernel launch inside an expression"),
    "C++ linkage": ('// C++ linkage\nextern "C++" __global__ void k(double *x) { x[0] = 1.0; }\n', 2, "syntax error"),
    "variable with C linkage": ('extern "C" {\n__device__ double total;\n}\n', 2,
                                'a variable or type with C linkage'),
    "nested linkage blocks": ('extern "C" {\nextern "C" {\nvoid f(void);\n}\n}\n', 2,
                              'extern "C" blocks inside each other'),
    "unclosed linkage block": ('\nextern "C" {\nvoid f(void);\n', 2, 'extern "C" { has no closing }'),
    "stream": ("__global__ void k(double *x) { x[0] = 1.0; }\nvoid h(double *x, cudaStream_t s)\n{\n"
               "    k<<<1, 1, 0, s>>>(x);\n}\n", 4, "a kernel launch on a stream"),
    "launch bounds left open": ("int y;\n__global__ void __launch_bounds__(\n// 128\n", 2,
                                "__launch_bounds__ without its argument list"),
    "launch bounds macro": ("#define BLOCK 128\n__global__ void __launch_bounds__(BLOCK) k(double *x) { }\n", 2,
                            "__launch_bounds__ with other arguments than numbers"),
    "reference": ("__global__ void k(double &x)\n{\n    x = 1.0;\n}\n", 1, "syntax error"),
}


@pytest.mark.parametrize("case", BAD_CUDA, ids=str)
def test_bad_cuda_is_refused_with_its_line(case):
    text, line, words = BAD_CUDA[case]
    with pytest.raises(SourceError) as info:
        adspec.parse(text, lang="c", filename="bad.cu")
    assert info.value.line == line and words in str(info.value)


@pytest.mark.skipif(not ADSPEC.exists(), reason="the adspec command is not installed")
def test_bad_cuda_on_the_command_line_is_one_line_without_traceback(tmp_path):
    for case, (text, line, words) in BAD_CUDA.items():
        src = tmp_path / "bad.cu"
        src.write_text(text)
        result = subprocess.run([str(ADSPEC), "unparse", str(src)], capture_output=True, text=True)
        assert result.returncode != 0 and "Traceback" not in result.stderr
        assert result.stderr.strip() == f"{src}:{line}: {result.stderr.strip().split(': ', 1)[1]}"
        assert words in result.stderr, case


def test_cuda_is_not_differentiated_yet():
    with pytest.raises(UnsupportedError, match="differentiating CUDA"):
        adspec.differentiate("__global__ void k(double *x) { x[0] = x[0] * x[0]; }\n", "k(x)/(x)",
                             lang="c", filename="k.cu")


def test_cuda_source_is_not_written_as_plain_c():
    tree = adspec.parse(str(PROGRAMS / "saxpy.cu"))
    with pytest.raises(SourceError, match="cuda"):
        adspec.unparse(tree, "c")


PLAIN_C = """#include <math.h>
#include <stdbool.h>

/* y = sin(x) * x where flag */
void poly(int n, const double *restrict x, double *restrict y, bool flag)
{
    for (int i = 0; i < n; i++) {
        double t = sin(x[i]);
        y[i] = flag ? t * x[i] : x[i];
    }
}
"""


def test_c_written_as_cuda_spells_what_cpp_lacks():
    text = adspec.unparse(adspec.parse(PLAIN_C, lang="c", filename="poly.c"), "cuda")
    assert "const double *__restrict__ x, double *__restrict__ y, bool flag" in text
    assert "restrict x" not in text.replace("__restrict__", "")



def test_c_complex_has_no_cuda_spelling():
    from adspec.backends.c import unparse_c
    from adspec.engine.il import mk
    tree = mk("file", mk("varDecl", mk("type", "complex", 8, None), (), (mk("declarator", "z", None, None, 0),)),
              lang="c")
    assert "double _Complex z;" in unparse_c(tree)
    with pytest.raises(UnsupportedError, match="CUDA has no type for complex"):
        unparse_c(tree, cuda=True)


# --- nvcc compiles what is written ------------------------------------------------------------
def nvcc_compiles(path: Path, tmp_path: Path) -> None:
    proc = subprocess.run([NVCC, "-c", str(path), "-o", str(tmp_path / "out.o")], capture_output=True,
                          text=True, cwd=tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stderr


needs_nvcc = pytest.mark.skipif(NVCC is None, reason="nvcc (the CUDA toolkit) is not installed")


@pytest.mark.compile
@needs_nvcc
@pytest.mark.parametrize("path", CU_FILES, ids=lambda p: p.name)
def test_nvcc_compiles_the_unparsed_cuda(path, tmp_path):
    _, _, _ = unparsed_and_reparsed(path, tmp_path)
    nvcc_compiles(tmp_path / path.name, tmp_path)


@pytest.mark.compile
@needs_nvcc
@pytest.mark.skipif(not ADSPEC.exists(), reason="the adspec command is not installed")
def test_tgtlang_cuda_for_c_input_unparse_and_tangent(tmp_path):
    src = tmp_path / "poly.c"
    src.write_text(PLAIN_C)
    out = tmp_path / "poly_u.cu"
    result = subprocess.run([str(ADSPEC), "unparse", str(src), "-tgtlang", "cuda", "-o", str(out)],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    nvcc_compiles(out, tmp_path)
    result = subprocess.run([str(ADSPEC), "-d", "-tgtlang", "cuda", "-head", "poly(y)/(x)", str(src),
                             "-O", str(tmp_path / "d")], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    tangent = tmp_path / "d" / "poly_d.cu"
    assert "double *__restrict__ yd" in tangent.read_text()
    nvcc_compiles(tangent, tmp_path)


C_CORPUS = Path(__file__).parent / "programs"
C_AS_CUDA = ["c01_scalar_math", "c04_structs", "c05_malloc", "c12_directives", "c14_calls", "c20_comma_for"]


@pytest.mark.compile
@needs_nvcc
def test_c_programs_written_as_cuda_compile_with_nvcc(tmp_path):
    """-tgtlang cuda on C input: C that C++ reads differently (restrict, _Bool, malloc's void *)
    is spelled the CUDA way. All 45 C test programs pass; six of them here, in one nvcc run."""
    outputs = []
    for name in C_AS_CUDA:
        out = tmp_path / f"{name}.cu"
        out.write_text(adspec.unparse(adspec.parse(str(C_CORPUS / f"{name}.c")), "cuda"))
        outputs.append(out.name)
    proc = subprocess.run([NVCC, "-c", *outputs], capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert proc.returncode == 0, proc.stderr
