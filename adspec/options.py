"""Checking a command line against its parser before argparse reads it, so that a mistyped
option gets one line naming the closest known ones instead of argparse's usage block. (Tapenade's
options are single-dash words, `-head`, which argparse would otherwise try to read as `-h` with
a glued value.)"""
from __future__ import annotations

import argparse
import difflib
import re

_NUMBER = re.compile(r"-\.?\d")


class UsageError(Exception):
    """A bad command line: printed as `adspec: message`, exit status 1."""


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors raise UsageError instead of printing usage and exiting."""

    def error(self, message):
        raise UsageError(message)


def option_table(parser: argparse.ArgumentParser) -> dict[str, int]:
    """Option string -> number of values it takes (0 for flags)."""
    table = {}
    for action in parser._actions:
        for name in action.option_strings:
            table[name] = 0 if action.nargs == 0 else 1
    return table


def reject_unknown_options(parser: argparse.ArgumentParser, argv: list[str]) -> None:
    """Raise UsageError at the first word that looks like an option and is none of `parser`'s."""
    table = option_table(parser)
    i = 0
    while i < len(argv):
        word = argv[i]
        if word == "--":
            return
        if word.startswith("-") and word != "-" and not _NUMBER.match(word):
            name, glued, _ = word.partition("=")       # -head=f, --dot=DIR
            if name not in table:
                raise UsageError(f"unknown option {name}{_suggestion(name, table)}")
            i += 1 + (table[name] if not glued else 0)
            continue
        i += 1


def _suggestion(name: str, table: dict) -> str:
    # single-dash spellings first: they are Tapenade's
    candidates = sorted(table, key=lambda o: (o.startswith("--"), o))
    close = difflib.get_close_matches(name, candidates, n=3, cutoff=0.75)
    seen, shown = set(), []
    for option in close:
        bare = option.lstrip("-")
        if bare not in seen:
            seen.add(bare)
            shown.append(option)
    return f" (did you mean {' or '.join(shown)}?)" if shown else ""
