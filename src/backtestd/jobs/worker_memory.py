"""A worker keeps the memory its trials free for the next trial instead of returning it.

Why: every sweep trial allocates and frees the same few megabytes (the signals it receives,
the kernel's book and trade arrays, the curve it may keep). glibc's defaults gave them back to
the kernel as soon as they were freed (blocks above its mmap threshold are unmapped, a heap top
above 128 KiB is trimmed), so the next trial faulted the same pages in again and the kernel
zeroed each one: 7 % of a worker's CPU in a warm sweep (``perf``, 2026-11-30). With the limits
below a worker's heap keeps up to ``TRIM_BYTES`` of free memory; its peak RSS rose 10-28 MiB
on the 100-vector sweep and stays flat as the vectors grow (docs/benchmarks.md).

Only glibc has ``mallopt``; elsewhere (musl, macOS) this does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging

log = logging.getLogger(__name__)

# mallopt parameters (glibc's malloc.h)
_M_TRIM_THRESHOLD = -1
_M_TOP_PAD = -2
_M_MMAP_THRESHOLD = -3

TRIM_BYTES = 256 << 20
"""Free memory at the top of a heap that is kept rather than returned to the kernel."""

TOP_PAD_BYTES = 64 << 20
"""How much more than asked a heap grows by, so that growing is rare."""

MMAP_BYTES = 32 << 20
"""Blocks from this size up get pages of their own (glibc's maximum); smaller ones come from
the heap and are reused. Setting it also stops glibc from moving the threshold by itself."""


def keep_freed_memory() -> bool:
    """Sets the limits above for this process; False where the C library has no ``mallopt``."""
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name)
        mallopt = libc.mallopt
    except (OSError, AttributeError, TypeError):
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    done = all(
        mallopt(param, value) == 1
        for param, value in (
            (_M_MMAP_THRESHOLD, MMAP_BYTES),
            (_M_TRIM_THRESHOLD, TRIM_BYTES),
            (_M_TOP_PAD, TOP_PAD_BYTES),
        )
    )
    if not done:
        log.warning("mallopt refused a setting: freed memory may be returned to the kernel")
    return done
