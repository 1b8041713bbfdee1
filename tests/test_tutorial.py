"""docs/tutorial.md runs as written: every command of its console blocks runs, in order, in one
scratch directory, and prints what the tutorial says it prints.

The tutorial's convention (stated in its introduction): a fenced block marked `console` holds
commands, each on a line starting with `$ `, each followed by its output (stdout and stderr as a
terminal shows them). The commands are `adspec ...`, `cat FILE` and `diff -u A B`; anything else
fails the test. They run from a directory where `docs/` is the repository's, so that a reader
runs them from the repository root. The only normalisation: diff's file time stamps, and the
timings of `adspec check`.

After a deliberate change of the outputs: python tests/test_tutorial.py --update
rewrites the outputs in docs/tutorial.md (then read the diff before committing it).
"""
from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parent.parent / "docs"
TUTORIAL = DOCS / "tutorial.md"
FIGURES = (6, 7, 8, 9, 10, 12, 13)     # the paper's figures the tutorial reproduces (issue 18)
PROGRAMS = ("adspec", "cat", "diff")
FENCE = re.compile(r"^```console\n(.*?)^```\n", re.S | re.M)
DIFF_HEADER = re.compile(r"^(---|\+\+\+) (\S+)\t.*$", re.M)
TIMING = re.compile(r"\b\d+(\.\d+)? ?(s|ms)\b")
BESIDE = Path(sys.executable).parent / "adspec"   # the adspec of the Python running the tests
ADSPEC = str(BESIDE) if BESIDE.exists() else shutil.which("adspec")
pytestmark = pytest.mark.skipif(ADSPEC is None, reason="the adspec command is not installed")


@dataclass
class Command:
    line: int          # of the `$ ` line in the tutorial
    text: str          # the command, without the `$ `
    expected: str      # the output the tutorial shows
    start: int         # offsets of the expected output in the tutorial's text
    end: int

    @property
    def words(self) -> list:
        return shlex.split(self.text)


def commands(text: str) -> list:
    """The commands of the console blocks of `text`, in order."""
    found = []
    for block in FENCE.finditer(text):
        offset = block.start(1)
        body = block.group(1)
        starts = [m.start() for m in re.finditer(r"^\$ ", body, re.M)]
        if not starts or starts[0] != 0:
            raise ValueError(f"tutorial.md:{text.count(chr(10), 0, offset) + 1}: a console block starts with `$ `")
        for start, next_start in zip(starts, starts[1:] + [len(body)]):
            command_end = body.index("\n", start) + 1
            found.append(Command(line=text.count("\n", 0, offset + start) + 1,
                                 text=body[start + 2:command_end - 1],
                                 expected=body[command_end:next_start],
                                 start=offset + command_end, end=offset + next_start))
    return found


def normalised(output: str) -> str:
    output = DIFF_HEADER.sub(r"\1 \2", output)
    return output.rstrip("\n") + "\n" if output.strip() else ""


def check_timings(output: str) -> str:
    """`adspec check` reports how long it took: the one value that changes from run to run."""
    return TIMING.sub("<time>", output)


def run(command: Command, cwd: Path) -> tuple[int, str]:
    """The exit status and the output (stdout and stderr, in the order a terminal shows them)."""
    words = command.words
    if words[0] not in PROGRAMS:
        raise ValueError(f"tutorial.md:{command.line}: `{words[0]}` is not one of the commands the test runs "
                         f"({', '.join(PROGRAMS)})")
    if words[0] == "cat":
        return 0, "".join((cwd / name).read_text() for name in words[1:])
    program = [ADSPEC] if words[0] == "adspec" else ["diff"]
    env = dict(os.environ, PYTHONUNBUFFERED="1")     # stderr and stdout interleaved as on a terminal
    done = subprocess.run(program + words[1:], cwd=cwd, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=300)
    return done.returncode, done.stdout


def allowed_status(command: Command, status: int) -> bool:
    """0, or 1 where 1 is an answer: diff's "the files differ", `adspec check`'s FAIL verdict."""
    words = command.words
    answers = words[0] == "diff" or words[:2] == ["adspec", "check"]
    return status == 0 or (status == 1 and answers)


def comparable(command: Command, output: str) -> str:
    output = normalised(output)
    return check_timings(output) if command.words[:2] == ["adspec", "check"] else output


