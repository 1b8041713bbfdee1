"""Mangled sources never crash the front ends: each gives IL or a SourceError with a line."""
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import adspec
from adspec.engine.errors import SourceError
from harness import load_program, program_paths
from il_gen import examples

PROGRAMS = [load_program(p) for p in program_paths()]
SNIPPETS = ["(", ")", "=", ",", "*", "end", "if", "then", "do", ";", "{", "}", "[", "]", "/*", "'",
            '"', "\n", "::", "%", "&", "->", "call", "1.5d0", "#", "!$AD ", "goto 10"]


def mangle(draw, text: str, snippets: list) -> str:
    """text with 1 to 3 snippets inserted or runs of up to 12 characters deleted."""
    for _ in range(draw(st.integers(1, 3))):
        pos = draw(st.integers(0, len(text)))
        if draw(st.booleans()):
            text = text[:pos] + draw(st.sampled_from(snippets)) + text[pos:]
        else:
            text = text[:pos] + text[pos + draw(st.integers(1, 12)):]
    return text


@st.composite
def mangled(draw):
    prog = draw(st.sampled_from(PROGRAMS))
    return prog, mangle(draw, prog.text, SNIPPETS)


@settings(max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mangled())
def test_mangled_source_gives_il_or_a_located_error(case):
    prog, text = case
    try:
        adspec.parse(text, lang=prog.lang, form=prog.form, filename=str(prog.path))
    except SourceError as e:
        assert e.filename == str(prog.path)
        assert e.line is not None and 1 <= e.line <= text.count("\n") + 2, (e.line, str(e))
        assert "\n" not in str(e).strip(), str(e)


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mangled())
def test_mangled_source_analyses_or_gives_a_located_error(case):
    """Whatever parses goes through program building and every analysis, or is refused
    with a SourceError (never another exception)."""
    from adspec.analyses import run_analyses
    from adspec.engine.program import build_program
    from adspec.heads import HeadSpec, resolve_heads
    prog, text = case
    try:
        program = build_program(adspec.parse(text, lang=prog.lang, form=prog.form, filename=str(prog.path)))
        head = next(iter(program.procedures.values()))
        run_analyses(program, resolve_heads(program, [HeadSpec(head.source_name, None, None)]))
    except SourceError as e:
        assert e.line is not None or "-head" in str(e), str(e)


CUDA_SOURCES = sorted((Path(__file__).parent / "cuda_programs").glob("*.cu")) + \
    sorted((Path(__file__).parent / "cuda_reader").glob("*.cu"))
CUDA_SNIPPETS = ["<<<", ">>>", "<<<1, 2>>>", "__global__ ", "__device__ ", "__shared__ ", "__host__ ",
                 "extern \"C\" ", "extern \"C\" {", "dim3 g(2), ", "dim3(", "threadIdx.", "blockIdx.x",
                 "__syncthreads();", "atomicAdd(", "__launch_bounds__(", "template <class T> ", "::",
                 "__restrict__ ", "(", ")", "{", "}", ",", ";", "\"", "/*", "\n"]


@st.composite
def mangled_cuda(draw):
    path = draw(st.sampled_from(CUDA_SOURCES))
    return path, mangle(draw, path.read_text(), CUDA_SNIPPETS)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mangled_cuda())
def test_mangled_cuda_gives_il_or_a_located_error(case):
    path, text = case
    try:
        adspec.parse(text, lang="cuda", filename=str(path))
    except SourceError as e:
        assert e.filename == str(path)
        assert e.line is not None and 1 <= e.line <= text.count("\n") + 2, (e.line, str(e))
        assert "\n" not in str(e).strip(), str(e)
