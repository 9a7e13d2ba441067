"""Child processes that end when the process that started them is gone.

A pool process (an evaluator worker, an engine pool process) is started by
``iris serve`` or ``iris worker`` and stopped by it. When that parent dies
without stopping them (SIGKILL, the OOM killer, a crash mid-shutdown),
nothing else would: an engine pool process waits forever on a queue whose
write end it holds itself, and an evaluator worker goes on claiming jobs
beside the workers of the restarted service. Seen here: an ``iris mcp``
stopped by a test left its engine pool process and multiprocessing's
resource tracker running for good.

The watch is a daemon thread comparing ``os.getppid()`` with the parent's
pid once a second (re-parenting is how a child learns of its parent's
death on every POSIX system; no signal or platform call needed).

The parent's pid is the one multiprocessing recorded when it started the
child, not ``os.getppid()`` read when the watch starts: a spawned child
spends a second or more importing before it gets there, and a parent killed
meanwhile would leave it watching its new parent (init) for ever. Seen in
CI: a service killed soon after it started left both its workers running.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import threading
import time
from collections.abc import Callable

log = logging.getLogger("iris.parentwatch")

WATCH_INTERVAL_S = 1.0
# How long a child asked to stop gracefully may take before it is ended:
# an evaluator worker finishes and stores its batch first.
GRACE_S = 30.0


def parent_pid() -> int:
    """The pid of the process that started this one: as multiprocessing
    recorded it at the start for its children, else ``os.getppid()``."""
    started_by = multiprocessing.parent_process()
    if started_by is not None and started_by.pid is not None:
        return started_by.pid
    return os.getppid()


def end_with_parent(
    stop: Callable[[], None] | None = None,
    *,
    interval: float = WATCH_INTERVAL_S,
    grace: float = GRACE_S,
) -> threading.Thread:
    """Watch this process's parent; when it is gone, call ``stop`` (a
    graceful stop the process's own loop honours), and end the process
    ``grace`` seconds later if it is still running (at once without
    ``stop``)."""
    parent = parent_pid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(interval)
        log.warning("parent process %d is gone; stopping", parent)
        if stop is not None:
            stop()
            time.sleep(grace)
        os._exit(1)

    thread = threading.Thread(target=watch, name="iris-parent-watch", daemon=True)
    thread.start()
    return thread
