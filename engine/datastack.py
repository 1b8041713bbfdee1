"""Run a function on a roomy Python data stack.

CPython (3.11 and later) keeps the frames of Python calls in chunks of 16 KiB that it maps
with mmap as the call depth grows, and unmaps as soon as a chunk empties. A recursion whose
depth keeps going up and down across a chunk's end (the rule runner, one query nested in
another for every sub-tree; the writer's walk of deep expressions) maps and unmaps a chunk
at each crossing: 82,000 times for `adspec -d` on the 10,000-line random file, about 0.5 s
of system time, and the cache misses of fresh pages besides.

`roomy(function)` gives a function that calls `function` from a frame that reserves about
1 MiB of evaluation stack it never uses: CPython gives that frame a chunk of its own, large
enough for it, and the calls made from it fill the rest of that chunk, which stays mapped
until the function returns. The reserve is an unused stack depth set on a copy of a tiny
function's code object; nothing is allocated on older Pythons, whose frames are objects.
"""
from __future__ import annotations

from functools import wraps

_RESERVE = 1 << 17      # stack slots (pointers): 1 MiB on 64-bit


def _call(function, args, kwargs):
    return function(*args, **kwargs)


_call_roomy = type(_call)(_call.__code__.replace(co_stacksize=_RESERVE), _call.__globals__, "_call_roomy")


def roomy(function):
    """`function`, called from a frame with a large data stack chunk (module docstring)."""
    @wraps(function)
    def on_roomy_stack(*args, **kwargs):
        return _call_roomy(function, args, kwargs)
    return on_roomy_stack
