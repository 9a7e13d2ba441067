"""Trace and span id normalisation to lowercase hex.

OTLP/JSON says ids are hex, but protobuf's generic JSON mapping (and several
hand-rolled exporters) send base64; we accept base64 only when it decodes to
exactly the id width, so a hex string is never misread as base64.
"""

from __future__ import annotations

import base64
import binascii

_HEX = frozenset("0123456789abcdefABCDEF")


def pb_id(raw: bytes, width: int) -> str | None:
    """Bytes id → hex, or None when it has the wrong width or is all zeros (invalid per OTLP)."""
    if len(raw) != width or not raw.strip(b"\x00"):
        return None
    return raw.hex()


def json_id(raw: object, width: int) -> str | None:
    """A JSON id (hex, or base64 of ``width`` bytes) → lowercase hex; None when invalid."""
    if not isinstance(raw, str):
        return None
    text = raw.strip()
    if len(text) == width * 2 and _HEX.issuperset(text):
        hexed = text.lower()
        return None if hexed.strip("0") == "" else hexed
    bare = text.rstrip("=")
    if not bare or len(bare) > 4 * ((width + 2) // 3):
        return None
    padded = bare + "=" * (-len(bare) % 4)
    for decode in (base64.b64decode, base64.urlsafe_b64decode):
        try:
            decoded = decode(padded)
        except (binascii.Error, ValueError):
            continue
        if len(decoded) == width and base64.b64encode(decoded).rstrip(b"=") in (
            bare.encode("ascii"),
            bare.replace("-", "+").replace("_", "/").encode("ascii"),
        ):
            return pb_id(decoded, width)
    return None
