"""Storage: SQLAlchemy tables, migrations' runtime helpers and every write and read.

``evaluators`` is imported first so that its compiled-or-source decision
(``evaluators._compiled``) also covers storage's compiled modules: compiled
modules call each other natively, so one loaded compiled before the
decision would run old code beside new source."""

import evaluators  # noqa: F401
