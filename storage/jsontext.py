"""JSON text for the database's JSON columns: one encoder for every write path.

Encoding verdicts (~18 KB of small objects each) with the standard library was
a third of storing one. ``orjson`` writes the same JSON about 8× faster; the
standard encoder remains the fallback for what orjson refuses (integers beyond
64 bits, which a native ingest's free-form metadata may hold). Datetimes and
dataclasses go through ``str``, as they always did, so stored text keeps its
form.
"""

from __future__ import annotations

import json
from typing import Any

import orjson
from mypy_extensions import mypyc_attr

_OPTIONS = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS
# Non-string keys (integers in free-form metadata) need OPT_NON_STR_KEYS, which
# makes orjson check every key of every dict: ~40 % slower on a verdict. Values
# whose keys are all strings, nearly all of them, are encoded without it first;
# the output is the same either way.
_NON_STR_OPTIONS = _OPTIONS | orjson.OPT_NON_STR_KEYS
_fallback = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), default=str).encode


@mypyc_attr(native_class=False)  # compiled: a native class cannot subclass bytes
class Encoded(bytes):
    """JSON text already encoded, as UTF-8 (by ``encode_fast_utf8``): ``dumps``
    decodes it, ``dumps_utf8`` passes it through."""

    __slots__ = ()


def dumps(value: Any) -> str:
    """Compact JSON text of ``value``; what ``json.loads`` reads back equals what
    the standard library's compact encoding would give."""
    if type(value) is Encoded:
        return value.decode()
    if type(value) is list and not value:  # a verdict's empty lists: no orjson call
        return "[]"
    text = encode_fast(value)
    return text if text is not None else _fallback(value)


def dumps_utf8(value: Any) -> bytes:
    """``dumps`` of ``value`` as UTF-8, for a driver that stores UTF-8
    (``storage.fastinsert`` on SQLite).

    orjson writes UTF-8; decoding that to ``str`` only for the driver to
    encode it back cost ~0.1 M instructions a stored verdict, most of it in
    texts with a character beyond Latin-1 (a rule's "≥", an agent's "—"),
    which Python holds two bytes a character."""
    if type(value) is Encoded:
        return value
    if type(value) is list and not value:
        return b"[]"
    data = encode_fast_utf8(value)
    return data if data is not None else _fallback(value).encode()


def encode_fast(value: Any) -> str | None:
    """``dumps`` of ``value`` when orjson can write it, else None (the standard
    encoder then writes non-finite floats as ``NaN``/``Infinity``, not ``null``)."""
    data = encode_fast_utf8(value)
    return data.decode() if data is not None else None


def encode_fast_utf8(value: Any) -> bytes | None:
    """``encode_fast`` as UTF-8 (orjson's own output)."""
    try:
        return orjson.dumps(value, default=str, option=_OPTIONS)
    except (orjson.JSONEncodeError, TypeError):
        pass
    try:
        return orjson.dumps(value, default=str, option=_NON_STR_OPTIONS)
    except (orjson.JSONEncodeError, TypeError):
        return None