def run_all(text: str, cwd: Path) -> list:
    """(command, status, output) for each command of the tutorial, run in order in cwd."""
    (cwd / "docs").symlink_to(DOCS)
    return [(command, *run(command, cwd)) for command in commands(text)]


def compiles(command: Command) -> bool:
    """`adspec check` compiles the program and the candidate (not `--init`)."""
    return command.words[:2] == ["adspec", "check"] and "--init" not in command.words


def _params():
    return [pytest.param(index, id=f"L{c.line}: {c.text[:60]}", marks=[pytest.mark.compile] if compiles(c) else [])
            for index, c in enumerate(commands(TUTORIAL.read_text()))]


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    results = run_all(TUTORIAL.read_text(), tmp_path_factory.mktemp("tutorial"))
    return {command.line: (command, status, output) for command, status, output in results}


@pytest.mark.parametrize("index", _params())
def test_command_prints_what_the_tutorial_shows(outputs, index):
    command = commands(TUTORIAL.read_text())[index]
    if compiles(command):
        from harness import require_compilers
        require_compilers("c" if any(w.endswith(".c") for w in command.words) else "fortran")
    _, status, output = outputs[command.line]
    assert allowed_status(command, status), f"tutorial.md:{command.line}: exit status {status}\n{output}"
    assert comparable(command, output) == comparable(command, command.expected), (
        f"tutorial.md:{command.line}: `{command.text}` prints something else than the tutorial shows "
        f"(after a deliberate change: python tests/test_tutorial.py --update)")


def test_the_tutorial_reproduces_the_figures_and_shows_each_command():
    text = TUTORIAL.read_text()
    found = commands(text)
    assert len(found) >= 30
    for figure in FIGURES:
        assert re.search(rf"^#+ .*\bfigure {figure}\b", text, re.M | re.I), f"no section on figure {figure}"
    shown = {tuple(c.words[:2]) for c in found}
    for sub_command in ("explain", "analyze"):
        assert ("adspec", sub_command) in shown, sub_command
    switches = {word for c in found for option, word in zip(c.words, c.words[1:]) if option == "-nooptim"}
    from adspec.pipeline import NOOPTIM
    assert switches == set(NOOPTIM), f"-nooptim words the tutorial does not show: {set(NOOPTIM) - switches}"


def test_a_changed_output_or_an_unknown_command_is_caught(tmp_path):
    """The comparison can fail: one changed character of an output, or a command the test
    cannot run, does not pass."""
    text = ("```console\n$ cat docs/examples/fig6.f90\n" + (DOCS / "examples" / "fig6.f90").read_text()
            + "```\n")
    (command, status, output), = run_all(text, tmp_path)
    assert status == 0 and comparable(command, output) == comparable(command, command.expected)
    changed = command.expected.replace("cos", "sin")
    assert comparable(command, output) != comparable(command, changed)
    with pytest.raises(ValueError, match="is not one of the commands"):
        run(commands("```console\n$ rm -rf out\n```\n")[0], tmp_path)


def test_diff_time_stamps_and_check_timings_are_all_that_is_normalised():
    header = "--- out/a_b.f90\t2026-11-28 03:26:40.023989396 +0000\n+++ b/a_b.f90\t2026-11-28 03:26:41.0 +0000\n"
    assert normalised(header) == "--- out/a_b.f90\n+++ b/a_b.f90\n"
    assert normalised("   xb = 0.0d0  \n") == "   xb = 0.0d0  \n"
    assert check_timings("checked in 1.93 s") == "checked in <time>"


def update(path: Path = TUTORIAL) -> None:
    """Write the current outputs into the tutorial (python tests/test_tutorial.py --update)."""
    import tempfile
    text = path.read_text()
    with tempfile.TemporaryDirectory() as scratch:
        results = run_all(text, Path(scratch))
    for command, status, output in reversed(results):
        if not allowed_status(command, status):
            print(f"tutorial.md:{command.line}: exit status {status}: {command.text}", file=sys.stderr)
        text = text[:command.start] + normalised(output) + text[command.end:]
    path.write_text(text)


if __name__ == "__main__":
    if sys.argv[1:] != ["--update"]:
        sys.exit("usage: python tests/test_tutorial.py --update")
    update()
