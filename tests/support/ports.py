"""Free loopback ports for the servers tests start, chosen outside the kernel's ephemeral range.

A port the kernel hands out for ``bind(0)`` comes from the ephemeral range, the same range every
outgoing connection and every Dask scheduler, nanny and worker draws from. A port picked that way
and bound by a server seconds later (after its Dask cluster started) has been taken in between,
and CI failed with ``address already in use``. Below the ephemeral range only processes that ask
for a port by number bind, so a port found free there stays free.

Under pytest-xdist (``make test`` runs two processes) the other test process asks by number
too: two picks of the same free port seconds apart would both pass :func:`is_free`, so each
process draws from its own slice of the range (:func:`port_slice`).
"""

from __future__ import annotations

import os
import random
import socket
from pathlib import Path

EPHEMERAL_RANGE_FILE = Path("/proc/sys/net/ipv4/ip_local_port_range")
LOWEST_PORT = 20000


def ephemeral_range() -> tuple[int, int]:
    """The kernel's ephemeral port range (Linux's default when it cannot be read)."""
    try:
        low, high = EPHEMERAL_RANGE_FILE.read_text().split()
        return int(low), int(high)
    except (OSError, ValueError):
        return 32768, 60999


def is_free(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def port_slice(low: int, high: int) -> tuple[int, int]:
    """This test process's part of the ports ``low .. high - 1``: all of them, or under
    pytest-xdist the worker's own share (worker ``gwK`` of ``N`` takes the K-th of N slices)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    count = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1") or "1")
    if not worker.startswith("gw") or count < 2:
        return low, high
    k = int(worker[2:]) % count
    width = (high - low) // count
    return low + k * width, low + (k + 1) * width


def free_port() -> int:
    """A port no process holds now, from below the ephemeral range when there is room (this
    test process's slice of it)."""
    low, _high = ephemeral_range()
    if low - LOWEST_PORT >= 1000:
        first, end = port_slice(LOWEST_PORT, low)
        for _ in range(200):
            port = random.randint(first, end - 1)
            if is_free(port):
                return port
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
