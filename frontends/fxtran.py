"""Running fxtran: Fortran source text -> fxtran's XML tree (lxml), with source lines.

fxtran (the parser of Météo-France's tools, shipped as a binary in the `pyfxtran` wheel) is run
once per file. Its XML keeps every character of the source, so `element.sourceline` (lxml) is
the source line, except after an INCLUDE, whose text fxtran inlines as a nested `<file>`:
`SourceLines` maps XML lines back to the lines of the file being read.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile

from lxml import etree

from ..engine.errors import SourceError

__all__ = ["fxtran_tree", "fxtran_binary", "SourceLines"]

_NAMESPACE = ' xmlns="http://fxtran.net/#syntax"'
_INSTALL_HINT = "install it with `pip install pyfxtran`, or set ADSPEC_FXTRAN to an fxtran binary"


def fxtran_binary() -> str:
    """Path of the fxtran executable: $ADSPEC_FXTRAN, pyfxtran's bundled binary, or PATH."""
    path = os.environ.get("ADSPEC_FXTRAN")
    if path:
        return path
    try:
        import pyfxtran
        bundled = os.path.join(os.path.dirname(pyfxtran.__file__), "bin", "fxtran")
        if os.path.exists(bundled):
            return bundled
    except ImportError:
        pass
    found = shutil.which("fxtran")
    if found:
        return found
    raise SourceError(f"the Fortran reader fxtran was not found: {_INSTALL_HINT}", "<adspec>")


def fxtran_tree(text: str, filename: str, form: str):
    """The root `<file>` element of fxtran's XML for `text` (constructs nested, operator
    expressions flat). Raises SourceError with the line fxtran reports on bad input."""
    include_dir = os.path.dirname(os.path.abspath(filename)) if filename and not filename.startswith("<") else "."
    proc = _run_fxtran(text, form, ["-I", include_dir])
    if proc.returncode < 0:  # fxtran crashed, saying nothing: find the first line it cannot take
        raise SourceError("Fortran syntax error: the reader fxtran cannot read this statement", filename,
                          _first_crashing_line(text, form))
    if proc.returncode != 0:
        message, line = _fxtran_error(proc.stderr.decode("utf-8", "replace"))
        include = _INCLUDE_LINE.search(text)
        if "included file" in message:
            line = _include_line(text, message)
        elif include is not None:
            # fxtran numbers the lines of the text with its INCLUDEs expanded: read the file alone
            alone = _run_fxtran(text, form, ["-no-include"])
            if alone.returncode != 0:
                message, line = _fxtran_error(alone.stderr.decode("utf-8", "replace"))
            else:
                message, line = f"in an INCLUDEd file: {message}", text[:include.start()].count("\n") + 1
        raise SourceError(message, filename, line)
    xml = proc.stdout.decode("utf-8", "replace").replace(_NAMESPACE, "", 1)
    try:
        root = etree.fromstring(xml.encode("utf-8"), etree.XMLParser(huge_tree=True))
    except etree.XMLSyntaxError as e:
        # fxtran wrote a broken tree for a statement it could not read: the element it left
        # open names the statement's line
        opened = re.search(r"mismatch: \S+ line (\d+)", str(e))
        raise SourceError("Fortran syntax error: the reader fxtran cannot read this statement", filename,
                          int(opened.group(1)) if opened else (e.lineno or 1)) from None
    return root.find("file")


_TAB_CONTINUATION = re.compile(r"^\t([1-9])", re.MULTILINE)
_TAB_LINE = re.compile(r"^([ 0-9]{0,5})\t", re.MULTILINE)


def untabify_fixed_form(text: str) -> str:
    """DEC TAB format, which gfortran reads and fxtran does not, in column layout: TAB then a
    digit 1-9 starts a continuation line; otherwise a TAB after the label field (blank or a
    label) ends it, the statement starting in column 7. Line numbers are unchanged."""
    text = _TAB_CONTINUATION.sub(r"     \1", text)
    return _TAB_LINE.sub(lambda m: m.group(1).ljust(6), text)


def _first_crashing_line(text: str, form: str) -> int:
    """The smallest number of leading lines on which fxtran crashes (bisection), as a line."""
    lines = text.split("\n")
    lo, hi = 1, len(lines)
    while lo < hi:
        mid = (lo + hi) // 2
        if _run_fxtran("\n".join(lines[:mid]) + "\n", form, ["-no-include"]).returncode < 0:
            hi = mid
        else:
            lo = mid + 1
    return lo


def _include_line(text: str, message: str) -> int:
    """The line of the INCLUDE that names the file of fxtran's message (else the first one)."""
    missing = re.search(r"'([^']*)'", message)
    for m in _INCLUDE_LINE.finditer(text):
        end = text.find("\n", m.end())
        if missing is None or missing.group(1) in text[m.end():end if end >= 0 else None]:
            return text[:m.start()].count("\n") + 1
    return 1


def _run_fxtran(text: str, form: str, options: list) -> subprocess.CompletedProcess:
    if form == "fixed":
        text = untabify_fixed_form(text)
    with tempfile.TemporaryDirectory(prefix="adspec-fx-") as tmp:
        source = os.path.join(tmp, "source" + (".f" if form == "fixed" else ".f90"))
        with open(source, "w", encoding="utf-8") as f:
            f.write(text)
        try:
            return subprocess.run([fxtran_binary(), "-construct-tag", "-flat-op-expr", "-no-cpp", *options,
                                   "-o", "-", source], capture_output=True, cwd=tmp)
        except OSError as e:
            raise SourceError(f"cannot run the Fortran reader fxtran ({e.strerror}): {_INSTALL_HINT}",
                              "<adspec>") from None


_INCLUDE_LINE = re.compile(r"^[ \t]*include[ \t]*['\"]", re.IGNORECASE | re.MULTILINE)
_NUMBERED = re.compile(r"^\s*(\d+) \|")


def _fxtran_error(report: str) -> tuple[str, int | None]:
    """(message, line) from fxtran's error report: the message follows the `At FXTRAN_...`
    line; the line is the numbered source line just above the caret, else the last one shown."""
    lines = report.splitlines()
    message, line = "", None
    for i, text in enumerate(lines):
        if text.startswith("At FXTRAN"):
            message = next((t.strip() for t in lines[i + 1:] if t.strip()), "")
        m = _NUMBERED.match(text)
        if m:
            line = int(m.group(1))
        elif text.strip() == "^" and line is not None:
            break
    message = message.replace("`", "'")
    if "included file" in message:
        return message, line
    return f"Fortran syntax error: {message}" if message else "Fortran syntax error", line


class SourceLines:
    """Source line of an element: its XML line, less the lines of the INCLUDEd files before it.
    An element inside an included file gets the line of the INCLUDE."""

    def __init__(self, file_element):
        self.spans = []  # (first XML line of the included text, its number of lines)
        for nested in file_element.iter("file"):
            if nested is not file_element:
                count = sum(t.count("\n") for t in nested.itertext())
                self.spans.append((nested.sourceline, count))
        self.spans.sort()

    def __call__(self, element) -> int:
        line = element.sourceline
        if not self.spans:
            return line
        shift = 0
        for start, count in self.spans:
            if line < start:
                break
            if line < start + count:
                return start - 1 - shift
            shift += count
        return line - shift
