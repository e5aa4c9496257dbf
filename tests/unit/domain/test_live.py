"""The live-run vocabulary: stable signal ids, content digests, who may read a run."""

from __future__ import annotations

from dataclasses import replace

from backtestd.domain.live import (
    LiveDesired,
    LiveRunRecord,
    LiveSource,
    LiveStage,
    LiveState,
    Visibility,
    signal_digest,
    signal_id,
)
from backtestd.domain.marketdata import DataType


def test_signal_ids_are_zero_padded_sequences_that_sort_as_numbers() -> None:
    assert signal_id("run", 42) == "run-000042"
    assert signal_id("run", 1_234_567) == "run-1234567"


def test_digest_is_canonical_json_sha256_independent_of_key_order() -> None:
    one = {"type": "hint", "kind": "BUY", "eventTsMs": 5, "data": {"a": 1, "b": 2}}
    two = {"data": {"b": 2, "a": 1}, "eventTsMs": 5, "kind": "BUY", "type": "hint"}
    assert signal_digest(one) == signal_digest(two)
    assert len(signal_digest(one)) == 64
    assert signal_digest(one) != signal_digest({**one, "eventTsMs": 6})


def _run(**changes: object) -> LiveRunRecord:
    base = LiveRunRecord(
        run_id="r",
        user_id="owner",
        strategy_id="s",
        compilation="s@1",
        visibility=Visibility.PRIVATE,
        stage=LiveStage.SANDBOX,
        state=LiveState.RUNNING,
        desired=LiveDesired.RUNNING,
        source=LiveSource("cex", "sim", "spot", DataType.KLINE, ("BTC/USDT",)),
        params={},
        params_version=0,
        relay=False,
        stream=False,
        warm_from=0,
        created_at_ms=0,
        started_at_ms=0,
        updated_at_ms=0,
    )
    return replace(base, **changes)  # type: ignore[arg-type]


def test_only_public_promoted_running_runs_are_readable_by_others() -> None:
    public = {"visibility": Visibility.PUBLIC}
    assert _run().readable_by("owner")
    assert not _run().readable_by("someone")
    assert not _run(**public).readable_by("someone")  # still in the sandbox
    assert _run(**public, stage=LiveStage.LIVE).readable_by("someone")
    assert _run(**public, stage=LiveStage.LIVE).readable_by(None)
    assert not _run(**public, stage=LiveStage.LIVE, state=LiveState.FAILED).readable_by("x")
    stopped = _run(**public, stage=LiveStage.LIVE, desired=LiveDesired.STOPPED)
    assert not stopped.readable_by("someone")
    assert stopped.readable_by("owner")
