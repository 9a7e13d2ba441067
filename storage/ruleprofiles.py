"""Rule results stored without the static description of their rules.

Of a rule result's ~20 keys, about 12 describe the rule rather than the trace
(category, kind, mechanism, role, question, classes, critical source, origin,
version, uncertainty, …): 13 KB of a verdict's 18 KB, the same in thousands
of verdicts. Storing them cost the most on PostgreSQL, whose server parsed
and compressed the whole JSONB value: ~1.2 ms of server CPU per verdict,
~0.5 ms once they were out.

Each distinct description is stored once per tenant in ``rule_profiles``,
keyed by a hash of its content (keys in order, static values); a verdict keeps
per rule the profile's id and the other values in order::

    {"profiled": [[profile_id, value, …], {"=": result kept whole}, …]}
    profile body: {"keys": [every key, in order], "static": {key: value, …}}

Results that are not dicts with string keys are kept whole. Reading puts each
result back exactly: the keys in their order, or, on PostgreSQL, in the order
JSONB returned them before (shorter keys first, then bytewise), so every API
response is the same JSON as when the whole result was stored.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from operator import itemgetter
from typing import Any, cast

from sqlalchemy import Connection, Table, and_, select

from evaluators.splitresults import DESCRIPTION_KEYS, RuleDescription, SplitResults
from storage import jsontext
from storage.fastinsert import insert_rows
from storage.models import RuleProfile

rule_profiles = cast(Table, RuleProfile.__table__)

# The keys whose values describe the rule, not the trace (one list, the engine's).
STATIC_KEYS = DESCRIPTION_KEYS
MARKER = "profiled"
WHOLE = "="
_CACHE_LIMIT = 20_000

Getter = Callable[[Mapping[str, Any]], tuple[Any, ...]]
# (static values getter, other values getter, static keys) of one key order
Shape = tuple[Getter, Getter, tuple[str, ...]]
Body = dict[str, Any]
# How to rebuild a result: per key in output order, (key, is static, the static
# value or the index of the value in the stored entry).
Plan = list[tuple[str, bool, Any]]

# key order -> its shape: one per kind of result.
_SHAPES: dict[tuple[str, ...], Shape] = {}
# JSON of a verdict's descriptions -> (profile id of each result, profiles by id)
_VERDICTS: dict[str, tuple[list[str | None], dict[str, Body]]] = {}
_VERDICT_LIMIT = 512  # ~15 KB a key
# JSON of one description (its keys and static values) -> (profile id, body).
# Read-only bodies, shared by every verdict that holds the description.
_DESCRIPTIONS: dict[str, tuple[str, Body]] = {}
# (dialect, tenant, profile id) -> body as the database returned it
_BODIES: dict[tuple[str, str, str], dict[str, Any]] = {}
# (dialect, tenant, profile id) -> how to rebuild its results
_PLANS: dict[tuple[str, str, str], Plan] = {}


def _bounded(cache: dict[Any, Any], limit: int = _CACHE_LIMIT) -> dict[Any, Any]:
    """``cache``, emptied first when it reached ``limit`` entries."""
    if len(cache) >= limit:
        cache.clear()
    return cache


def _shape(keys: tuple[Any, ...]) -> Shape | None:
    """Getters of the static values and of the others of a result with these
    keys, and its static keys; None when a key is not a string."""
    shape = _SHAPES.get(keys)
    if shape is None:
        if not all(type(k) is str for k in keys):
            return None
        static = tuple(k for k in keys if k in STATIC_KEYS)
        dynamic = tuple(k for k in keys if k not in STATIC_KEYS)
        shape = _bounded(_SHAPES)[keys] = (_getter(static), _getter(dynamic), static)
    return shape


def _getter(keys: tuple[str, ...]) -> Getter:
    """The values of ``keys`` as a tuple (``itemgetter`` returns a bare value for one key)."""
    if len(keys) > 1:
        return cast(Getter, itemgetter(keys[0], *keys[1:]))
    if keys:
        key = keys[0]
        return lambda row: (row[key],)
    return lambda _row: ()


def _profile(keys: tuple[str, ...], static: tuple[str, ...], values: Any) -> tuple[str, Body]:
    """The id and body of one description, from the JSON of its keys and
    static values; the body is parsed from that text, so it shares no object
    with a result. Kept per distinct text: a verdict seen for the first time
    mostly repeats descriptions of earlier ones (the same rule, role and
    uncertainty), and hashing and parsing each again cost more than its JSON."""
    fingerprint = jsontext.dumps([keys, values])
    known = _DESCRIPTIONS.get(fingerprint)
    if known is None:
        digest = hashlib.blake2b(fingerprint.encode(), digest_size=16).hexdigest()
        parsed = json.loads(fingerprint)[1]
        body = {"keys": list(keys), "static": dict(zip(static, parsed, strict=True))}
        known = _bounded(_DESCRIPTIONS)[fingerprint] = (digest, body)
    return known


def _profiles_of(
    fingerprint: str, shaped: list[tuple[tuple[str, ...], Shape, Any] | None]
) -> tuple[list[str | None], dict[str, Body]]:
    """Each result's profile id (None: kept whole) and the profiles by id.

    Worked out once per distinct combination of descriptions in a verdict
    (the JSON of all their keys and static values, one orjson call): a few
    dozen per deployment, where hashing each result's description on every
    verdict cost as much as encoding the whole verdict."""
    known = _VERDICTS.get(fingerprint)
    if known is None:
        ids: list[str | None] = []
        profiles: dict[str, Body] = {}
        for item in shaped:
            if item is None:
                ids.append(None)
                continue
            keys, shape, values = item
            profile_id, body = _profile(keys, shape[2], values)
            ids.append(profile_id)
            profiles[profile_id] = body
        known = _bounded(_VERDICTS, _VERDICT_LIMIT)[fingerprint] = (ids, profiles)
    return known


def split(results: Any) -> tuple[Any, dict[str, Body]]:
    """The stored form of a ``rule_results`` value (JSON text, ``Encoded``)
    and the profiles it refers to (id → body; shared, not to be changed).

    Values other than lists, and lists orjson cannot write (integers beyond 64
    bits), are stored as they are: the standard encoder writes those whole,
    non-finite floats as ``Infinity`` where orjson writes ``null``, and only
    the whole value written by one encoder reads back as it did before. A
    ``SplitResults`` (``evaluate_for_storage``) is stored as its whole list
    would be, without building it (``_split_apart``)."""
    if type(results) is SplitResults:
        return _split_apart(results)
    if not isinstance(results, list):
        return results, {}
    shaped: list[tuple[tuple[str, ...], Shape, Any] | None] = []
    for result in results:
        keys = tuple(result) if type(result) is dict else ()
        shape = _shape(keys) if keys else None
        shaped.append(None if shape is None else (keys, shape, shape[0](result)))
    encode = jsontext.encode_fast
    fingerprint = encode([None if s is None else (s[0], s[2]) for s in shaped])
    if fingerprint is None:
        return results, {}
    ids, profiles = _profiles_of(fingerprint, shaped)
    entries = [
        {WHOLE: result} if item is None else [profile_id, *item[1][1](result)]
        for result, item, profile_id in zip(results, shaped, ids, strict=True)
    ]
    text = jsontext.encode_fast_utf8({MARKER: entries})
    if text is None:
        return results, {}
    return jsontext.Encoded(text), profiles


# id of a plan's descriptions -> (the descriptions, their profile ids, the profiles by id)
_APART: dict[int, tuple[tuple[RuleDescription, ...], list[str], dict[str, Body]]] = {}


def _split_apart(results: SplitResults) -> tuple[Any, dict[str, Body]]:
    """``split`` of the whole results ``results`` stands for, from their
    parts: what it skips is taking each result apart again (its key tuple,
    two getters), the JSON of every description on every verdict, and the
    hash of that text to find the verdict's profiles. Safe because
    descriptions are read-only and one tuple of them stands for one plan
    (``evaluators.splitresults``): their profile ids are worked out once per
    tuple (kept alive here, so its id is not reused), from the same JSON
    ``_profile`` reads of a whole result (its keys, its static values in
    order), and each entry is the profile id and the other values in key
    order, as ``split`` writes them."""
    descriptions = results.descriptions
    known = _APART.get(id(descriptions))
    if known is None or known[0] is not descriptions:
        ids: list[str] = []
        profiles: dict[str, Body] = {}
        for d in descriptions:
            if any(k not in STATIC_KEYS for k in d.static_keys) or any(
                k in STATIC_KEYS for k in d.dynamic_keys
            ):
                return split(results.whole())  # apart by other keys than ours
            profile_id, body = _profile(d.keys, d.static_keys, d.static)
            ids.append(profile_id)
            profiles[profile_id] = body
        known = _bounded(_APART, _VERDICT_LIMIT)[id(descriptions)] = (descriptions, ids, profiles)
    _, ids, profiles = known
    values = results.values
    if len(values) != len(ids):
        raise ValueError(f"{len(values)} rule results for {len(ids)} descriptions")
    # By index, not zip(strict=True): compiled, that zip is a call into Python
    # and a tuple per rule.
    text = jsontext.encode_fast_utf8({MARKER: [[ids[i], *values[i]] for i in range(len(ids))]})
    if text is None:  # orjson cannot write a value: as ``split`` stores the whole list
        return split(results.whole())
    return jsontext.Encoded(text), profiles


def referenced(stored: Any) -> set[str]:
    """The profile ids a stored ``rule_results`` value refers to."""
    if not _is_split(stored):
        return set()
    return {e[0] for e in stored[MARKER] if isinstance(e, list)}


def _is_split(stored: Any) -> bool:
    return isinstance(stored, dict) and isinstance(stored.get(MARKER), list)


def save(conn: Connection, tenant_id: str, profiles: Mapping[str, dict[str, Any]]) -> None:
    """Store profiles not stored yet, in the caller's transaction (a profile's
    id is its content's hash, so one already there is the same)."""
    if not profiles:
        return
    rows = [
        {"tenant_id": tenant_id, "profile_id": pid, "body": body}
        for pid, body in sorted(profiles.items())
    ]
    # In id order and without COPY: two workers storing the same new profiles
    # then wait for each other in one order and cannot deadlock.
    insert_rows(conn, rule_profiles, rows, ignore_conflicts=True, ordered=True)


