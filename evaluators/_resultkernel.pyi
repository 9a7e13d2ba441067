"""Signature of the compiled built-in rule result builder (``_resultkernel.c``)."""

from typing import Any, TypeVar

T = TypeVar("T")

def fill(
    template: dict[str, Any], judged: Any, uncertainty: dict[str, Any], max_evidence: int, /
) -> dict[str, Any]: ...
def round4(x: float, /) -> float: ...
def with_outcome(proto: T, outcome: Any, /) -> T: ...
