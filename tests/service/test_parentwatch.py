"""A service's processes do not outlive it: killed outright, it leaves none behind."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import httpx
import pytest

from tests.support.live import live_server

pytestmark = pytest.mark.slow


def _children(pid: int) -> set[int]:
    """The processes whose parent is ``pid`` (Linux's ``/proc``)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # ended meanwhile
            continue
        # "pid (comm) state ppid ...": comm may hold spaces, so split after it
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[1]) == pid:
            found.add(int(entry.name))
    return found


def _running(pid: int) -> bool:
    """Alive and not a zombie (an exited child the init process has not reaped)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads Linux's /proc")
def test_a_killed_service_leaves_no_worker_or_pool_process_running(
    tmp_path: Path, db_url: str
) -> None:
    with live_server(tmp_path, db_url, IRIS_WORKERS="2") as server:
        # The engine pool starts its process on the first synchronous evaluation.
        r = httpx.post(f"{server.url}/api/v1/evaluate", json={"output": "Done."}, timeout=60)
        assert r.status_code == 201, r.text
        deadline = time.monotonic() + 60
        while len(children := _children(server.process.pid)) < 4 and time.monotonic() < deadline:
            time.sleep(0.1)  # two workers, the engine pool's process, the resource tracker
        assert len(children) >= 4, children
        os.kill(server.process.pid, signal.SIGKILL)
        server.process.wait(timeout=30)
        deadline = time.monotonic() + 40
        while (left := {p for p in children if _running(p)}) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not left, f"still running after their parent was killed: {sorted(left)}"
