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
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable

log = logging.getLogger("iris.parentwatch")

WATCH_INTERVAL_S = 1.0
# How long a child asked to stop gracefully may take before it is ended:
# an evaluator worker finishes and stores its batch first.
GRACE_S = 30.0


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
    parent = os.getppid()

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
