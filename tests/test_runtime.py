"""The push/pop runtime of the adjoint (backends/runtime/): compiled and run with gcc, gfortran
and nvcc, under sanitizers; its look/repeat semantics against a model of lists; `adspec runtime`."""
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import adspec.backends

RUNTIME = Path(adspec.backends.__file__).resolve().parent / "runtime"
PROGRAMS = Path(__file__).resolve().parent / "runtime_programs"
WARNINGS = ["-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror"]
SANITIZE = ["-g", "-fsanitize=address,undefined", "-fno-sanitize-recover=all"]
# block sizes: the default one, and 7 bytes so that most values straddle two blocks
BUILDS = {"default": [], "block7": ["-DADSTACK_BLOCK_BYTES=7"]}

compile_tier = pytest.mark.compile


def need(tool):
    if shutil.which(tool) is None:
        pytest.skip(f"{tool} is not installed")


def build(cmd, cwd):
    result = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stderr == "", result.stderr   # warning-free


def run(exe, *args, stdin=None):
    return subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=120, input=stdin)


@pytest.fixture(scope="module")
def stack_check(tmp_path_factory):
    """stack_check.c linked with adStack.c under ASan/UBSan, for each block size."""
    need("gcc")
    out = tmp_path_factory.mktemp("stack_check")
    exes = {}
    for name, flags in BUILDS.items():
        exes[name] = out / f"stack_check_{name}"
        build(["gcc", *WARNINGS, *SANITIZE, *flags, "-I", str(RUNTIME), str(PROGRAMS / "stack_check.c"),
               str(RUNTIME / "adStack.c"), "-o", str(exes[name])], out)
    return exes


def test_runtime_files_ship_with_the_package():
    assert {p.name for p in RUNTIME.iterdir()} >= {"adStack.h", "adStack.c", "adStack_cuda.cuh"}


@compile_tier
def test_c_runtime_is_warning_free(tmp_path):
    need("gcc")
    build(["gcc", *WARNINGS, "-Wmissing-prototypes", "-O2", "-c", str(RUNTIME / "adStack.c"), "-o", "a.o"], tmp_path)
    need("g++")   # the header serves C++ callers too
    build(["g++", "-Wall", "-Wextra", "-Werror", "-x", "c++", "-fsyntax-only", str(RUNTIME / "adStack.h")], tmp_path)


@compile_tier
@pytest.mark.parametrize("block", BUILDS)
@pytest.mark.parametrize("scenario", ["roundtrip", "controls", "looks", "repeats"])
def test_c_scenarios(stack_check, block, scenario):
    """Every type in LIFO order over several blocks with exact byte counts and peak, every value
    of each control width, looks, and repeat levels (stack_check.c says what each checks)."""
    result = run(stack_check[block], scenario)
    assert result.returncode == 0 and result.stdout.strip() == f"ok {scenario}", result.stdout + result.stderr
    assert "runtime error" not in result.stderr and "Sanitizer" not in result.stderr, result.stderr


@compile_tier
@pytest.mark.parametrize("scenario,message", [
    ("underflow", "adStack: pop or look below the bottom of the stack"),
    ("badcontrol", "adStack: control value out of range for its number of bits"),
])
def test_c_misuse_stops_with_a_message(stack_check, scenario, message):
    """Popping 8 bytes where 4 were pushed, or a control value wider than its bits: a message
    and an abort, never a wrong value."""
    result = run(stack_check["default"], scenario)
    assert result.returncode != 0 and message in result.stderr, result.stderr


@compile_tier
def test_c_printing_functions(stack_check):
    result = run(stack_check["default"], "show")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "adStack [7]: 8 bytes in use, 1 bits pending",
        "adStack at here: 8 bytes in use (segment from 0), 1 bits pending, 1 blocks of 65536 bytes, "
        "0 repeat levels (frozen below 0); peak 8 bytes, traffic 8 bytes",
        "adStack: peak size 8 bytes",
        "adStack: total traffic 8 bytes",
    ]


class Model:
    """What the stack means, without bytes: a list of values; startRepeat saves a copy that
    resetRepeat brings back; a look reads down from the top until the next push or pop."""

    def __init__(self):
        self.stack, self.saved, self.looked = [], [], 0

    def ops(self, rng, count):
        """Random operations (stack_check.c's `ops` format) and the lines they must print."""
        ops, expected = [], []
        for _ in range(count):
            kind = rng.random()
            if kind < 0.35:
                item = self.push(rng)
                ops.append(item[3])
            elif kind < 0.7 and self.stack:
                item = self.stack.pop()
                ops.append(item[2])
                expected.append(item[1])
                self.looked = 0
            elif kind < 0.8 and self.looked < len(self.stack) and self.stack[-1 - self.looked][0] == "r":
                ops.append("L")
                expected.append(self.stack[-1 - self.looked][1])
                self.looked += 1
            elif kind < 0.86:
                ops.append("s")
                self.saved.append(list(self.stack))
                self.looked = 0
            elif kind < 0.93 and self.saved:
                ops.append("t")
                self.stack = list(self.saved[-1])
                self.looked = 0
            elif kind < 0.97 and self.saved:
                ops.append("e")
                self.saved.pop()
                self.looked = 0
            else:
                ops.append("E")
                expected.append(f"empty {int(not self.stack)}")
        ops += ["e"] * len(self.saved)
        for item in reversed(self.stack):
            ops.append(item[2])
            expected.append(item[1])
        ops += ["E", "X"]
        expected.append("empty 1")
        self.__init__()
        return ops, expected

    def push(self, rng):
        """(kind, the line its pop prints, its pop, its push)"""
        kind = rng.choice("rrca")
        if kind == "r":
            v = rng.randrange(-10**6, 10**6) / 4
            item = ("r", repr(v), "R", f"r{v!r}")
        elif kind == "c":
            nb = rng.choice((1, 3, 8))
            v = rng.randrange(1 << nb)
            item = ("c", str(v), f"C{nb}", f"c{nb} {v}")
        else:
            k, v = rng.randrange(1, 20), rng.randrange(1000)
            item = ("a", " ".join(repr(float(v + i)) for i in range(k)), f"A{k}", f"a{k} {v}")
        self.stack.append(item)
        self.looked = 0
        return item