def load(conn: Connection, tenant_id: str, ids: Iterable[str]) -> None:
    """Read the profiles of ``ids`` not read before into this process's cache
    (a profile never changes: its id is its content's hash)."""
    dialect = conn.dialect.name
    missing = sorted({i for i in ids if (dialect, tenant_id, i) not in _BODIES})
    for start in range(0, len(missing), 500):
        chunk = missing[start : start + 500]
        # SQLAlchemy's types call a row a tuple; it is a Row (compiled code checks).
        rows: Iterable[Sequence[Any]] = conn.execute(
            select(rule_profiles.c.profile_id, rule_profiles.c.body).where(
                and_(
                    rule_profiles.c.tenant_id == tenant_id,
                    rule_profiles.c.profile_id.in_(chunk),
                )
            )
        )
        for profile_id, body in rows:
            _bounded(_BODIES)[(dialect, tenant_id, profile_id)] = body


def join(conn: Connection, tenant_id: str, stored: Any) -> Any:
    """The ``rule_results`` value a stored one was split from (reading any
    profile not cached; ``join_all`` reads many at once). Unsplit values are
    returned as they are."""
    dialect = conn.dialect.name
    return rebuild(stored, lambda profile_id: _plan(conn, dialect, tenant_id, profile_id))


def rebuild(stored: Any, plan_for: Callable[[str], Plan]) -> Any:
    """The ``rule_results`` value a stored one was split from, given each
    profile's plan; unsplit values as they are."""
    if not _is_split(stored):
        return stored
    out: list[Any] = []
    for entry in stored[MARKER]:
        if not isinstance(entry, list):
            out.append(entry[WHOLE])
            continue
        plan = plan_for(entry[0])
        out.append({k: (_fresh(v) if is_static else entry[v]) for k, is_static, v in plan})
    return out


