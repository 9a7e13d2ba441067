"""The one content-term tokenizer the relevance rules share (SPEC §8.11).

Stopwords, request verbs and deliverable-form words are not terms; code
identifiers and paths are split into words; numbers and fenced code are
neutral; a light stemmer folds inflections so "purge/purged/purging" and
"evaluate/evaluation/evaluator" meet.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from functools import lru_cache

from evaluators.text.case import lower

# The compiled kernel (evaluators/lexical/_lexkernel.c); absent when the
# package was installed without a C compiler, and then the Python reference
# functions (``*_py``) run instead, with the same results.
try:
    from evaluators.lexical import _lexkernel
except ImportError:  # pragma: no cover - depends on the build
    _lexkernel = None  # type: ignore[assignment]

_FENCE = re.compile(r"```.*?(?:```|\Z)", re.S)
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9']*")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")

STOPWORDS: frozenset[str] = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "nor",
        "so",
        "yet",
        "if",
        "then",
        "else",
        "than",
        "that",
        "this",
        "these",
        "those",
        "there",
        "here",
        "i",
        "me",
        "my",
        "mine",
        "we",
        "us",
        "our",
        "ours",
        "you",
        "your",
        "yours",
        "he",
        "him",
        "his",
        "she",
        "her",
        "hers",
        "it",
        "its",
        "they",
        "them",
        "their",
        "theirs",
        "is",
        "am",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "do",
        "does",
        "did",
        "done",
        "doing",
        "have",
        "has",
        "had",
        "having",
        "will",
        "would",
        "shall",
        "should",
        "can",
        "could",
        "may",
        "might",
        "must",
        "ought",
        "not",
        "no",
        "yes",
        "too",
        "very",
        "just",
        "also",
        "only",
        "even",
        "still",
        "such",
        "same",
        "other",
        "of",
        "in",
        "on",
        "at",
        "by",
        "for",
        "with",
        "about",
        "against",
        "between",
        "into",
        "through",
        "during",
        "before",
        "after",
        "above",
        "below",
        "to",
        "from",
        "up",
        "down",
        "out",
        "off",
        "over",
        "under",
        "again",
        "further",
        "once",
        "all",
        "any",
        "both",
        "each",
        "few",
        "more",
        "most",
        "some",
        "own",
        "what",
        "which",
        "who",
        "whom",
        "whose",
        "when",
        "where",
        "why",
        "how",
        "whether",
        "while",
        "until",
        "because",
        "as",
        "per",
        "via",
        "please",
        "thanks",
        "thank",
        "hi",
        "hello",
        "hey",
        "ok",
        "okay",
        "sure",
        "let",
        "lets",
        "let's",
        "i'm",
        "i've",
        "i'd",
        "you're",
        "it's",
        "don't",
        "can't",
        "what's",
        "how's",
        "that's",
        "there's",
        "isn't",
        "aren't",
        "doesn't",
        "didn't",
        "won't",
        "wouldn't",
        "shouldn't",
        "couldn't",
        "explain",
        "explaining",
        "describe",
        "summarise",
        "summarize",
        "summary",
        "tell",
        "show",
        "give",
        "list",
        "provide",
        "write",
        "help",
        "want",
        "need",
        "know",
        "like",
        "get",
        "got",
        "make",
        "use",
        "using",
        "used",
        "something",
        "anything",
        "everything",
        "nothing",
        "paragraph",
        "paragraphs",
        "bullet",
        "bullets",
        "bulleted",
        "point",
        "points",
        "sentence",
        "sentences",
        "word",
        "words",
        "brief",
        "briefly",
        "short",
        "quick",
        "quickly",
        "detail",
        "details",
        "detailed",
        "answer",
        "question",
        "questions",
        "reply",
        "respond",
        "response",
        "one",
        "two",
        "three",
        "four",
        "five",
        "first",
        "second",
        "third",
        "then",
        "next",
        "finally",
        "now",
        "new",
        "way",
        "ways",
        "thing",
        "things",
        "into",
        "onto",
        "upon",
        "within",
        "without",
        "across",
        "along",
        "around",
        "among",
        "etc",
        "e.g",
        "i.e",
        "really",
        "much",
        "many",
        "well",
    ]
)

_SUFFIXES: tuple[str, ...] = (
    "ational",
    "ations",
    "ation",
    "ators",
    "ator",
    "ities",
    "ity",
    "ingly",
    "ings",
    "ing",
    "ments",
    "ment",
    "ness",
    "ions",
    "ion",
    "ers",
    "er",
    "ies",
    "ied",
    "ed",
    "es",
    "ly",
    "s",
)


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """Fold common English inflections; deliberately light and predictable."""
    w = lower(word)
    for suf in _SUFFIXES:
        if w.endswith(suf) and len(w) - len(suf) >= 3:
            w = w[: -len(suf)]
            break
    if w.endswith("e") and len(w) > 3:
        w = w[:-1]
    if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "aeiouls":
        w = w[:-1]
    return w


def strip_fences(text: str) -> str:
    """Fenced code is neutral for relevance; drop it."""
    return _FENCE.sub(" ", text) if "```" in text else text


# Token -> its lowercase words. Natural text repeats a small vocabulary, so
# each distinct token is split once per process; the cache is bounded.
_TOKEN_WORDS: dict[str, tuple[str, ...]] = {}
_TOKEN_CACHE_MAX = 65536


def _split_token(tok: str) -> tuple[str, ...]:
    core = tok.strip("'")
    if not core:
        parts: tuple[str, ...] = ()
    elif core.isalpha() and (core.islower() or core[1:].islower()):
        parts = (lower(core),)
    else:
        parts = tuple(lower(p) for p in _CAMEL.findall(core) if not p.isdigit())
    if len(_TOKEN_WORDS) < _TOKEN_CACHE_MAX:
        _TOKEN_WORDS[tok] = parts
    return parts


def words(text: str) -> list[str]:
    """Split text (and code identifiers inside it) into lowercase words.
    The C kernel when it was built, else :func:`words_py`."""
    if _lexkernel is not None:
        return _lexkernel.words(text)
    return words_py(text)


def words_py(text: str) -> list[str]:
    """:func:`words` in Python: the reference and the fallback."""
    out: list[str] = []
    cache = _TOKEN_WORDS
    for tok in _WORD.findall(text):
        parts = cache.get(tok)
        if parts is None:
            parts = _split_token(tok)
        out += parts
    return out


# ASCII: every character outside [A-Za-z0-9'] becomes a space, so a plain split
# gives the maximal runs of _WORD's characters. Each run holds exactly one
# _WORD match - the run from its first letter on (nothing once a letter has
# started can end the match early) - or none when it has no letter.
_NOT_WORD_CHAR = {i: " " for i in range(128) if not (chr(i).isalnum() or chr(i) == "'")}
_WORD_LEAD = "0123456789'"


def distinct_tokens(text: str) -> set[str]:
    """``set(_WORD.findall(text))``: the one tokenising pass over a text that
    :func:`word_set` and :func:`word_term_set` both start from (the context
    shares it). The C kernel when it was built, else :func:`distinct_tokens_py`."""
    if _lexkernel is not None:
        return _lexkernel.tokens(text)
    return distinct_tokens_py(text)


def distinct_tokens_py(text: str) -> set[str]:
    """:func:`distinct_tokens` in Python (translate and split on ASCII text):
    the reference and the fallback."""
    if not text.isascii():
        return set(_WORD.findall(text))
    out = {run.lstrip(_WORD_LEAD) for run in set(text.translate(_NOT_WORD_CHAR).split())}
    out.discard("")
    return out


# The translate-and-split path, which the fast-path property tests check
# against _WORD itself (the kernel is checked against this one).
_distinct_tokens = distinct_tokens_py


def native() -> bool:
    """Whether the C kernel does the scans: then a caller need not compute
    ``distinct_tokens`` for :func:`word_set` / :func:`word_term_set`, which
    read the text in one native pass instead."""
    return _lexkernel is not None


def word_set(text: str, tokens: AbstractSet[str] | None = None) -> set[str]:
    """``set(words(text))``. ``tokens`` are ``distinct_tokens(text)`` when the
    caller already has them (the Python path starts from them; the C kernel
    rescans the text, which is cheaper than reading them)."""
    if _lexkernel is not None:
        return _lexkernel.word_set(text)
    return word_set_py(text, tokens)


def word_set_py(text: str, tokens: AbstractSet[str] | None = None) -> set[str]:
    """:func:`word_set` in Python, splitting each distinct token once: the
    reference and the fallback."""
    out: set[str] = set()
    cache = _TOKEN_WORDS
    for tok in distinct_tokens_py(text) if tokens is None else tokens:
        parts = cache.get(tok)
        if parts is None:
            parts = _split_token(tok)
        out.update(parts)
    return out


# Token -> the stemmed content terms of its words, for :func:`word_term_set`.
_TOKEN_TERMS: dict[str, tuple[str, ...]] = {}


def word_term_set(text: str, tokens: AbstractSet[str] | None = None) -> set[str]:
    """``set(terms_of_words(words(text)))`` (fences kept). ``tokens`` are
    ``distinct_tokens(text)`` when the caller already has them, as for
    :func:`word_set`."""
    if _lexkernel is not None:
        return _lexkernel.word_term_set(text, STOPWORDS)
    return word_term_set_py(text, tokens)


def word_term_set_py(text: str, tokens: AbstractSet[str] | None = None) -> set[str]:
    """:func:`word_term_set` in Python, splitting and stemming each distinct
    token once per process rather than at every occurrence: the reference
    and the fallback."""
    out: set[str] = set()
    cache = _TOKEN_TERMS
    for tok in distinct_tokens_py(text) if tokens is None else tokens:
        terms = cache.get(tok)
        if terms is None:
            parts = _TOKEN_WORDS.get(tok)
            if parts is None:
                parts = _split_token(tok)
            terms = tuple(stem(w) for w in parts if len(w) > 2 and w not in STOPWORDS)
            if len(cache) < _TOKEN_CACHE_MAX:
                cache[tok] = terms
        out.update(terms)
    return out


def terms_of_words(ws: list[str]) -> list[str]:
    """Stemmed content terms of an already-split word list (see :func:`words`)."""
    return [stem(w) for w in ws if len(w) > 2 and w not in STOPWORDS]


def content_terms_py(text: str) -> list[str]:
    """The uncached :func:`content_terms` in Python: the reference and the
    fallback of the C kernel's ``content_terms``."""
    return [stem(w) for w in words_py(strip_fences(text)) if len(w) > 2 and w not in STOPWORDS]


