"""Errors raised while reading downloaded market-data archives.

Two levels exist on purpose: the numeric helpers (timestamps, quote synthesis) only know row
indices, so they raise :class:`RowError`; the reader that owns the file turns that into an
:class:`ArchiveFormatError` naming the file and the physical line a user can open and fix.
"""

from __future__ import annotations


class ArchiveFormatError(ValueError):
    """The archive cannot be ingested as is; the message names the file and, if known, line."""


class RowError(ValueError):
    """A value problem found after parsing, located by its 0-based data-row index."""

    def __init__(self, row: int, reason: str) -> None:
        super().__init__(reason)
        self.row = row
        self.reason = reason
