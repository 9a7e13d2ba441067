"""Evaluation ids: the SPEC's ``eval_`` shape, unique, and later ids sort after earlier ones."""

from __future__ import annotations

import re
import time

from storage.evaluations import new_evaluation_id

SHAPE = re.compile(r"eval_[0-9a-f]{24}")


def test_ids_have_the_eval_shape_and_are_unique() -> None:
    ids = [new_evaluation_id() for _ in range(2_000)]
    assert all(SHAPE.fullmatch(i) for i in ids)
    assert len(set(ids)) == len(ids)


def test_an_id_made_later_sorts_after() -> None:
    first = new_evaluation_id()
    time.sleep(0.002)  # the next millisecond at least: ordering, not timing, is checked
    assert new_evaluation_id() > first
