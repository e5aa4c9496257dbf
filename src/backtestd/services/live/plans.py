"""The plan's rules for live runs (docs/live.md, "Plans"): which refusal is 402, which 429.

A feature the plan lacks (wildcard instruments) is ``402``; a counted or documented limit (runs,
instruments, a stream URL at start, a trial shorter than the plan's minimum) is ``429`` without
``Retry-After`` (waiting does not lift it); no capacity on the platform is ``429`` with it.
"""

from __future__ import annotations

from backtestd.domain.live import LiveStart
from backtestd.errors import LimitExceeded, PlanRequired
from backtestd.settings import TierLimits


def check_start(
    tier: str,
    limits: TierLimits,
    start: LiveStart,
    active_runs: int,
    platform_runs: int,
    platform_max: int,
    upgrade_url: str | None,
) -> None:
    """Raise the refusal a start meets under ``limits``, or return."""
    instruments = start.source.instruments
    if not limits.live_wildcards and any("*" in i for i in instruments):
        raise PlanRequired(
            f"wildcard instruments are not part of the {tier} plan; name the instruments "
            '(e.g. ["BTC/USDT"])',
            upgrade_url,
            reason="PLAN_WILDCARD",
        )
    if active_runs >= limits.max_live_runs:
        raise _limit(
            f"the {tier} plan allows {limits.max_live_runs} live run(s) at once and "
            f"{active_runs} are running; stop one (DELETE /v1/strategy/{{strategyId}}/live)",
            "LIVE_RUNS",
        )
    if limits.max_live_instruments and len(instruments) > limits.max_live_instruments:
        raise _limit(
            f"the {tier} plan allows {limits.max_live_instruments} instruments per live run; "
            f"{len(instruments)} were given",
            "LIVE_INSTRUMENTS",
        )
    if start.stream and not limits.live_stream:
        raise _limit(
            f"the {tier} plan may not broadcast: stream URLs are not part of it; start without "
            "stream (relay and the WebSocket channel are available)",
            "LIVE_STREAM",
        )
    if start.sandbox_minutes is not None and start.sandbox_minutes < limits.min_sandbox_minutes:
        raise _limit(
            f"sandboxMinutes {start.sandbox_minutes} is below the {tier} plan's minimum trial of "
            f"{limits.min_sandbox_minutes} minutes",
            "LIVE_SANDBOX_MINUTES",
        )
    if platform_runs >= platform_max:
        raise LimitExceeded(
            "the service is running as many live runs as it can; try again shortly",
            reason="LIVE_CAPACITY",
            retry_after=30,
        )


def _limit(message: str, reason: str) -> LimitExceeded:
    return LimitExceeded(message, reason=reason, retryable=False, retry_after=None)
