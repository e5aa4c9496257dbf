"""The typed execute result: what the worker stores is what the read route serves, and the
request's wire sub-objects become the same domain values the stored spec is read back into."""

from __future__ import annotations

import doctest
import json
from typing import Any

import pytest

from backtestd.api.schemas.backtests import BaseConfig as WireBaseConfig
from backtestd.api.schemas.backtests import EquityCurveOptions as WireEquityCurve
from backtestd.domain import backtest_results, backtests
from backtestd.domain.backtest_results import ExecuteResult, Metrics, SignalsOutcome
from backtestd.domain.backtests import BaseConfig, EquityCurveOptions, ExecuteSpec
from backtestd.engine.portfolio import PortfolioConfig

METRICS = Metrics(12.5, 12.5, 3, 2 / 3, 1.25, 1.5, 0.4, 7.0, 6.5)


def test_docstring_examples_run() -> None:
    for module in (backtest_results, backtests):
        outcome = doctest.testmod(module)
        assert outcome.failed == 0
        assert outcome.attempted > 0


def test_a_full_result_survives_storage_and_serves_the_wire_names() -> None:
    result = ExecuteResult(
        strategy_context=ExecuteResult.context_of("u1", "s1"),
        instrument="BTC/USDT",
        host_name="h:1",
        iops=123.4,
        params={"fast": 9, "slow": 21.5, "flag": True},
        metrics=METRICS,
        equity_curve={"meta": {"outMode": "ARRAY"}, "points": [{"ts": 1, "equity": 100.0}]},
        notices=("first", "second"),
        notices_truncated=3,
        signals=SignalsOutcome(4, "Done", signals_id="job", key="k/1", uploaded_at="2026-01-01Z"),
    )
    stored = json.loads(json.dumps(result.to_json()))  # what the job row holds
    assert ExecuteResult.from_json(stored, strategy_context="unused") == result
    wire = result.to_wire("https://signed/link")
    assert "signalsKey" not in wire
    assert wire["signalsUrl"] == "https://signed/link"
    assert wire["strategyId"] == "strategy:u1:s1"
    assert wire["totalTrades"] == 3
    assert wire["winRate"] == pytest.approx(2 / 3)
    assert wire["notices"][1] == {
        "level": "WARN",
        "code": "engine.notice",
        "message": "second",
        "provenance": "execute",
    }
    assert wire["noticesTruncated"] == 3


def test_a_result_without_trades_carries_no_metric_and_no_curve() -> None:
    no_trade = Metrics(0.0, 0.0, 0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    result = ExecuteResult(strategy_context="strategy:u:s", metrics=no_trade)
    stored = result.to_json()
    assert set(stored) == {"hostName", "iops", "strategyId", "instrument"}
    assert ExecuteResult.from_json(stored, strategy_context="x").metrics is None


def test_a_run_that_failed_before_loading_its_data_still_names_its_strategy() -> None:
    read = ExecuteResult.from_json({}, strategy_context=ExecuteResult.context_of("u", "s"))
    assert read.to_wire(None) == {
        "hostName": "",
        "iops": 0,
        "strategyId": "strategy:u:s",
        "instrument": "",
    }


def test_skipped_signals_keep_their_reason_and_show_no_link() -> None:
    outcome = SignalsOutcome(7, "Skipped", reason="the strategy was deleted")
    wire = ExecuteResult("strategy:u:s", signals=outcome).to_wire(None)
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
    result = ExecuteResult("strategy:u:s", params=given)
    with pytest.raises(TypeError):
        result.params["fast"] = 12  # type: ignore[index]


@pytest.mark.parametrize(
    "wire",
    [
        {},
        {"feeRate": 0.002},
        {"feeRate": 0.002, "sellFeeRate": 0.0},
        {"initialFunding": 250, "percentAmountToLock": 50, "feeLeg": "BASE"},
        {"buyFeeRate": 0.01, "sellFeeRate": 0.02, "feeLeg": "QUOTE"},
    ],
)
def test_the_wire_base_config_becomes_the_value_the_stored_spec_reads_back(
    wire: dict[str, Any],
) -> None:
    assert WireBaseConfig.model_validate(wire).to_domain() == BaseConfig.from_wire(wire)


@pytest.mark.parametrize("wire", [{}, {"resample": 50}, {"differential": True, "outMode": "SHORT"}])
def test_the_wire_equity_options_become_the_value_the_stored_spec_reads_back(
    wire: dict[str, Any],
) -> None:
    assert WireEquityCurve.model_validate(wire).to_domain() == EquityCurveOptions.from_wire(wire)


def test_an_out_of_range_setting_is_named_alike_by_the_request_and_the_kernel() -> None:
    wire = WireBaseConfig.model_validate({"initialFunding": -5}).to_domain()
    with pytest.raises(ValueError, match=r"^baseConfig.initialFunding -5 must be positive$"):
        wire.check()
    with pytest.raises(ValueError, match=r"^baseConfig.initialFunding -5 must be positive$"):
        PortfolioConfig(initial_funding=-5.0)
    with pytest.raises(ValueError, match=r"^equityCurve.resample 1 must be at least 2$"):
        WireEquityCurve.model_validate({"resample": 1}).to_domain().check()
