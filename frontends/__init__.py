"""Front ends: source text -> IL. Each language sits behind one narrow function so that a
faster reader can replace it without touching anything else."""
from __future__ import annotations

import gc
import os
import re
from contextlib import contextmanager

from ..engine.errors import SourceError

FORTRAN_FIXED_EXT = (".f", ".for", ".f77")
FORTRAN_FREE_EXT = (".f90", ".f95", ".f03", ".f08")
C_EXT = (".c", ".h", ".cu")


def language_of(filename: str) -> tuple[str, str | None]:
    """(language, form) from a file name: ('fortran', 'fixed'|'free') or ('c', None)."""
    form = _form_of_name(filename)
    if form is not None:
        return "fortran", form
    if os.path.splitext(filename)[1].lower() in C_EXT:
        return "c", None
    raise SourceError(f"unknown source language for extension {os.path.splitext(filename)[1].lower()!r} "
                      f"(expected one of {' '.join(FORTRAN_FIXED_EXT + FORTRAN_FREE_EXT + C_EXT)})", filename)


def _form_of_name(filename: str) -> str | None:
    ext = os.path.splitext(filename)[1].lower()
    return "fixed" if ext in FORTRAN_FIXED_EXT else "free" if ext in FORTRAN_FREE_EXT else None


def parse_source(text: str, filename: str = "<string>", lang: str | None = None, form: str | None = None,
                 modules: dict | None = None):
    """Parse source text to an IL `file` node. Raises SourceError on bad input. `modules`
    (Fortran: module name -> scope) carries the modules of the files read before."""
    if lang is None:
        lang, guessed_form = language_of(filename)
        form = form or guessed_form
    elif lang == "fortran" and form is None:  # source text: the file name's extension still gives the form
        form = _form_of_name(filename)
    if not text.strip():
        raise SourceError("empty source file", filename, 1)
    with _collector_paused():
        return _parse(text, filename, lang, form, modules)


def _parse(text, filename, lang, form, modules):
    if lang == "fortran":
        from .fortran import parse_fortran
        return parse_fortran(text, filename, form or "free", modules)
    if lang in ("c", "cuda"):
        from .c import parse_c
        return parse_c(text, filename, cuda=True if lang == "cuda" else None)
    raise SourceError(f"unknown source language {lang!r}", filename)


@contextmanager
def _collector_paused():
    """Reading builds a large tree of acyclic objects: the cyclic garbage collector would scan
    it again and again (15% of the time) for nothing."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def parse_file(path: str, lang: str | None = None, form: str | None = None, modules: dict | None = None):
    """Read and parse a source file to an IL `file` node."""
    return parse_source(read_source(path), path, lang, form, modules)


def read_source(path: str) -> str:
    """The text of a source file; SourceError when it cannot be read or is not text."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise SourceError(f"cannot read file: {e.strerror}", path) from None
    if b"\0" in raw:
        raise SourceError("binary file, not source text", path, 1)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = raw[: e.start].count(b"\n") + 1
        raise SourceError("file is not UTF-8 text", path, line) from None
    return text


_MODULE_DEFINITION = re.compile(r"^[ \t]*module[ \t]+(?!procedure\b)(\w+)", re.IGNORECASE | re.MULTILINE)
_MODULE_USE = re.compile(r"^[ \t]*use[ \t]*(?:,[^:\n]*::)?[ \t]*(\w+)", re.IGNORECASE | re.MULTILINE)


def parse_files(paths: list[str]) -> list:
    """Parse several source files of one program, given in any order: a Fortran file is read
    after the files defining the modules it uses, so that their names are known. The IL
    `file` nodes come back in the order of `paths`."""
    texts = {path: read_source(path) for path in paths}
    defined_in = {}
    for path, text in texts.items():
        for name in _MODULE_DEFINITION.findall(text):
            defined_in.setdefault(name.lower(), path)
    order, state = [], {}

    def visit(path):  # depth first: the definers of a file's modules come first
        if state.get(path):
            return
        state[path] = "visiting"
        for name in _MODULE_USE.findall(texts[path]):
            definer = defined_in.get(name.lower())
            if definer is not None and definer != path and state.get(definer) != "visiting":
                visit(definer)
        state[path] = "done"
        order.append(path)

    for path in paths:
        visit(path)
    modules: dict = {}
    trees = {path: parse_source(texts[path], path, modules=modules) for path in order}
    return [trees[path] for path in paths]
