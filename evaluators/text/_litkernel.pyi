"""Signatures of the compiled literal-presence scan (evaluators/text/_litkernel.c)."""

from typing import NewType

Matcher = NewType("Matcher", object)

def compile(literals: tuple[str, ...], /) -> Matcher: ...
def present(matcher: Matcher, text: str, /) -> frozenset[str]: ...
