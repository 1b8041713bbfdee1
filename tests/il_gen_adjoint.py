"""Hypothesis strategy of the wider random programs of adjoint mode (issue 16):
generate.wide_program (constructs that break AD tools in real code) driven by hypothesis."""
from __future__ import annotations

from hypothesis import strategies as st

from adspec.campaign import generate
from adspec.campaign.generate import CLASSES, WIDE_HELPERS_SOURCE  # noqa: F401  (the tests' names)
from il_gen import DrawChoices


@st.composite
def wide_programs(draw, lang):
    """(IL file, frozenset of the construct classes it contains: CLASSES[lang])."""
    return generate.wide_program(DrawChoices(draw), lang)
