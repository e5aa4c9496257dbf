"""Dask worker preload: a worker process ignores SIGINT; its nanny stops it.

Ctrl-C in a terminal sends SIGINT to the whole foreground process group: the service (or the
``backtestd worker`` nanny) and every Dask worker process it started. The service then closes
its cluster in order, each nanny asking its worker to close; a worker that had also received
the signal was instead interrupted inside its event loop and printed a ``KeyboardInterrupt``
traceback (one per worker, issue 27). Ignoring the signal in the worker leaves the stop to the
nanny, which is the only one that should decide it. A worker killed outright (SIGTERM,
SIGKILL) is unaffected.
"""

from __future__ import annotations

import signal
import threading

PRELOAD = __name__
"""The name to pass as a worker ``preload``."""


def dask_setup(worker: object) -> None:
    """Called by Dask in the worker process as it starts (on its main thread there)."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
