"""Domain errors: a message a person can act on, and no HTTP status.

``api/errors.py`` maps each class to a status and a ``ResponseError`` body; the CLI prints the
message. Keeping statuses out of here lets services be used from the CLI and workers unchanged.
"""

from __future__ import annotations

from typing import Literal


class BacktestdError(Exception):
    """Base class; ``message`` is shown to the user verbatim.

    ``reason`` is a stable upper-case token naming the cause (clients switch on it, the
    message is for people); ``retryable`` says whether the same call may succeed later;
    ``next_call`` is the follow-up call that fixes the problem, when there is one
    (``{"method", "path", "body"?}``, path relative to ``/v1``); ``retry_after`` is in seconds.
    """

    default_reason = "ERROR"
    default_retryable = False
    default_retry_after: int | None = None
    """Seconds for the ``Retry-After`` header unless the raiser says otherwise (``None``: no
    header, for a limit that waiting does not lift)."""

    def __init__(
        self,
        message: str,
        *,
        reason: str | None = None,
        retryable: bool | None = None,
        next_call: dict[str, object] | None = None,
        retry_after: int | None | Literal["default"] = "default",
    ) -> None:
        super().__init__(message)
        self.message = message
        self.reason = reason or self.default_reason
        self.retryable = self.default_retryable if retryable is None else retryable
        self.next_call = next_call
        self.retry_after = self.default_retry_after if retry_after == "default" else retry_after


class ServiceUnavailable(BacktestdError):
    """A dependency (the database) cannot be reached right now; the same call may succeed in a
    few seconds. Nothing was changed: the unit of work rolled back."""

    default_reason = "SERVICE_UNAVAILABLE"
    default_retryable = True
    default_retry_after = 5


class ConfigurationError(BacktestdError):
    """Settings are missing or invalid."""


class InvalidInput(BacktestdError):
    """The request is malformed or asks for something impossible."""

    default_reason = "INVALID_REQUEST"


class NotFound(BacktestdError):
    """The resource does not exist or is not the caller's (indistinguishable on purpose)."""

    default_reason = "NOT_FOUND"


class Conflict(BacktestdError):
    """The request collides with existing state (e.g. a name already taken)."""

    default_reason = "CONFLICT"


class Gone(BacktestdError):
    """What the request points at was discarded (an expired cursor of a moving window)."""

    default_reason = "GONE"


class Forbidden(BacktestdError):
    """A signed link that is tampered with or expired: refused without saying which."""

    default_reason = "LINK_REJECTED"


class LimitExceeded(BacktestdError):
    """A quota, rate or concurrency limit was reached; retrying later may succeed.

    ``retry_after`` (seconds), when known, becomes the ``Retry-After`` header of the 429.
    """

    default_reason = "LIMIT_REACHED"
    default_retryable = True
    default_retry_after = 5


class PlanRequired(BacktestdError):
    """The caller's tier does not include what was asked for (e.g. a cadence)."""

    default_reason = "PLAN_REQUIRED"

    def __init__(
        self, message: str, upgrade_url: str | None = None, *, reason: str | None = None
    ) -> None:
        super().__init__(message, reason=reason)
        self.upgrade_url = upgrade_url


class InsufficientScope(BacktestdError):
    """The caller's API key lacks the scope an endpoint needs."""

    default_reason = "INSUFFICIENT_SCOPE"

    def __init__(self, required: str) -> None:
        super().__init__(
            f"this call needs the scope {required!r}, which the API key does not have; create "
            f"a key with --scope {required} (or without --scope for every scope)"
        )
        self.required = required


class PayloadTooLarge(BacktestdError):
    """A request body exceeds its cap."""

    default_reason = "PAYLOAD_TOO_LARGE"


class StorageQuotaExceeded(PayloadTooLarge):
    """Storing this would take the account over ``maxTotalStorageBytes`` (413, see limits.md).

    Not a ``LimitExceeded``: waiting does not help, only deleting stored objects does.
    """

    default_reason = "STORAGE_FULL"


class Unauthenticated(BacktestdError):
    """Bearer token missing, malformed, expired or forged."""

    default_reason = "UNAUTHENTICATED"


class ApiKeyRejected(BacktestdError):
    """The API key presented to ``POST /auth/token`` cannot be exchanged.

    ``code`` is one of the wire values ``invalid_apikey``, ``apikey_revoked``,
    ``apikey_expired``.
    """

    def __init__(self, code: str, message: str, status: int = 401) -> None:
        super().__init__(message)
        self.code = code
        self.status = status