def _numbers(lines):
    return [[float(w) if w[0] in "-0123456789" else w for w in line.split()] for line in lines]


@compile_tier
@pytest.mark.parametrize("block", BUILDS)
def test_c_stack_agrees_with_the_model(stack_check, block):
    """400 random sequences of pushes, pops, looks and nested repeat levels: the C stack prints
    what the list model says, down to an empty stack after each sequence."""
    rng, model = random.Random(16), Model()
    ops, expected = [], []
    for _ in range(400):
        o, e = model.ops(rng, rng.randrange(10, 300))
        ops += o
        expected += e
    result = run(stack_check[block], "ops", stdin="\n".join(ops) + "\n")
    assert result.returncode == 0, result.stderr[-2000:]
    got = result.stdout.splitlines()
    assert len(got) == len(expected)
    mismatch = next((i for i, (g, e) in enumerate(zip(_numbers(got), _numbers(expected))) if g != e), None)
    assert mismatch is None, (mismatch, got[mismatch], expected[mismatch])


@compile_tier
def test_fortran_callers(tmp_path):
    """CALL PUSHREAL8(x) ... from gfortran, under -fcheck=all and ASan/UBSan: every type, arrays,
    controls, booleans, exact traffic, look and repeat, empty at the end."""
    need("gcc")
    need("gfortran")
    build(["gcc", *WARNINGS, *SANITIZE, "-c", str(RUNTIME / "adStack.c"), "-o", "adStack.o"], tmp_path)
    build(["gfortran", "-fcheck=all", "-Wall", *SANITIZE, str(PROGRAMS / "stack_check.f90"), "adStack.o",
           "-o", "check"], tmp_path)
    result = run(tmp_path / "check")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines()[-1].strip() == "ok fortran", result.stdout
    assert "adStack at end of check: 0 bytes in use" in result.stdout
    assert "runtime error" not in result.stderr and "Sanitizer" not in result.stderr, result.stderr


@compile_tier
@pytest.mark.parametrize("compiler", [["gcc", *WARNINGS], ["g++", "-Wall", "-Wextra", "-Werror", "-x", "c++"]])
def test_cuda_stacks_emulated_on_the_host(tmp_path, compiler):
    """adStack_cuda.cuh without nvcc: three threads' stacks interleaved stay apart, each with
    its own figures; a thread that outgrows its share stops the program."""
    need(compiler[0])
    build([*compiler, *SANITIZE, "-I", str(RUNTIME), str(PROGRAMS / "cuda_stack_host.c"), "-o", "host"], tmp_path)
    result = run(tmp_path / "host")
    assert result.returncode == 0 and result.stdout.strip() == "ok cuda host", result.stdout + result.stderr
    overflow = run(tmp_path / "host", "overflow")
    assert overflow.returncode != 0
    assert "adStack: thread 1 needs more than 1008 bytes of stack" in overflow.stdout


@compile_tier
def test_cuda_device_version_compiles_with_nvcc(tmp_path):
    need("nvcc")
    result = subprocess.run(["nvcc", "-c", "-I", str(RUNTIME), str(PROGRAMS / "cuda_stack_kernel.cu"), "-o", "k.o"],
                            cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "k.o").stat().st_size > 0


@compile_tier
def test_adspec_runtime_copies_the_files_out(tmp_path):
    """`adspec runtime -O DIR` writes the runtime into DIR, where it compiles and links."""
    result = subprocess.run([sys.executable, "-m", "adspec", "runtime", "-O", str(tmp_path / "rt")],
                            capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    copied = tmp_path / "rt"
    for name in ("adStack.h", "adStack.c", "adStack_cuda.cuh"):
        assert (copied / name).read_bytes() == (RUNTIME / name).read_bytes()
        assert f"wrote {copied / name}" in result.stderr
    need("gcc")
    build(["gcc", *WARNINGS, "-I", str(copied), str(PROGRAMS / "stack_check.c"), str(copied / "adStack.c"),
           "-o", "check"], tmp_path)
    assert run(tmp_path / "check", "repeats").stdout.strip() == "ok repeats"


def test_adspec_runtime_into_a_file_is_a_one_line_error(tmp_path):
    (tmp_path / "taken").write_text("")
    result = subprocess.run([sys.executable, "-m", "adspec", "runtime", "-O", str(tmp_path / "taken")],
                            capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert result.returncode == 1
    assert result.stderr.startswith(f"adspec: cannot write the runtime into {tmp_path / 'taken'}:"), result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
