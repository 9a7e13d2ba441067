"""Signature of the compiled risk interval arithmetic (``_riskkernel.c``)."""

from collections.abc import Sequence

def noisy_or_interval(
    groups: Sequence[tuple[float, ...]], lo_index: int, hi_index: int, /
) -> tuple[float, float]: ...
def ppv_interval(
    s_draws: tuple[float, ...],
    sp_draws: tuple[float, ...],
    pi: float,
    lo_index: int,
    hi_index: int,
    /,
) -> tuple[float, float, float, float] | None: ...
