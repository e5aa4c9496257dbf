"""What the fork server imports before it forks a worker.

The modules a worker process needs (Dask's worker, the job handlers, numba, SQLAlchemy, the
engine client) and the compiled kernels loaded from numba's cache; each worker forked from it
starts with all of it in memory, shared copy-on-write (``forked_workers``). Nothing here holds
a connection, a file, a thread of our own or a setting: those are per worker and made in the
worker (``runner.warm_worker``), with the settings its tasks bring.
"""

from __future__ import annotations

import logging

import distributed.nanny  # noqa: F401  (the worker process's entry point lives here)

from backtestd.jobs.executors import dask as _dask_tasks  # noqa: F401  (the task functions)
from backtestd.jobs.runner import load_compiled_code

try:
    load_compiled_code()
except Exception:  # the fork server would die, and no worker start; each worker loads its own
    logging.getLogger(__name__).warning("the fork server could not load the kernels", exc_info=True)
