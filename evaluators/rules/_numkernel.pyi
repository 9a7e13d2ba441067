"""Signatures of the compiled number scan (``_numkernel.c``)."""

from typing import Any

def numbers(
    text: str, num_type: type[Any], unit_words: dict[str, str], approx_words: tuple[str, ...], /
) -> list[Any]: ...