def _content_terms_uncached(text: str) -> list[str]:
    if _lexkernel is not None:
        return _lexkernel.content_terms(text, STOPWORDS)
    return content_terms_py(text)


@lru_cache(maxsize=8192)
def _content_terms_cached(text: str) -> tuple[str, ...]:
    return tuple(_content_terms_uncached(text))


def content_terms(text: str) -> list[str]:
    """Stemmed content terms in order (duplicates kept)."""
    if len(text) <= 2048:
        return list(_content_terms_cached(text))
    return _content_terms_uncached(text)


def content_term_sets(texts: list[str]) -> list[set[str]]:
    """``[set(content_terms(t)) for t in texts]`` in one call: a rule that
    reads the terms of every sentence pays one native pass, not a call per
    sentence. The C kernel when it was built, else :func:`content_term_sets_py`."""
    if _lexkernel is not None:
        return _lexkernel.content_term_sets(texts, STOPWORDS)
    return content_term_sets_py(texts)


def content_term_sets_py(texts: list[str]) -> list[set[str]]:
    """:func:`content_term_sets` in Python: the reference and the fallback."""
    return [set(content_terms(t)) for t in texts]


# A maximal run of four or more ASCII letters: the runs of
# ``re.findall(r"[A-Za-z]+", text)`` at least four long, one match each.
_LONG_WORD = re.compile(r"[A-Za-z]{4,}")


