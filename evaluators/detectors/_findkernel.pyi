"""Signatures of the detectors' compiled findings glue (``_findkernel.c``):
the overlap sweep, the identity view's findings, the rule's evidence."""

from typing import Any

def resolve(cands: list[Any], cand_type: type, /) -> list[Any] | None: ...
def spans(kept: list[Any], raw: str, finding_type: type, /) -> list[Any]: ...
def evidence(
    findings: list[Any], finding_type: type, with_names: bool, /
) -> tuple[list[dict[str, Any]], list[tuple[str, int]], str | None] | None: ...
