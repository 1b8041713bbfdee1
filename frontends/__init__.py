"""Front ends: source text -> IL. Each language sits behind one narrow function so that a
faster reader can replace it without touching anything else."""
from __future__ import annotations

import os

from ..engine.errors import SourceError

FORTRAN_FIXED_EXT = (".f", ".for", ".f77")
FORTRAN_FREE_EXT = (".f90", ".f95", ".f03", ".f08")
C_EXT = (".c", ".h", ".cu")


def language_of(filename: str) -> tuple[str, str | None]:
    """(language, form) from a file name: ('fortran', 'fixed'|'free') or ('c', None)."""
    ext = os.path.splitext(filename)[1].lower()
    if ext in FORTRAN_FIXED_EXT:
        return "fortran", "fixed"
    if ext in FORTRAN_FREE_EXT:
        return "fortran", "free"
    if ext in C_EXT:
        return "c", None
    raise SourceError(f"unknown source language for extension {ext!r} "
                      f"(expected one of {' '.join(FORTRAN_FIXED_EXT + FORTRAN_FREE_EXT + C_EXT)})", filename)


def parse_source(text: str, filename: str = "<string>", lang: str | None = None, form: str | None = None):
    """Parse source text to an IL `file` node. Raises SourceError on bad input."""
    if lang is None:
        lang, guessed_form = language_of(filename)
        form = form or guessed_form
    if not text.strip():
        raise SourceError("empty source file", filename, 1)
    if lang == "fortran":
        from .fortran import parse_fortran
        return parse_fortran(text, filename, form or "free")
    if lang == "c":
        from .c import parse_c
        return parse_c(text, filename)
    raise SourceError(f"unknown source language {lang!r}", filename)


def parse_file(path: str, lang: str | None = None, form: str | None = None):
    """Read and parse a source file to an IL `file` node."""
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
    return parse_source(text, path, lang, form)


def parse_files(paths: list[str]) -> list:
    """Parse several source files of one program, in the order given, to their IL `file`
    nodes. (Each file is read on its own for now; resolving Fortran modules across files
    belongs here.)"""
    return [parse_file(path) for path in paths]
