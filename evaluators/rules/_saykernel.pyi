"""Signatures of says_something's compiled counts (``_saykernel.c``): letter runs,
repeated sentences."""

def letter_stats(
    low: str, words: tuple[str, ...], fold: bool = False, /
) -> tuple[int, int, int]: ...
def most_repeated(
    body: str, spans: list[tuple[int, int]], min_count: int = 0, /
) -> tuple[str, int]: ...
