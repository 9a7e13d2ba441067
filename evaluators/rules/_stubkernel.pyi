"""Signature of no_stub_output's marker scan (``_stubkernel.c``)."""

def marker_hits(
    output: str, word_pairs: tuple[tuple[str, str], ...], found: frozenset[str], /
) -> list[tuple[int, int, str]]: ...
