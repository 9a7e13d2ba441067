"""``str.lower`` exactly as CPython computes it, for the compiled modules.

mypyc compiles ``s.lower()`` on a ``str`` to its own loop, which on Python
before 3.13 lowers non-ASCII text one character at a time and so misses the
one context rule of ``str.lower``: a capital sigma that ends a word becomes a
final sigma (``"failΣ".lower()`` is ``"failς"`` in CPython, ``"failσ"``
compiled). A compiled module lowers through :func:`lower` where its text may
hold a capital sigma and the result must equal the interpreter's.
"""

from __future__ import annotations

from collections.abc import Callable

# Called as an object, not as a method of a str: CPython's own str.lower runs.
_STR_LOWER: Callable[[str], str] = str.lower


def lower(s: str) -> str:
    """``s.lower()``, final sigma included, compiled or not."""
    return _STR_LOWER(s)
