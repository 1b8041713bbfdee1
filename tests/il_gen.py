"""Hypothesis strategies of random IL programs: the generator of adspec/campaign/generate.py
driven by hypothesis' `draw` (`DrawChoices`), so that hypothesis shrinks what it finds."""
from __future__ import annotations

import os

from hypothesis import strategies as st

from adspec.campaign import generate
from adspec.campaign.generate import HELPERS_SOURCE, JUMP_OPS, N, SPEC  # noqa: F401  (the tests' names)


def examples(n: int) -> int:
    """Number of hypothesis examples: n, times ADSPEC_HYPOTHESIS_SCALE for stress runs."""
    return n * int(os.environ.get("ADSPEC_HYPOTHESIS_SCALE", "1"))


class DrawChoices:
    """The generator's choice interface over hypothesis' `draw`."""

    def __init__(self, draw):
        self.draw = draw

    def integers(self, lo, hi):
        return self.draw(st.integers(lo, hi))

    def choice(self, options):
        return self.draw(st.sampled_from(options))

    def boolean(self):
        return self.draw(st.booleans())

    def int_set(self, lo, hi, min_size, max_size):
        return self.draw(st.sets(st.integers(lo, hi), min_size=min_size, max_size=max_size))

    def permutation(self, items):
        return self.draw(st.permutations(items))


@st.composite
def programs(draw, lang, structured=False, calls=None, exits=False):
    """A random IL `file` (generate.program): `structured`: no jumps, WHILE loops nor calls;
    `calls` False: jumps and WHILE loops, no calls; `exits`: EXIT and CYCLE too."""
    return generate.program(DrawChoices(draw), lang, structured, calls, exits)


@st.composite
def programs_with_call(draw, lang):
    """(program with head calling a callee, the same with the callee inlined): generate.program_with_call."""
    return generate.program_with_call(DrawChoices(draw), lang)
