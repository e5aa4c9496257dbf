"""What the fork server holds before it forks a worker: imported, not run, by the fork server.

The modules a worker process needs (Dask's worker, the job handlers, numba, SQLAlchemy, the
engine client) and the compiled kernels loaded from numba's cache; each worker forked from it
starts with all of it in memory, shared copy-on-write (``forked_workers``). Nothing here holds
a connection, a file, a thread of our own or a setting: those are per worker and made in the
worker (``runner.warm_worker``), with the settings its tasks bring.
"""

from __future__ import annotations

import distributed.nanny  # noqa: F401  (the worker process's entry point lives here)

from backtestd.jobs.executors import dask as _dask_tasks  # noqa: F401  (the task functions)
from backtestd.jobs.runner import load_compiled_code

load_compiled_code()
