"""Old import path of engine/interp/intrinsics.py (the same module object)."""
import sys

from .interp import intrinsics

sys.modules[__name__] = intrinsics
