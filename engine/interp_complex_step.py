"""Old import path of engine/interp/complex_step.py (the same module object)."""
import sys

from .interp import complex_step

sys.modules[__name__] = complex_step
