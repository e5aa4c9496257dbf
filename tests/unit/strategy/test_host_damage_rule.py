"""Which failures are run again on a fresh JVM (``may_be_host_damage``), without a JVM."""

from __future__ import annotations

from typing import Any

import pytest

from backtestd.strategy.jvm import RunFailure, RunFailureKind
from backtestd.strategy.jvm.host import may_be_host_damage


def _failure(kind: str, **details: Any) -> RunFailure:
    return RunFailure.from_error({"kind": kind, "message": "m", **details})


@pytest.mark.parametrize(
    "failure",
    [
        _failure("host_crashed"),
        _failure("internal_error"),
        _failure("out_of_memory", fatal=True),
        _failure("user_exception", fatal=True, exception="java.lang.NoClassDefFoundError"),
        _failure("sandbox_violation", fatal=True, tripwire=["started 1 thread(s)"]),
    ],
    ids=["crash", "internal", "oom", "linkage error", "tripwire"],
)
def test_failures_the_jvms_state_may_explain_are_run_again(failure: RunFailure) -> None:
    assert may_be_host_damage(failure)


@pytest.mark.parametrize(
    "failure",
    [
        _failure("limit_exceeded", fatal=True, limit="cpu"),
        _failure("stack_overflow", fatal=True),
        _failure("output_limit", limit="signals"),
        _failure("property_error", declared=["n"]),
        _failure("user_exception", exception="java.lang.IllegalStateException"),
        _failure("sandbox_violation", violations=["demo.X uses java.io.File"]),
        _failure("bad_request"),
        RunFailure(RunFailureKind.CANCELLED, "the run was cancelled"),
    ],
    ids=["cpu", "stack", "output", "property", "user", "verifier", "bad request", "cancelled"],
)
def test_failures_the_request_itself_explains_are_final(failure: RunFailure) -> None:
    assert not may_be_host_damage(failure)
