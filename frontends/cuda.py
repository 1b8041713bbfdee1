"""CUDA's syntax mapped onto C, for the C front end (frontends/c.py) to read .cu files.

CUDA C is C plus a few words and two forms; pycparser reads C, so before preprocessing:
- the execution-space and memory-space words (`__global__`, `__shared__`, ...) and
  `__launch_bounds__(...)` are blanked out (lines and columns kept) and remembered by
  position; the C walk gives each declaration the words found before its name
  (`CudaWords.claim`);
- a launch `k<<<grid, block[, shmem]>>>(args)` becomes `__adspec_launch(k, grid, block[, shmem])(args)`,
  which the C walk turns into a `kernelLaunch`;
- `dim3 g(4, 2), h(8);` and `dim3(4, 2)` become calls of `__adspec_dim3`, read back as `call("dim3", ...)`;
- `__restrict__` is C's `restrict`;
- `extern "C"` before a function, and `extern "C" { ... }` around functions, become the attrs
  word `extern "C"` of each function (variables with C linkage are refused).
C++ that CUDA allows but the IL does not hold (templates, classes, namespaces, ...) is refused
here with its line. Header-wise, `cuda_include/` stands in for the CUDA headers: it only names
the runtime's types.
The IL conventions these produce are in engine/il.py's docstring (CUDA).
"""
from __future__ import annotations

import bisect
import os
import re

from ..engine.errors import UnsupportedError
from ..engine.intrinsics import C_INTRINSICS, CUDA_CALLS, CUDA_MATH

__all__ = ["CUDA_INCLUDE_DIR", "CudaWords", "LAUNCH", "DIM3", "C_LINKAGE", "BLOCK_LINKAGE", "to_c", "call_kind", "preprocessor_options"]

CUDA_INCLUDE_DIR = os.path.join(os.path.dirname(__file__), "cuda_include")
LAUNCH, DIM3 = "__adspec_launch", "__adspec_dim3"  # stand-ins that C can parse
C_LINKAGE = 'extern "C"'
BLOCK_LINKAGE = 'extern "C" { }'  # the word of a declaration inside an extern "C" block
DIALECT_WORDS = ("__global__", "__device__", "__host__", "__shared__", "__constant__", "__managed__",
                 "__forceinline__", "__noinline__")

_CPP = re.compile(r"\b(template|class|namespace|using|operator|typename|new|delete|virtual|"
                  r"try|catch|throw|public|private|protected)\b|::")
_CPP_WHAT = {"template": "a C++ template", "class": "a C++ class", "namespace": "a C++ namespace",
             "::": "the C++ scope operator ::", "typename": "a C++ template",
             "operator": "C++ operator overloading", "new": "C++ new", "delete": "C++ delete"}
_LINKAGE = re.compile(r"\bextern\s*$")  # before a 3-character literal: extern "C"
_WORD = re.compile(r"\b(" + "|".join(DIALECT_WORDS) + r")\b|\b__launch_bounds__\s*\(([^()]*)\)")
_LAUNCH_OPEN = re.compile(r"\b([A-Za-z_]\w*)\s*<<<")
_LAUNCH_CLOSE = re.compile(r">>>\s*\(")
_DIM3_DECL = re.compile(r"\bdim3\s+(?=[A-Za-z_])")
_DECLARATOR = re.compile(r"\s*[A-Za-z_]\w*\s*")
_DIM3_CALL = re.compile(r"\bdim3\s*\(")
_RESTRICT = re.compile(r"\b__restrict__\b")


class CudaWords:
    """The dialect words blanked out of the text, by (line, column): a declaration claims the
    unclaimed words before its name (a function's before its parameters')."""

    def __init__(self):
        self._positions: list[tuple] = []
        self._words: list[str] = []
        self._next = 0  # words before this index are claimed
        self.blanked_literals: set[int] = set()  # offsets of the "C" of extern "C"

    def add(self, pos: tuple, word: str) -> None:
        at = bisect.bisect_right(self._positions, pos)
        self._positions.insert(at, pos)
        self._words.insert(at, word)

    def claim(self, name_pos: tuple | None) -> tuple:
        if name_pos is None:
            return ()
        end = bisect.bisect_left(self._positions, name_pos)
        words = tuple(self._words[self._next:end])
        self._next = max(self._next, end)
        return words


