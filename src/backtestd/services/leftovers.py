"""Files a crash leaves behind, removed as the service starts.

A write to the local object store is staged (``.staging-*``) and renamed into place; an upload's
body is spooled (``<data dir>/tmp/upload-*``) before it is published. A process killed between
the two steps never renames or unlinks its file, and nothing else ever would: over restarts they
add up to disk the quotas do not count. What has not been touched for
``BACKTESTD_STAGING_MAX_AGE_SECONDS`` (an hour by default; much longer than any write takes, and
by ctime, which a write or a hard link renews) cannot belong to a write still going on.
"""

from __future__ import annotations

import logging
import threading

from backtestd.settings import Settings
from backtestd.storage.objects.store import ObjectStore, remove_stale_files

UPLOAD_SPOOL_PREFIX = "upload-"
log = logging.getLogger(__name__)


def remove_leftovers(objects: ObjectStore, settings: Settings) -> tuple[int, int]:
    """Delete stale staged objects and spooled upload bodies: ``(staged, spooled)`` removed."""
    age = float(settings.staging_max_age_seconds)
    staged = objects.remove_stale_staging(age)
    spool = settings.scratch_dir
    spooled = remove_stale_files(spool, UPLOAD_SPOOL_PREFIX, age) if spool.is_dir() else 0
    if staged or spooled:
        log.info(
            "removed %d staged object writes and %d spooled uploads left by a crash",
            staged,
            spooled,
        )
    return staged, spooled


def remove_leftovers_in_background(objects: ObjectStore, settings: Settings) -> threading.Thread:
    """:func:`remove_leftovers` on a daemon thread: a large store takes a while to walk, and
    nothing waits for it."""

    def run() -> None:
        try:
            remove_leftovers(objects, settings)
        except OSError:
            log.warning("could not remove the files a crash left", exc_info=True)

    thread = threading.Thread(target=run, name="backtestd-leftovers", daemon=True)
    thread.start()
    return thread
