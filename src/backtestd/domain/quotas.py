"""The storage-pool rule shared by every place storage grows (API and workers alike).

``maxTotalStorageBytes`` caps the sum of a user's datasets, stored signals and registered
strategies (``storageBytesUsed``). The check runs after the new object is counted, inside the
transaction that counts it, so an over-cap store is rolled back and nothing is kept.
"""

from __future__ import annotations

from backtestd.domain.accounts import Usage


def storage_overflow(usage: Usage, cap: int, tier: str, adding: int, what: str) -> str | None:
    """A message saying what does not fit and how to make room, or None when within ``cap``.

    ``usage`` already includes the ``adding`` bytes of ``what``.
    """
    if usage.storage_bytes_used <= cap:
        return None
    before = max(usage.storage_bytes_used - adding, 0)
    return (
        f"storage limit reached: {what} needs {adding:,} bytes, but the {tier} tier's "
        f"maxTotalStorageBytes is {cap:,} and {before:,} bytes are already used "
        "(GET /v1/account/usage shows the breakdown); nothing was stored. Delete strategies you "
        "no longer need (their stored signals go with them) to make room"
    )
