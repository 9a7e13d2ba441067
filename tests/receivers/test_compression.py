"""Bounded Content-Encoding handling."""

from __future__ import annotations

import gzip
import zlib

import pytest

from receivers.otlp.compression import decompress
from receivers.otlp.errors import BodyTooLarge, OtlpDecodeError, UnsupportedEncoding
from tests.receivers.fixtures_support import FIXTURES, needs_fixtures


@needs_fixtures
def test_gzipped_fixture_decodes() -> None:
    raw = (FIXTURES / "pydantic_ai" / "tools_ok.pb").read_bytes()
    assert decompress(gzip.compress(raw), "gzip", 1 << 20) == raw
    assert decompress(zlib.compress(raw), "deflate", 1 << 20) == raw
    c = zlib.compressobj(wbits=-zlib.MAX_WBITS)
    assert decompress(c.compress(raw) + c.flush(), "Deflate", 1 << 20) == raw
    assert decompress(raw, None, 1 << 20) == raw
    assert decompress(raw, "identity", 1 << 20) == raw


def test_zip_bomb_stops_at_cap() -> None:
    bomb = gzip.compress(b"\0" * (50 * 1024 * 1024))  # ~50 KB that inflates to 50 MiB
    assert len(bomb) < 100_000
    with pytest.raises(BodyTooLarge) as info:
        decompress(bomb, "gzip", 1024 * 1024)
    assert info.value.max_bytes == 1024 * 1024


def test_identity_body_over_cap() -> None:
    with pytest.raises(BodyTooLarge):
        decompress(b"x" * 11, None, 10)
    assert decompress(b"x" * 10, None, 10) == b"x" * 10


def test_unknown_encoding_names_accepted_ones() -> None:
    with pytest.raises(UnsupportedEncoding) as info:
        decompress(b"abc", "br", 100)
    assert "br" in str(info.value)
    for name in ("identity", "gzip", "deflate"):
        assert name in str(info.value)


def test_corrupt_and_truncated() -> None:
    with pytest.raises(OtlpDecodeError):
        decompress(b"\x1f\x8b\x08\x00garbage", "gzip", 1000)
    good = gzip.compress(b"hello world" * 100)
    with pytest.raises(OtlpDecodeError):
        decompress(good[:-12], "gzip", 100_000)


def test_concatenated_gzip_members() -> None:
    body = gzip.compress(b"abc") + gzip.compress(b"def")
    assert decompress(body, "gzip", 100) == b"abcdef"
    with pytest.raises(BodyTooLarge):
        decompress(body, "gzip", 5)
