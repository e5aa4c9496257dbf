"""Free loopback ports for the servers tests start, chosen outside the kernel's ephemeral range.

A port the kernel hands out for ``bind(0)`` comes from the ephemeral range, the same range every
outgoing connection and every Dask scheduler, nanny and worker draws from. A port picked that way
and bound by a server seconds later (after its Dask cluster started) has been taken in between,
and CI failed with ``address already in use``. Below the ephemeral range only processes that ask
for a port by number bind, so a port found free there stays free.
"""

from __future__ import annotations

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


def free_port() -> int:
    """A port no process holds now, from below the ephemeral range when there is room."""
    low, _high = ephemeral_range()
    if low - LOWEST_PORT >= 1000:
        for _ in range(200):
            port = random.randint(LOWEST_PORT, low - 1)
            if is_free(port):
                return port
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
