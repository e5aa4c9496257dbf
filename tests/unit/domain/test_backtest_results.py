"""The typed execute result: what the worker stores reads back unchanged, and the read route
serves it under the wire's names; the request's wire sub-objects become the same domain values
the stored spec is read back into."""

from __future__ import annotations

import doctest
import json
from datetime import UTC, datetime
from typing import Any

import pytest

from backtestd.api.schemas.backtests import BaseConfig as WireBaseConfig
from backtestd.api.schemas.backtests import EquityCurveOptions as WireEquityCurve
from backtestd.api.schemas.backtests import ExecuteResults
from backtestd.domain import backtest_results, backtests
from backtestd.domain.backtest_results import ExecuteResult, Metrics, SignalsOutcome
from backtestd.domain.backtests import BaseConfig, ExecuteSpec
from backtestd.domain.equity import EquityCurveMeta, OutMode, ShapedCurve
from backtestd.domain.job_specs import result_from_stored, result_to_stored
from backtestd.domain.jobs import JobKind, JobRecord, JobStatus
from backtestd.engine.portfolio import PortfolioConfig
from backtestd.services.job_views import execute_result

METRICS = Metrics(12.5, 12.5, 3, 2 / 3, 1.25, 1.5, 0.4, 7.0, 6.5)
CURVE = ShapedCurve((1, 2), (100.0, 101.5), EquityCurveMeta(2, 2, False, False, OutMode.ARRAY))


def _wire(result: ExecuteResult, url: str | None = None) -> dict[str, Any]:
    return ExecuteResults.of(result, url).model_dump(exclude_unset=True)


def test_docstring_examples_run() -> None:
    outcome = doctest.testmod(backtests)
    assert outcome.failed == 0
    assert outcome.attempted > 0
    assert doctest.testmod(backtest_results).failed == 0


def test_a_full_result_survives_storage_and_serves_the_wire_names() -> None:
    result = ExecuteResult(
        strategy_context=ExecuteResult.context_of("u1", "s1"),
        instrument="BTC/USDT",
        host_name="h:1",
        iops=123.4,
        params={"fast": 9, "slow": 21.5, "flag": True},
        metrics=METRICS,
        equity_curve=CURVE,
        notices=("first", "second"),
        notices_truncated=3,
        signals=SignalsOutcome(4, "Done", signals_id="job", key="k/1", uploaded_at="2026-01-01Z"),
    )
    stored = json.loads(json.dumps(result_to_stored(result)))  # what the job row holds
    assert result_from_stored(JobKind.EXECUTE, stored) == result
    wire = _wire(result, "https://signed/link")
    assert "signalsKey" not in wire
    assert "k/1" not in json.dumps(wire)
    assert wire["signalsUrl"] == "https://signed/link"
    assert wire["strategyId"] == "strategy:u1:s1"
    assert wire["totalTrades"] == 3
    assert wire["winRate"] == pytest.approx(2 / 3)
    assert wire["params"] == {"fast": 9, "slow": 21.5, "flag": True}
    assert wire["notices"][1] == {
        "level": "WARN",
        "code": "engine.notice",
        "message": "second",
        "provenance": "execute",
    }
    assert wire["noticesTruncated"] == 3
    assert wire["equityCurve"]["points"][1] == {"timestamp": 2, "equity": 101.5}
    assert wire["equityCurve"]["meta"]["outMode"] == "ARRAY"


def test_a_short_curve_is_served_as_two_arrays() -> None:
    short = ShapedCurve((5, 4), (1.0, 1.5), EquityCurveMeta(9, 2, True, True, OutMode.SHORT))
    wire = _wire(ExecuteResult("strategy:u:s", equity_curve=short))["equityCurve"]
    assert wire["timestamps"] == [5, 4]
    assert wire["equities"] == [1.0, 1.5]
    assert "points" not in wire
    assert wire["meta"] == {
        "inputPointCount": 9,
        "outputPointCount": 2,
        "resampled": True,
        "differential": True,
        "outMode": "SHORT",
    }


