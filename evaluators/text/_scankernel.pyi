"""Signatures of the compiled literal scans (evaluators/text/_scankernel.c)."""

from typing import NewType

Family = NewType("Family", object)

Group = tuple[tuple[tuple[int, ...], ...], tuple[int, ...], bool, str, str]

def compile(literals: tuple[str, ...], groups: tuple[Group, ...]) -> Family: ...
def scan(family: Family, text: str) -> list[list[int] | None]: ...
def fold_ascii(text: str, table: bytes) -> str | None: ...
