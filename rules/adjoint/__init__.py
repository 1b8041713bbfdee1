"""The adjoint rules (paper 5.4), one module per group: procedures, sequence and control,
assignments, expressions and references, calls, array notation (4.11), structures, C
pointers, allocation. Judgment `adjoint` maps a statement to the pair (forward sweep, backward
sweep), written as a block of two blocks. Importing the modules registers their rules."""
from . import (allocation, arrays, assignments, bounds, calls, control, expressions, jumps, loops,  # noqa: F401
               pointers, procedures, sections, statements, structures, trips)
from .ruleset import ADJOINT

__all__ = ["ADJOINT"]