def join_all(conn: Connection, items: Sequence[tuple[str, Any]]) -> list[Any]:
    """``join`` for many (tenant, stored value) pairs, reading their profiles in
    one query per tenant."""
    wanted: dict[str, set[str]] = {}
    for tenant_id, stored in items:
        wanted.setdefault(tenant_id, set()).update(referenced(stored))
    for tenant_id, ids in wanted.items():
        load(conn, tenant_id, ids)
    return [join(conn, tenant_id, stored) for tenant_id, stored in items]


def _plan(conn: Connection, dialect: str, tenant_id: str, profile_id: str) -> Plan:
    """The cached plan of a stored profile, read from the database if need be."""
    key = (dialect, tenant_id, profile_id)
    plan = _PLANS.get(key)
    if plan is not None:
        return plan
    body = _BODIES.get(key)
    if body is None:
        load(conn, tenant_id, [profile_id])
        body = _BODIES.get(key)
        if body is None:
            raise LookupError(f"rule profile {profile_id} of tenant {tenant_id} is not stored")
    plan = _bounded(_PLANS)[key] = plan_of(body, jsonb_order=dialect == "postgresql")
    return plan


def plan_of(body: Mapping[str, Any], *, jsonb_order: bool) -> Plan:
    """How to rebuild a result of this profile: for each key in output order
    (the result's own, or JSONB's), its static value or the index of its
    value in the stored entry."""
    static: Mapping[str, Any] = body["static"]
    plan: Plan = []
    index = 1  # entry[0] is the profile id
    for k in body["keys"]:
        if k in static:
            plan.append((k, True, static[k]))
        else:
            plan.append((k, False, index))
            index += 1
    if jsonb_order:
        plan.sort(key=lambda slot: jsonb_key_order(slot[0]))
    return plan


def jsonb_key_order(key: str) -> tuple[int, bytes]:
    """Where PostgreSQL's JSONB puts an object key: shorter (in UTF-8 bytes)
    first, then bytewise; a stored whole result came back in this order."""
    raw = key.encode("utf-8", "surrogatepass")
    return len(raw), raw


def _fresh(value: Any) -> Any:
    """A copy of a JSON value's containers: profile values are cached and
    shared, and a caller may change the result it was given."""
    if isinstance(value, dict):
        return {k: _fresh(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_fresh(v) for v in value]
    return value