def to_c(code_parts, position, filename: str) -> CudaWords:
    """Rewrite the code parts of a .cu text in place (a list of [offset, text] pairs, comments
    and literals excluded) into C, returning the dialect words removed. `position(offset)` gives
    (line, column) in the original text."""
    words = CudaWords()
    linkage_block = _LinkageBlock(words, position, filename)
    for part, following in zip(code_parts, code_parts[1:] + [None]):
        offset, code = part
        code = linkage_block.scan(offset, code)
        linkage = _LINKAGE.search(code)
        if linkage is not None and following is not None and following[0] - offset - len(code) == 3:
            where = position(offset + linkage.start())
            words.add(where, C_LINKAGE)
            words.blanked_literals.add(following[0] - 3)
            code = code[:linkage.start()] + " " * len("extern") + code[linkage.start() + len("extern"):]
            if re.match(r"\s*\{", following[1]):
                linkage_block.open(where[0])
        m = _CPP.search(code)
        if m is not None:
            what = _CPP_WHAT.get(m.group(0), f"the C++ keyword {m.group(0)}")
            raise UnsupportedError(f"{what} is not supported (CUDA is read as C with CUDA's extensions)",
                                   filename, position(offset + m.start())[0])
        for w in _WORD.finditer(code):
            where = position(offset + w.start())
            words.add(where, w.group(1) or _launch_bounds(w.group(2), filename, where[0]))
        code = _WORD.sub(lambda w: re.sub(r"[^\n]", " ", w.group(0)), code)
        if (bad := code.find("__launch_bounds__")) >= 0:
            raise UnsupportedError("__launch_bounds__ without its argument list is not supported",
                                   filename, position(offset + bad)[0])
        code = _RESTRICT.sub("restrict    ", code)
        code = _LAUNCH_OPEN.sub(lambda m: f"{LAUNCH}({m.group(1)}, ", code)
        code = _LAUNCH_CLOSE.sub(")(", code)
        code = _dim3_constructors(code)
        code = _DIM3_CALL.sub(f"{DIM3}(", code)
        part[1] = code
    linkage_block.close()
    return words


class _LinkageBlock:
    """`extern "C" { ... }`: its braces are blanked, and each declaration inside it gets the
    word BLOCK_LINKAGE at its first character; the C walk makes it `extern "C"` on a function,
    which means the same written before it, and refuses it on a variable (written before it,
    it would make the variable's definition a declaration)."""

    def __init__(self, words: CudaWords, position, filename: str):
        self.words, self.position, self.filename = words, position, filename
        self.depth = None  # brace depth inside the open block; None: no block open
        self.line = 0
        self.at_declaration_start = False

    def open(self, line: int) -> None:
        if self.depth is not None:
            raise UnsupportedError('extern "C" blocks inside each other are not supported', self.filename, line)
        self.depth, self.line, self.at_declaration_start = -1, line, False  # -1: its `{` is still to come

    def scan(self, offset: int, code: str) -> str:
        if self.depth is None:
            return code
        chars = list(code)
        for k, c in enumerate(code):
            if c.isspace():
                continue
            if self.depth == -1:  # the block's own `{`
                chars[k], self.depth, self.at_declaration_start = " ", 0, True
                continue
            if c == "}" and self.depth == 0:  # the block's own `}`
                chars[k], self.depth = " ", None
                break
            if self.at_declaration_start and self.depth == 0:
                self.words.add(self.position(offset + k), BLOCK_LINKAGE)
                self.at_declaration_start = False
            if c == "{":
                self.depth += 1
            elif c == "}":
                self.depth -= 1
                self.at_declaration_start = self.depth == 0
            elif c == ";" and self.depth == 0:
                self.at_declaration_start = True
        return "".join(chars)

    def close(self) -> None:
        if self.depth is not None:
            raise UnsupportedError('extern "C" { has no closing }', self.filename, self.line)


def _dim3_constructors(code: str) -> str:
    """`dim3 a(2), b = c, d(3, 4);` as `dim3 a = DIM3(2), b = c, d = DIM3(3, 4);`."""
    opens = []  # offsets of the `(` of a constructor
    for m in _DIM3_DECL.finditer(code):
        pos = m.end()
        while (d := _DECLARATOR.match(code, pos)) is not None:
            pos, depth = d.end(), 0
            if code.startswith("(", pos):
                opens.append(pos)
            while pos < len(code):  # to the `,` or `;` ending this declarator
                c = code[pos]
                depth += c in "([{"
                depth -= c in ")]}"
                if depth < 0 or (depth == 0 and c in ",;"):
                    break
                pos += 1
            if not code.startswith(",", pos):
                break
            pos += 1
    for k in reversed(opens):
        code = f"{code[:k]} = {DIM3}{code[k:]}"
    return code


def preprocessor_options() -> list:
    """gcc -E options for a .cu file: the CUDA headers' type names, included or not (nvcc
    includes them itself); the dialect words defined away in the user's own headers (their
    declarations are not the file's: the words of the file itself are taken out before)."""
    return (["-I", CUDA_INCLUDE_DIR, "-include", os.path.join(CUDA_INCLUDE_DIR, "cuda_runtime.h"),
             "-D__restrict__=restrict", "-D__launch_bounds__(...)="] + [f"-D{w}=" for w in DIALECT_WORDS])


def _launch_bounds(args: str, filename: str, line: int) -> str:
    """`__launch_bounds__(256, 2)` as one attrs word, written back as it is (so its arguments
    must be numbers: the back end does not write the file's macros back)."""
    numbers = [a.strip() for a in args.split(",")]
    if not all(a.isdigit() for a in numbers):
        raise UnsupportedError("__launch_bounds__ with other arguments than numbers is not supported",
                               filename, line)
    return "__launch_bounds__(" + ", ".join(numbers) + ")"


def call_kind(name: str, defined: frozenset) -> str | None:
    """IL op for a call of `name` in CUDA code: 'call' or 'intrinsic'; None for an unknown
    intrinsic (a `__name` CUDA reserves that is neither known nor defined in the file)."""
    if name in defined or name in CUDA_CALLS:
        return "call"
    if name in C_INTRINSICS or name in CUDA_MATH:
        return "intrinsic"
    if name.startswith("__"):
        return None
    return "call"
