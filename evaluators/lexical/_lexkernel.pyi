"""Signatures of the compiled lexical kernel (``_lexkernel.c``)."""

from collections.abc import Sequence

SUFFIXES: tuple[str, ...]

def split_sentences(text: str, abbrev: set[str] | frozenset[str], /) -> list[tuple[int, int]]: ...
def tokens(text: str, /) -> set[str]: ...
def words(text: str, /) -> list[str]: ...
def content_terms(text: str, stopwords: set[str] | frozenset[str], /) -> list[str]: ...
def word_set(text: str, /) -> set[str]: ...
def word_term_set(text: str, stopwords: set[str] | frozenset[str], /) -> set[str]: ...
def content_term_sets(
    texts: Sequence[str], stopwords: set[str] | frozenset[str], /
) -> list[set[str]]: ...
def term_chain(
    units: Sequence[str],
    seed: set[str] | frozenset[str],
    probe: set[str] | frozenset[str],
    stopwords: set[str] | frozenset[str],
    /,
) -> tuple[int, int, int, bool, int]: ...
def term_chain_spans(
    text: str,
    spans: Sequence[tuple[int, int]],
    seed: set[str] | frozenset[str],
    probe: set[str] | frozenset[str],
    stopwords: set[str] | frozenset[str],
    /,
) -> tuple[int, int, int, bool, int]: ...
