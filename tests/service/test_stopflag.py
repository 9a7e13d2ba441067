"""StopFlag: set from a signal handler or another thread, read by a worker's loop."""

from __future__ import annotations

import os
import signal
import threading
import time

from service.stopflag import StopFlag


def test_unset_until_set_and_set_for_good() -> None:
    flag = StopFlag()
    assert not flag.is_set()
    assert flag.wait(0) is False
    flag.set()
    flag.set()
    assert flag.is_set()
    assert flag.wait(0) is True


def test_wait_returns_false_once_the_timeout_passes() -> None:
    flag = StopFlag()
    started = time.monotonic()
    assert flag.wait(0.12) is False
    assert time.monotonic() - started >= 0.12


def test_wait_returns_soon_after_another_thread_sets_it() -> None:
    flag = StopFlag()
    setter = threading.Timer(0.05, flag.set)
    setter.start()
    try:
        started = time.monotonic()
        assert flag.wait(30) is True
        # woken within a slice of being set, not at the timeout
        assert time.monotonic() - started < 10
    finally:
        setter.cancel()


def test_a_signal_sets_it() -> None:
    before = signal.getsignal(signal.SIGUSR1)
    flag = StopFlag()
    try:
        flag.set_on(signal.SIGUSR1)
        os.kill(os.getpid(), signal.SIGUSR1)
        assert flag.wait(5) is True
    finally:
        signal.signal(signal.SIGUSR1, before)