def long_words(text: str, limit: int) -> int:
    """How many words of four or more ASCII letters ``text`` has, counted no
    further than ``limit`` (a rule asking "at least N?" stops at N). The C
    kernel when it was built, else :func:`long_words_py`."""
    if _lexkernel is not None:
        return _lexkernel.long_words(text, limit)
    return long_words_py(text, limit)


def long_words_py(text: str, limit: int) -> int:
    """:func:`long_words` in Python: the reference and the fallback."""
    count = 0
    if limit < 1:
        return 0
    for _ in _LONG_WORD.finditer(text):
        count += 1
        if count >= limit:
            break
    return count


def term_chain(
    units: Sequence[str],
    seed: set[str] | frozenset[str],
    probe: set[str] | frozenset[str] = frozenset(),
) -> tuple[int, int, int, bool, int]:
    """``(connected, total, found, outside, probed)`` over the content terms
    of ``units`` (see :func:`term_chain_py`): the relevance rules' topic
    chain and overlap counts in one pass, with no set built per unit. The C
    kernel when it was built, else :func:`term_chain_py`."""
    if _lexkernel is not None:
        return _lexkernel.term_chain(units, seed, probe, STOPWORDS)
    return term_chain_py(units, seed, probe)


def term_chain_spans(
    text: str,
    spans: Sequence[tuple[int, int]],
    seed: set[str] | frozenset[str],
    probe: set[str] | frozenset[str] = frozenset(),
) -> tuple[int, int, int, bool, int]:
    """:func:`term_chain` of ``[text[s:e] for s, e in spans]`` without
    making the slices (each span must lie within the text: the kernel
    raises ``ValueError`` otherwise)."""
    if _lexkernel is not None:
        return _lexkernel.term_chain_spans(text, spans, seed, probe, STOPWORDS)
    return term_chain_py([text[s:e] for s, e in spans], seed, probe)


