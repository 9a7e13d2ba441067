"""Signatures of the compiled backtracking matcher (evaluators/text/_matchkernel.c)."""

import re
from typing import Any, NewType

Program = NewType("Program", object)

def compile(
    code: tuple[int, ...], classes: tuple[tuple[bytes, bool, tuple[int, ...]], ...]
) -> Program: ...
def match(program: Program, text: str, pos: int, budget: int = ...) -> int: ...
def tried(
    program: Program, rx: re.Pattern[str], text: str, places: list[int], budget: int = ...
) -> list[tuple[int, int]]: ...
def candidates(
    programs: tuple[Program, ...],
    rxs: tuple[re.Pattern[str], ...],
    text: str,
    found: list[list[int] | None],
    labels: tuple[tuple[str, str, str, int], ...],
    covers: Any,
    cand_type: type,
) -> list[Any]: ...
