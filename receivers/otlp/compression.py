"""Bounded ``Content-Encoding`` handling for OTLP bodies.

A gzip bomb is a few KB that inflates to gigabytes, so we never call a
one-shot ``decompress``: we stream through ``zlib.decompressobj`` asking for at
most ``max_bytes + 1`` output bytes and stop as soon as the cap is crossed.
Memory use is therefore bounded by the cap, not by what the sender claims.
"""

from __future__ import annotations

import zlib

from receivers.otlp.errors import BodyTooLarge, OtlpDecodeError, UnsupportedEncoding

ACCEPTED_ENCODINGS: tuple[str, ...] = ("identity", "gzip", "deflate")

# zlib ``wbits``: 16+MAX_WBITS = gzip wrapper, MAX_WBITS = zlib wrapper,
# -MAX_WBITS = raw deflate (some clients send raw streams as "deflate").
_GZIP_WBITS = 16 + zlib.MAX_WBITS
_ZLIB_WBITS = zlib.MAX_WBITS
_RAW_WBITS = -zlib.MAX_WBITS
_CHUNK = 64 * 1024


def decompress(body: bytes, content_encoding: str | None, max_bytes: int) -> bytes:
    """Undo ``content_encoding`` on ``body`` without ever producing more than ``max_bytes``.

    Raises ``BodyTooLarge`` when the result (or the identity body) is over the
    cap, ``UnsupportedEncoding`` for anything but identity/gzip/deflate, and
    ``OtlpDecodeError`` when the compressed stream is corrupt or truncated.
    """
    encodings = _parse_encodings(content_encoding)
    data = body
    if not encodings and len(data) > max_bytes:
        raise BodyTooLarge(max_bytes)
    # Encodings are listed in the order they were applied; undo them in reverse.
    for enc in reversed(encodings):
        if enc == "gzip":
            data = _inflate(data, _GZIP_WBITS, max_bytes, "gzip")
        else:
            data = _inflate_deflate(data, max_bytes)
    return data


def _parse_encodings(content_encoding: str | None) -> list[str]:
    """Split a header value into the non-identity codings, validating each."""
    if not content_encoding:
        return []
    out: list[str] = []
    for raw in content_encoding.split(","):
        enc = raw.strip().lower()
        if enc in ("", "identity"):
            continue
        if enc == "x-gzip":
            enc = "gzip"
        if enc not in ("gzip", "deflate"):
            raise UnsupportedEncoding(raw.strip(), ACCEPTED_ENCODINGS)
        out.append(enc)
    return out


def _inflate_deflate(data: bytes, max_bytes: int) -> bytes:
    """HTTP "deflate" is meant to be zlib-wrapped, but raw deflate is common; accept both."""
    if len(data) >= 2 and (data[0] & 0x0F) == 8 and ((data[0] << 8) | data[1]) % 31 == 0:
        return _inflate(data, _ZLIB_WBITS, max_bytes, "deflate")
    return _inflate(data, _RAW_WBITS, max_bytes, "deflate")


def _inflate(data: bytes, wbits: int, max_bytes: int, name: str) -> bytes:
    """Stream-inflate ``data`` (possibly several concatenated gzip members) under a cap."""
    out = bytearray()
    pending = data
    while True:
        d = zlib.decompressobj(wbits)
        buf = pending
        try:
            while buf:
                room = max_bytes + 1 - len(out)
                chunk = d.decompress(buf, min(room, _CHUNK))
                out += chunk
                if len(out) > max_bytes:
                    raise BodyTooLarge(max_bytes)
                buf = d.unconsumed_tail
                if d.eof:
                    break
            if not d.eof:
                # Drain whatever zlib still holds internally (bounded the same way).
                while not d.eof:
                    room = max_bytes + 1 - len(out)
                    chunk = d.decompress(b"", min(room, _CHUNK)) if room > 0 else b""
                    if not chunk:
                        break
                    out += chunk
                    if len(out) > max_bytes:
                        raise BodyTooLarge(max_bytes)
        except zlib.error as exc:
            raise OtlpDecodeError(f"corrupt {name} body: {exc}", None) from exc
        if not d.eof:
            raise OtlpDecodeError(f"truncated {name} body", len(data))
        rest = d.unused_data
        if wbits == _GZIP_WBITS and rest.strip(b"\x00"):
            pending = rest  # another gzip member follows
            continue
        return bytes(out)
