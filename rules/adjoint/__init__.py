"""The adjoint rules (paper 5.4), one module per group: procedures, sequence and control,
assignments, expressions and references. Judgment `adjoint` maps a statement to the pair
(forward sweep, backward sweep), written as a block of two blocks."""
from . import assignments, control, expressions, jumps, loops, procedures  # noqa: F401  (they register the rules)
from .ruleset import ADJOINT

__all__ = ["ADJOINT"]
