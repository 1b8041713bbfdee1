"""The measurement behind the choice of C-family reader (issue 8, docs/performance.md).

    python bench/bench_c_readers.py [--lines 10000] [--repeat 5] [CUDA files...]

Speed, on the generated C file (bench/gen_sources.py): the preprocessor (`gcc -E`), the
tree-sitter-cuda parse and one Python walk over all its nodes (the least a translator must
do), the pycparser parse alone, and today's whole reader (pycparser + translation to IL).
Coverage, on CUDA files: does tree-sitter-cuda give a tree without ERROR/MISSING nodes, and
does adspec's reader (pycparser with the CUDA syntax mapped onto C) give IL.
tree-sitter and tree-sitter-cuda are needed for the tree-sitter rows (pip install tree-sitter
tree-sitter-cuda); they are not dependencies of adspec.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_sources import DEFAULT_OUTDIR, write_sources  # noqa: E402


def best(f, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return min(times)


def tree_sitter_parser():
    try:
        import tree_sitter
        import tree_sitter_cuda
    except ImportError:
        return None
    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_cuda.language()))


def walk_count(tree) -> tuple[int, int]:
    """(nodes, ERROR or MISSING nodes): a cursor walk over every node."""
    nodes = bad = 0
    cursor = tree.walk()
    while True:
        node = cursor.node
        nodes += 1
        if node.is_error or node.is_missing:
            bad += 1
        if cursor.goto_first_child() or cursor.goto_next_sibling():
            continue
        while cursor.goto_parent():
            if cursor.goto_next_sibling():
                break
        else:
            return nodes, bad


def preprocess(text: str) -> str:
    return subprocess.run(["gcc", "-E", "-P", "-x", "c", "-"], input=text, capture_output=True,
                          text=True, check=True).stdout


def speed(path: Path, repeat: int) -> None:
    from pycparser import c_parser
    from adspec.frontends import parse_file
    from adspec.frontends.c import _preprocess
    text = path.read_text()
    print(f"{path.name}: {text.count(chr(10))} lines, best of {repeat}")
    print(f"  gcc -E -P                         {best(lambda: preprocess(text), repeat):6.3f} s")
    pre = preprocess(text).encode()
    parser = tree_sitter_parser()
    if parser is not None:
        print(f"  tree-sitter-cuda parse            {best(lambda: parser.parse(pre), repeat):6.3f} s")
        tree = parser.parse(pre)
        nodes, bad = walk_count(tree)
        print(f"  tree-sitter walk ({nodes} nodes)   {best(lambda: walk_count(tree), repeat):6.3f} s"
              f"  ({bad} error nodes)")
    marked = _preprocess(text, str(path))
    print(f"  pycparser parse                   "
          f"{best(lambda: c_parser.CParser().parse(marked, '<stdin>'), repeat):6.3f} s")
    print(f"  adspec reader (gcc -E + pycparser + IL) {best(lambda: parse_file(str(path)), repeat):6.3f} s")


def coverage(paths: list[Path]) -> None:
    """Per file: tree-sitter-cuda on the text after `gcc -E -P` with the system headers (the
    fake libc headers pycparser needs hold `_Atomic` typedefs that tree-sitter-cuda cannot
    read), and adspec's reader."""
    from adspec.engine.errors import SourceError
    from adspec.frontends import parse_file
    from adspec.frontends.cuda import CUDA_INCLUDE_DIR
    parser = tree_sitter_parser()
    print(f"{'file':<28} {'tree-sitter-cuda':<24} adspec reader")
    for path in paths:
        ts = "-"
        if parser is not None:
            cpp = subprocess.run(["gcc", "-E", "-P", "-x", "c", "-I", CUDA_INCLUDE_DIR, "-"],
                                 input=path.read_bytes(), capture_output=True)
            tree = parser.parse(cpp.stdout)
            nodes, bad = walk_count(tree)
            ts = "clean" if bad == 0 and cpp.returncode == 0 else f"{bad} ERROR/MISSING"
        try:
            parse_file(str(path))
            ours = "IL"
        except SourceError as e:
            ours = f"refused: {e}"
        print(f"{path.name:<28} {ts:<24} {ours}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lines", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("files", nargs="*", type=Path, help="C or CUDA files for the coverage table")
    args = ap.parse_args(argv)
    _, cpath = write_sources(DEFAULT_OUTDIR, args.lines)
    speed(cpath, args.repeat)
    if args.files:
        coverage(args.files)
    return 0


if __name__ == "__main__":
    sys.exit(main())
