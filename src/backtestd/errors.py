"""Domain errors: a message a person can act on, and no HTTP status.

``api/errors.py`` maps each class to a status and a ``ResponseError`` body; the CLI prints the
message. Keeping statuses out of here lets services be used from the CLI and workers unchanged.
"""

from __future__ import annotations


class BacktestdError(Exception):
    """Base class; ``message`` is shown to the user verbatim."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class ConfigurationError(BacktestdError):
    """Settings are missing or invalid."""


class InvalidInput(BacktestdError):
    """The request is malformed or asks for something impossible."""


class NotFound(BacktestdError):
    """The resource does not exist or is not the caller's (indistinguishable on purpose)."""


class Conflict(BacktestdError):
    """The request collides with existing state (e.g. a name already taken)."""


class LimitExceeded(BacktestdError):
    """A quota, rate or concurrency limit was reached; retrying later may succeed.

    ``retry_after`` (seconds), when known, becomes the ``Retry-After`` header of the 429.
    """

    def __init__(self, message: str, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class PayloadTooLarge(BacktestdError):
    """A request body exceeds its cap."""


class StorageQuotaExceeded(PayloadTooLarge):
    """Storing this would take the account over ``maxTotalStorageBytes`` (413, see limits.md).

    Not a ``LimitExceeded``: waiting does not help, only deleting stored objects does.
    """


class Unauthenticated(BacktestdError):
    """Bearer token missing, malformed, expired or forged."""


class ApiKeyRejected(BacktestdError):
    """The API key presented to ``POST /auth/token`` cannot be exchanged.

    ``code`` is one of the wire values ``invalid_apikey``, ``apikey_revoked``,
    ``apikey_expired``.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
