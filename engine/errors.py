"""Errors a user can act on: each carries the source file and line it is about."""
from __future__ import annotations

from contextlib import contextmanager


class SourceError(Exception):
    """Bad or unsupported input. Printed by the command line as `file:line: message`."""

    def __init__(self, message: str, filename: str = "<input>", line: int | None = None):
        # always one line: messages quoting a parser's multi-line report are folded
        message = " ".join(part.strip() for part in str(message).splitlines() if part.strip())
        super().__init__(message)
        self.message = message
        self.filename = filename
        self.line = line

    def __str__(self):
        where = self.filename if self.line is None else f"{self.filename}:{self.line}"
        return f"{where}: {self.message}"


class UnsupportedError(SourceError):
    """A construct the tool recognises but does not handle (yet)."""


@contextmanager
def at_line(line: int | None):
    """Give the errors raised inside, that know no line of their own, this line (the line of
    the statement being processed when an expression inside it turns out to be bad)."""
    try:
        yield
    except SourceError as e:
        if e.line is None:
            e.line = line
        raise
