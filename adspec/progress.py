"""Progress of a long differentiation: one line on stderr, rewritten in place, when stderr is
a terminal and the input is long (more than about 2,000 lines: some seconds of work). Nothing
otherwise, so that logs and pipes get only the messages that matter."""
from __future__ import annotations

PROGRESS_MIN_LINES = 2000


class TerminalProgress:
    """`progress(name, index, total)` shows `adspec: differentiating NAME (INDEX/TOTAL)` in
    place of the previous line; `clear()` erases it (call it before anything else is printed)."""

    def __init__(self, stream):
        self.stream = stream
        self.width = 0      # characters of the line on screen

    def __call__(self, name: str, index: int, total: int) -> None:
        self.show(f"adspec: differentiating {name} ({index}/{total})")

    def show(self, text: str) -> None:
        """`text` in place of the previous line."""
        self.stream.write("\r" + text + " " * max(0, self.width - len(text)))
        self.stream.flush()
        self.width = len(text)

    def clear(self) -> None:
        if self.width:
            self.stream.write("\r" + " " * self.width + "\r")
            self.stream.flush()
            self.width = 0


def progress_for(paths, stream) -> TerminalProgress | None:
    """A TerminalProgress on `stream` when it is a terminal and the files are long, else None."""
    if not stream.isatty():
        return None
    lines = 0
    for path in paths:
        try:
            with open(path, "rb") as f:
                lines += sum(1 for _ in f)
        except OSError:
            return None     # the reader reports a missing file in its own words
    return TerminalProgress(stream) if lines > PROGRESS_MIN_LINES else None
