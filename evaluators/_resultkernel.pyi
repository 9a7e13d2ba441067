"""Signature of the compiled built-in rule result builder (``_resultkernel.c``)."""

from typing import Any, TypeVar

T = TypeVar("T")

def fill(
    template: dict[str, Any], judged: Any, uncertainty: dict[str, Any], max_evidence: int, /
) -> dict[str, Any]: ...
def round4(x: float, /) -> float: ...
def with_outcome(proto: T, outcome: Any, /) -> T: ...
def copy_json(tree: T, /) -> T: ...
def fill_rows(
    parts: tuple[tuple[dict[str, Any], tuple[str, ...], dict[str, Any], bool], ...],
    outcomes: list[Any],
    max_evidence: int,
    /,
) -> list[dict[str, Any]]: ...
def weighted(
    outcomes: list[Any], idx: tuple[int, ...], weights: tuple[float, ...], wsum: float, /
) -> float: ...
def signature(
    outcomes: list[Any], udt_rows: tuple[bool, ...], want_saw: bool, /
) -> tuple[Any, ...]: ...