def term_chain_py(
    units: Sequence[str],
    seed: AbstractSet[str],
    probe: AbstractSet[str] = frozenset(),
) -> tuple[int, int, int, bool, int]:
    """:func:`term_chain` in Python: the reference and the fallback.

    Of the units' content term sets (``content_term_sets(units)``), the ones
    that are not empty are ``total``; ``connected`` are those sharing a term
    with the topic, which starts as ``seed`` and takes in the terms of every
    connected unit, in order. ``found`` is how many seed terms occur in some
    unit, ``outside`` whether some unit term is not in the seed, ``probed``
    how many ``probe`` terms occur in some unit."""
    topic = set(seed)
    seen: set[str] = set()
    connected = total = 0
    for terms in content_term_sets_py(list(units)):
        if not terms:
            continue
        total += 1
        if not topic.isdisjoint(terms):
            connected += 1
            topic |= terms
        seen |= terms
    return connected, total, len(seen & set(seed)), not seen <= seed, len(seen & set(probe))


def engaged(terms: Sequence[str], words: AbstractSet[str], limit: int) -> int | None:
    """How many distinct ``terms`` a reader finds in ``words``: the term
    itself, a word with its stem, or (four letters or more) a word of four
    or more with its first four letters - ask_coverage's test of a declared
    part, ``asks.engaged_terms`` - counted no further than ``limit``. By the
    C kernel, which reads only the lowercase ASCII strs :func:`words`
    yields; ``None`` when it was not built or was given anything else (the
    caller then runs the Python reference)."""
    if _lexkernel is None:
        return None
    return _lexkernel.engaged(terms, words, limit)  # type: ignore[arg-type]


def term_set(text: str) -> frozenset[str]:
    return frozenset(content_terms(text))


def plain_tokens(text: str) -> list[str]:
    """Lowercase alphanumeric runs by a character loop — no regex, so it is
    safe on attacker-controlled tool results (linear, no backtracking)."""
    out: list[str] = []
    cur: list[str] = []
    for ch in lower(text):
        if ch.isalnum():
            cur.append(ch)
        elif cur:
            out.append("".join(cur))
            cur = []
    if cur:
        out.append("".join(cur))
    return out
