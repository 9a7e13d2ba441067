"""Rule results kept apart: each rule's static description, and its values.

A stored verdict keeps of each rule result only the values that depend on the
trace; the rest (``storage.ruleprofiles``: category, kind, role, question,
classes, uncertainty, …) is the rule's description, stored once. Building the
whole result dicts and then taking them apart again cost a worker more than
either half. With only built-in rules, every description a result can have is
fixed by its plan (``evaluators.engine``), so the engine hands a storing
caller the plan's descriptions (the same objects for every result of the plan,
which lets storage map them to profile ids once) and per rule just the list
of its other values, in key order.

Nothing here may be changed by a caller: descriptions are shared by every
result of their plan. Reading a ``SplitResults`` as a sequence gives fresh,
independent result dicts, equal to what ``evaluate`` returns.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any, overload

__all__ = ["DESCRIPTION_KEYS", "RuleDescription", "SplitResults", "copy_tree"]

# The keys of a rule result whose values describe the rule, not the trace
# (``evaluators.engine``): what storage keeps once per rule (``storage.ruleprofiles``).
DESCRIPTION_KEYS = frozenset(
    (
        "rule",
        "ruleName",
        "category",
        "kind",
        "mechanism",
        "role",
        "question",
        "classes",
        "critical",
        "criticalSource",
        "origin",
        "ruleVersion",
        "uncertainty",
        "ruleId",
    )
)


def copy_tree(v: Any) -> Any:
    """``v`` with every exact dict and list, at any depth, a new one."""
    if type(v) is dict:
        return {k: copy_tree(x) for k, x in v.items()}
    if type(v) is list:
        return [copy_tree(x) for x in v]
    return v


class RuleDescription:
    """What one rule result of a plan holds apart from its values (read-only).

    ``keys`` are all the result's keys in order; ``static_keys`` those whose
    values are the rule's (in that order) and ``static`` their values;
    ``dynamic_keys`` the others, whose values each result carries."""

    __slots__ = ("_static_of", "_where", "dynamic_keys", "keys", "static", "static_keys")

    def __init__(self, keys: tuple[str, ...], static_keys: Iterable[str], template: dict[str, Any]):
        wanted = frozenset(static_keys)
        self.keys = keys
        self.static_keys = tuple([k for k in keys if k in wanted])
        self.dynamic_keys = tuple([k for k in keys if k not in wanted])
        self.static = tuple([template[k] for k in self.static_keys])
        self._static_of = dict(zip(self.static_keys, self.static, strict=True))
        self._where = {k: i for i, k in enumerate(self.dynamic_keys)}

    def value(self, values: Sequence[Any], key: str, default: Any = None) -> Any:
        """The value of ``key`` in the result whose other values are ``values``."""
        i = self._where.get(key)
        if i is not None:
            return values[i]
        return self._static_of.get(key, default)

    def position(self, key: str) -> int | None:
        """Where among the values ``key``'s value is; None when it is static or absent."""
        return self._where.get(key)

    def view(self, values: Sequence[Any]) -> dict[str, Any]:
        """The result dict, in key order, sharing its values with the
        description and ``values``: for reading only (``whole`` copies)."""
        static, where = self._static_of, self._where
        return {k: static[k] if k in static else values[where[k]] for k in self.keys}

    def whole(self, values: Sequence[Any]) -> dict[str, Any]:
        """The result dict, in key order, sharing nothing with the description
        or ``values`` (every dict and list in it new)."""
        static, where = self._static_of, self._where
        return {k: copy_tree(static[k] if k in static else values[where[k]]) for k in self.keys}


class SplitResults:
    """A verdict's rule results as (description, values) pairs.

    ``descriptions`` is one tuple for every result of a plan (identity-stable:
    storage maps it to profile ids once); ``values`` holds per rule its
    description's ``dynamic_keys`` values, in order. Items read as sequence
    items are whole, fresh result dicts."""

    __slots__ = ("descriptions", "values")

    def __init__(self, descriptions: tuple[RuleDescription, ...], values: list[list[Any]]):
        self.descriptions = descriptions
        self.values = values

    def __len__(self) -> int:
        return len(self.values)

    @overload
    def __getitem__(self, i: int) -> dict[str, Any]: ...
    @overload
    def __getitem__(self, i: slice) -> list[dict[str, Any]]: ...
    def __getitem__(self, i: int | slice) -> dict[str, Any] | list[dict[str, Any]]:
        if isinstance(i, slice):
            return [self[j] for j in range(len(self))[i]]
        return self.descriptions[i].whole(self.values[i])

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter(self.whole())

    def whole(self) -> list[dict[str, Any]]:
        """Every result dict, as ``evaluate`` returns them."""
        return [d.whole(v) for d, v in zip(self.descriptions, self.values, strict=True)]


# A Sequence by registration, not by subclassing. Compiled (mypyc), a subclass
# of the ABC got no registry of its own (ABCMeta never made the class) and
# read Sequence's: once a list had been checked against Sequence, every list
# was a SplitResults too. (A non-native class instead fails to load: mypyc
# gives it ``typing.Sequence`` as its base.)
Sequence.register(SplitResults)
