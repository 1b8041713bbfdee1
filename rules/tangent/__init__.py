"""The tangent rules (paper 5.3), one module per group: procedures and arguments, sequence
and control, assignments, calls, expressions and references."""
from . import assignments, calls, control, expressions, procedures  # noqa: F401  (they register the rules)
from .ruleset import TANGENT

__all__ = ["TANGENT"]
