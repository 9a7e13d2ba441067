"""PostgreSQL's search documents are rebuilt from the words a query splits into

Until now a document was ``to_tsvector('simple', text)`` of each field, and
PostgreSQL's parser keeps some separators inside tokens: ``NW-356787`` became
``nw`` and the signed integer ``-356787``, ``12.50`` one number and
``ana@example.com`` one address, while a query is split at every character
that is not a letter or digit (``storage.search.query_words``). A search for
``356787`` found nothing. New documents are built from the text with every
such run replaced by a space (``storage.search.index_words``); this rebuilds
the stored ones the same way, in SQL: ``[^[:alnum:]]`` follows the
database's LC_CTYPE, which agrees with Python's ``str.isalnum`` under the
UTF-8 locales (``C.UTF-8``, ``en_US.UTF-8``: accented, Greek and CJK letters
alike); under a plain ``C`` locale non-ASCII letters may split there, in the
rebuilt documents only. SQLite's FTS5 tokenizer already splits there.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-04 15:00:00
"""

from __future__ import annotations

from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def _document(words: str) -> str:
    """The SQL of a document built from each field's text through ``words``."""
    weights = (("input", "A"), ("output", "A"), ("tools", "B"), ("metadata", "C"))
    return " || ".join(
        f"setweight(to_tsvector('simple', {words.format(column)}), '{weight}')"
        for column, weight in weights
    )


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        # [^[:alnum:]] is a single class (no backtracking); the underscore is
        # not alphanumeric, as in the Python split.
        split = "regexp_replace(coalesce({0}, ''), '[^[:alnum:]]+', ' ', 'g')"
        op.execute(f"UPDATE trace_search SET document = {_document(split)}")


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        as_is = "coalesce({0}, '')"
        op.execute(f"UPDATE trace_search SET document = {_document(as_is)}")
