"""Run one piece of work where callgrind can count it alone.

The instruction-count benches start callgrind with collection off and have
it toggle collection on entry to, and exit from, one named function that
surrounds the work. That function must be named in every interpreter Iris
installs on: ``functools.reduce`` is not, in a distribution's CPython
(Debian's executable is stripped, so callgrind sees ``functools_reduce`` as
an address). This calls the work through ``ctypes`` instead: a Python
callback handed to libffi's ``ffi_call``, which is an exported symbol of a
shared library and so named whatever interpreter loads it. Iris itself
never calls through ``ctypes``, so nothing inside the work toggles
collection off again.

    valgrind --tool=callgrind --collect-atstart=no \\
        --toggle-collect=ffi_call python bench/...
"""

from __future__ import annotations

import ctypes
import re
from collections.abc import Callable
from typing import Any

# What to pass to callgrind's ``--toggle-collect``.
TOGGLE = "ffi_call"


def callgrind(out_file: str = "/dev/null") -> list[str]:
    """The command line to put before ``python script.py ...``: callgrind,
    counting only what runs inside ``run_counted``."""
    return [
        "valgrind",
        "--tool=callgrind",
        "--collect-atstart=no",
        f"--toggle-collect={TOGGLE}",
        f"--callgrind-out-file={out_file}",
    ]


def collected(output: str) -> int | None:
    """The instructions callgrind reports it counted, from its output."""
    found = re.search(r"Collected : (\d+)", output)
    return int(found.group(1)) if found else None


_CALLBACK = ctypes.CFUNCTYPE(ctypes.c_int)


def run_counted(work: Callable[[], Any]) -> Any:
    """``work()``, called from C through ``ffi_call``; returns what it
    returned. An exception in ``work`` is raised here after the call."""
    box: dict[str, Any] = {}

    def trampoline() -> int:
        try:
            box["value"] = work()
        except BaseException as exc:  # ctypes would print it and return 0
            box["error"] = exc
        return 0

    callback = _CALLBACK(trampoline)
    callback()
    if "error" in box:
        raise box["error"]
    return box.get("value")
