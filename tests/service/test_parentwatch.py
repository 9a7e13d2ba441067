"""A service's processes do not outlive it: killed outright, it leaves none behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
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


# A parent that starts a child and dies at once; the child reaches its watch
# only after it (as a spawned worker does after its imports).
_DIES_BEFORE_THE_WATCH = textwrap.dedent(
    """
    import multiprocessing, os, sys, time
    from pathlib import Path
    from service.parentwatch import end_with_parent

    def child(delay):
        time.sleep(delay)
        end_with_parent(interval=0.1)
        time.sleep(120)

    if __name__ == "__main__":
        proc = multiprocessing.get_context("spawn").Process(target=child, args=(1.5,))
        proc.start()
        Path(sys.argv[1]).write_text(str(proc.pid))
        os._exit(0)
    """
)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads Linux's /proc")
def test_a_child_whose_parent_died_before_its_watch_started_still_ends(tmp_path: Path) -> None:
    script = tmp_path / "dies_first.py"
    script.write_text(_DIES_BEFORE_THE_WATCH)
    root = Path(__file__).resolve().parents[2]
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")])),
    }
    pid_file, errors = tmp_path / "child.pid", tmp_path / "stderr.txt"
    with errors.open("w") as stderr:  # not a pipe: the child would hold it open
        done = subprocess.run(
            [sys.executable, str(script), str(pid_file)],
            env=env,
            cwd=root,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            timeout=60,
        )
    assert done.returncode == 0, errors.read_text()
    child = int(pid_file.read_text())
    try:
        deadline = time.monotonic() + 30
        while _running(child) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _running(child), "the child watched its new parent, not the one that started it"
    finally:
        if _running(child):
            os.kill(child, signal.SIGKILL)
