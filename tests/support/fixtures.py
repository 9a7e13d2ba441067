"""Discovery of the captured framework payloads in ``shared/fixtures``."""

from __future__ import annotations

import re
from dataclasses import dataclass

from tests.conftest import SHARED_DIR

FIXTURES = SHARED_DIR / "fixtures"
_PART = re.compile(r"^(?P<scenario>.+?)(?:_part(?P<n>\d+))?$")


@dataclass(frozen=True)
class Scenario:
    directory: str
    name: str
    parts: tuple[str, ...]  # stems in the order the receiver got them
    logs: str | None = None

    @property
    def id(self) -> str:
        return f"{self.directory}/{self.name}"

    def bodies(self, encoding: str) -> list[bytes]:
        return [(FIXTURES / self.directory / f"{p}.{encoding}").read_bytes() for p in self.parts]

    def logs_body(self, encoding: str) -> bytes | None:
        if self.logs is None:
            return None
        return (FIXTURES / self.directory / f"{self.logs}.{encoding}").read_bytes()


def scenarios() -> list[Scenario]:
    if not FIXTURES.is_dir():
        return []
    found: list[Scenario] = []
    for directory in sorted(p for p in FIXTURES.iterdir() if p.is_dir() and p.name != "scripts"):
        groups: dict[str, list[tuple[int, str]]] = {}
        logs: dict[str, str] = {}
        for path in directory.glob("*.pb"):
            stem = path.stem
            if stem.endswith(".logs"):
                logs[stem[: -len(".logs")]] = stem
                continue
            match = _PART.match(stem)
            assert match is not None
            groups.setdefault(match["scenario"], []).append((int(match["n"] or 0), stem))
        for name, parts in sorted(groups.items()):
            ordered = tuple(stem for _, stem in sorted(parts))
            found.append(Scenario(directory.name, name, ordered, logs.get(name)))
    return found