def test_a_result_without_trades_carries_no_metric_and_no_curve() -> None:
    no_trade = Metrics(0.0, 0.0, 0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    wire = _wire(ExecuteResult(strategy_context="strategy:u:s", metrics=no_trade))
    assert set(wire) == {"hostName", "iops", "strategyId", "instrument"}


def test_a_run_that_failed_before_loading_its_data_still_names_its_strategy() -> None:
    job = JobRecord(
        job_id="j1",
        user_id="u",
        kind=JobKind.EXECUTE,
        exchange_id="sim",
        data_type="kline",
        spec=ExecuteSpec("prep", "s"),
        status=JobStatus.FAILED,
        created_at=datetime(2026, 1, 1, tzinfo=UTC),
        result=None,
    )
    assert _wire(execute_result(job)) == {
        "hostName": "",
        "iops": 0,
        "strategyId": "strategy:u:s",
        "instrument": "",
    }


def test_skipped_signals_keep_their_reason_and_show_no_link() -> None:
    outcome = SignalsOutcome(7, "Skipped", reason="the strategy was deleted")
    wire = _wire(ExecuteResult("strategy:u:s", signals=outcome))
    assert wire["signalsUpload"] == "Skipped"
    assert wire["signalsUploadReason"] == "the strategy was deleted"
    assert wire["signalCount"] == 7
    assert "signalsUrl" not in wire


def test_params_of_a_spec_and_a_result_cannot_be_changed_after_the_fact() -> None:
    given: dict[str, Any] = {"fast": 9}
    spec = ExecuteSpec("prep", "strat", params=given)
    given["fast"] = 10  # the caller's dict is not the spec's
    assert spec.params["fast"] == 9
    with pytest.raises(TypeError):
        spec.params["fast"] = 11  # type: ignore[index]
    stored = result_from_stored(JobKind.EXECUTE, {"params": {"fast": 1}})
    assert isinstance(stored, ExecuteResult)
    assert stored.params is not None
    with pytest.raises(TypeError):
        stored.params["fast"] = 12  # type: ignore[index]


@pytest.mark.parametrize(
    ("wire", "resolved"),
    [
        ({}, BaseConfig()),
        ({"feeRate": 0.002}, BaseConfig(buy_fee_rate=0.002, sell_fee_rate=0.002)),
        ({"feeRate": 0.002, "sellFeeRate": 0.0}, BaseConfig(buy_fee_rate=0.002, sell_fee_rate=0.0)),
        (
            {"initialFunding": 250, "percentAmountToLock": 50, "feeLeg": "BASE"},
            BaseConfig(initial_funding=250.0, fee_leg="BASE", percent_amount_to_lock=50),
        ),
        (
            {"buyFeeRate": 0.01, "sellFeeRate": 0.02, "feeLeg": "QUOTE"},
            BaseConfig(buy_fee_rate=0.01, sell_fee_rate=0.02, fee_leg="QUOTE"),
        ),
    ],
)
def test_the_wire_base_config_resolves_every_default(
    wire: dict[str, Any], resolved: BaseConfig
) -> None:
    assert WireBaseConfig.model_validate(wire).to_domain() == resolved


def test_an_out_of_range_setting_is_named_alike_by_the_request_and_the_kernel() -> None:
    wire = WireBaseConfig.model_validate({"initialFunding": -5}).to_domain()
    with pytest.raises(ValueError, match=r"^baseConfig.initialFunding -5 must be positive$"):
        wire.check()
    with pytest.raises(ValueError, match=r"^baseConfig.initialFunding -5 must be positive$"):
        PortfolioConfig(initial_funding=-5.0)
    with pytest.raises(ValueError, match=r"^equityCurve.resample 1 must be at least 2$"):
        WireEquityCurve.model_validate({"resample": 1}).to_domain().check()
