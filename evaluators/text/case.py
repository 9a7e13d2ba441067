"""``str.lower`` exactly as CPython computes it, for the compiled modules.

mypyc compiles ``s.lower()`` on a ``str`` to its own loop, which on Python
before 3.13 lowers non-ASCII text one character at a time and so misses the
one context rule of ``str.lower``: a capital sigma that ends a word becomes a
final sigma (``"failΣ".lower()`` is ``"failς"`` in CPython, ``"failσ"``
compiled). The compiled modules lower through :func:`lower` instead, which is
``str.lower`` itself: called as an object, not as a method of a ``str``, it
runs CPython's own method compiled or not (and costs what ``s.lower()`` does
when interpreted).
"""

from __future__ import annotations

from collections.abc import Callable

lower: Callable[[str], str] = str.lower
