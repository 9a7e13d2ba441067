"""``json.dumps`` with fixed settings, minus its per-call set-up.

Why: the engine serialises every tool step's input and output (loop keys,
text views, failure targets) with non-default ``json.dumps`` settings. With
any non-default keyword ``json.dumps`` builds a ``JSONEncoder`` and then a C
encoder on every call; for a ``{"path": "src/a.ts"}`` that set-up costs
several times the encoding itself. :class:`Dumps` builds the C encoder once
and calls it directly, exactly as ``JSONEncoder.encode`` does in one-shot
mode, so the text is the same string ``json.dumps`` returns. Any error (an
unserialisable key, a circular reference, too deep a value) is answered by
calling ``json.dumps`` itself, so callers see its exact exception; the C
encoder is then rebuilt, as a failed walk can leave entries in its
circular-reference markers.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from json import encoder as _encoder
from typing import Any

__all__ = ["Dumps", "canonical", "sorted_ascii", "sorted_text"]


class Dumps:
    """``json.dumps(value, sort_keys=True, default=str, ensure_ascii=...,
    separators=...)`` as one reusable callable."""

    __slots__ = ("_encode_str", "_iterencode", "_kwargs", "_separators")

    def __init__(self, *, ensure_ascii: bool, separators: tuple[str, str]) -> None:
        self._kwargs: dict[str, Any] = {
            "sort_keys": True,
            "ensure_ascii": ensure_ascii,
            "separators": separators,
            "default": str,
        }
        self._separators = separators
        self._encode_str: Callable[[str], str] = (
            _encoder.encode_basestring_ascii if ensure_ascii else _encoder.encode_basestring
        )
        self._iterencode: Any = None
        self._rebuild()

    def _rebuild(self) -> None:
        make = getattr(_encoder, "c_make_encoder", None)  # absent from the typeshed stub
        if make is None:  # no C accelerator: json.dumps on every call
            self._iterencode = None
            return
        item_sep, key_sep = self._separators
        # the argument order of JSONEncoder.iterencode's one-shot call
        self._iterencode = make(
            {}, str, self._encode_str, None, key_sep, item_sep, True, False, True
        )

    def __call__(self, value: Any) -> str:
        if isinstance(value, str):
            return self._encode_str(value)  # JSONEncoder.encode's own shortcut
        it = self._iterencode
        if it is None:
            return json.dumps(value, **self._kwargs)
        try:
            return "".join(it(value, 0))
        except Exception:
            self._rebuild()
            return json.dumps(value, **self._kwargs)

    def reference(self, value: Any) -> str:
        """The ``json.dumps`` call this stands for (tests compare the two)."""
        return json.dumps(value, **self._kwargs)


# ``json.dumps(v, sort_keys=True, ensure_ascii=False, default=str)``
sorted_text = Dumps(ensure_ascii=False, separators=(", ", ": "))
# ``json.dumps(v, sort_keys=True, default=str)``
sorted_ascii = Dumps(ensure_ascii=True, separators=(", ", ": "))
# ``json.dumps(v, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)``
canonical = Dumps(ensure_ascii=False, separators=(",", ":"))
