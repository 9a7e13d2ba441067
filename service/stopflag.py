"""A request to stop that a signal handler, a thread or a parent can make.

Evaluator workers stop when asked: ``iris worker`` on SIGTERM or SIGINT, a
pool process on the SIGTERM its pool sends it. Two obvious ways to carry
that request fail:

- A ``multiprocessing`` Event shared by the pool and its processes counts
  each process waiting on it, and ``set()`` waits until every counted
  waiter has woken. A process killed while waiting (SIGKILL, the OOM
  killer) never wakes, so ``set()`` never returns. Seen here: after one idle
  worker had been killed and restarted, ``iris serve`` hung in its shutdown
  for good.
- ``threading.Event.set()`` takes the event's lock. A signal handler runs
  on the main thread between two bytecodes, possibly while that thread
  holds the same lock inside ``wait()``, and would wait for itself.

A ``StopFlag`` is one attribute: setting it takes no lock and waits for no
one. Waiting for it sleeps in short slices, which an idle worker does
anyway between polls of the queue.
"""

from __future__ import annotations

import signal
import time
from types import FrameType

# The longest a ``wait`` oversleeps a stop request.
SLICE_S = 0.05


class StopFlag:
    """Set once, read often; safe to set from a signal handler or any thread."""

    __slots__ = ("_set",)

    def __init__(self) -> None:
        self._set = False

    def set(self) -> None:
        self._set = True

    def is_set(self) -> bool:
        return self._set

    def wait(self, timeout: float) -> bool:
        """Sleep until the flag is set or ``timeout`` seconds have passed;
        True if it is set."""
        deadline = time.monotonic() + timeout
        while not self._set:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            time.sleep(min(left, SLICE_S))
        return True

    def set_on(self, *signals: signal.Signals) -> None:
        """Set the flag when this process receives any of ``signals``
        (main thread only, as for any signal handler)."""

        def handler(_signum: int, _frame: FrameType | None) -> None:
            self.set()

        for sig in signals:
            signal.signal(sig, handler)
