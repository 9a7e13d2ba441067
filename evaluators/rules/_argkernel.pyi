"""Signature of valid_tool_arguments' compiled plain schema check (``_argkernel.c``)."""

from typing import Any

def plainly_valid(schema: Any, value: Any, keywords: frozenset[str], /) -> bool | None: ...
