"""Signatures of the compiled number and location scans (``_numkernel.c``)."""

from collections.abc import Callable
from typing import Any

def numbers(
    text: str, num_type: type[Any], unit_words: dict[str, str], approx_words: tuple[str, ...], /
) -> list[Any]: ...
def locations(text: str, extensions: frozenset[str], /) -> list[tuple[int, int, str]]: ...
def ground_add(
    ground: set[str], text: str, add_token: Callable[[set[str], str], None], /
) -> None: ...
