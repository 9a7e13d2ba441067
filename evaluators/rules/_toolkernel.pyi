"""Signature of the tool rules' compiled failure verdict (``_toolkernel.c``)."""

from typing import Literal

def string_failure(
    text: str, prefixes: tuple[str, ...], phrases: tuple[str, ...], /
) -> str | Literal[False] | None: ...
