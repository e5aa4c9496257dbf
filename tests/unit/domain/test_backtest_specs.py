"""Typed execute specs: one place for every default, and a canonical identity for the job id."""

from __future__ import annotations

import pytest

from backtestd.domain.backtests import (
    DEFAULT_FEE_RATE,
    DEFAULT_INITIAL_FUNDING,
    BaseConfig,
    EquityCurveOptions,
    ExecuteSpec,
    StorageLimit,
)
from backtestd.domain.canonical import content_id


def _job_id(spec: ExecuteSpec) -> str:
    return content_id("execute", "user-1", spec.identity())


def _spec(**wire: object) -> ExecuteSpec:
    return ExecuteSpec(
        prepare_job_id="prep",
        strategy_id="strat",
        base_config=BaseConfig.from_wire(wire.get("baseConfig")),  # type: ignore[arg-type]
        equity_curve=EquityCurveOptions.from_wire(wire.get("equityCurve")),  # type: ignore[arg-type]
        params=wire.get("params") or {},  # type: ignore[arg-type]
    )


def test_explicit_defaults_and_omission_give_the_same_job_id() -> None:
    bare = _spec()
    explicit = _spec(
        baseConfig={"initialFunding": 100, "feeRate": 0.001, "feeLeg": "RECEIVED"},
        equityCurve={"outMode": "ARRAY", "differential": False},
    )
    assert explicit.identity() == bare.identity() == {"prepareJobId": "prep", "strategyId": "strat"}
    assert _job_id(explicit) == _job_id(bare)


def test_numbers_are_compared_by_value_and_real_changes_change_the_id() -> None:
    nine = _spec(params={"fast": 9}, baseConfig={"feeRate": 0.002})
    nine_point_zero = _spec(
        params={"fast": 9.0}, baseConfig={"buyFeeRate": 0.002, "sellFeeRate": 0.002}
    )
    ten = _spec(params={"fast": 10}, baseConfig={"feeRate": 0.002})
    assert _job_id(nine) == _job_id(nine_point_zero)
    assert _job_id(ten) != _job_id(nine)
    assert nine.identity()["baseConfig"] == {"feeRate": 0.002}


def test_the_storage_cap_travels_with_the_job_but_is_not_part_of_its_id() -> None:
    spec = ExecuteSpec("prep", "strat", store_signals=True)
    capped = ExecuteSpec("prep", "strat", store_signals=True, storage_limit=StorageLimit("free", 5))
    assert _job_id(spec) == _job_id(capped)
    stored = capped.to_json()
    assert stored["storageLimit"] == {"tier": "free", "maxTotalStorageBytes": 5}
    assert ExecuteSpec.from_json(stored) == capped


def test_a_stored_spec_reads_back_to_the_same_spec() -> None:
    spec = _spec(
        params={"fast": 5, "flag": True},
        baseConfig={"initialFunding": 250, "feeRate": 0.0005, "percentAmountToLock": 50},
        equityCurve={"resample": 100, "differential": True, "outMode": "SHORT"},
    )
    again = ExecuteSpec.from_json(spec.to_json())
    assert again.identity() == spec.identity()
    assert again.base_config.initial_funding == 250
    assert again.base_config.buy_fee_rate == again.base_config.sell_fee_rate == 0.0005
    assert again.equity_curve == EquityCurveOptions(100, True, "SHORT")


def test_base_config_resolution_fills_every_default_from_one_place() -> None:
    base = BaseConfig.from_wire({"feeRate": 0.002, "sellFeeRate": 0.003})
    assert base.initial_funding == DEFAULT_INITIAL_FUNDING
    assert (base.buy_fee_rate, base.sell_fee_rate) == (0.002, 0.003)  # a side beats feeRate
    assert BaseConfig.from_wire(None) == BaseConfig()
    assert BaseConfig().buy_fee_rate == DEFAULT_FEE_RATE
    assert BaseConfig.from_wire({"feeLeg": "BASE"}).full_wire()["feeLeg"] == "BASE"


@pytest.mark.parametrize(
    ("wire", "fragment"),
    [
        ({"feeRate": 1.0}, "baseConfig.buyFeeRate 1 must be in [0, 1)"),
        ({"sellFeeRate": -0.1}, "baseConfig.sellFeeRate -0.1 must be in [0, 1)"),
        ({"initialFunding": 0}, "baseConfig.initialFunding 0 must be positive"),
        ({"percentAmountToLock": 150}, "percentAmountToLock 150 must be in (0, 100]"),
        ({"feeLeg": "SIDEWAYS"}, "baseConfig.feeLeg 'SIDEWAYS' must be one of"),
    ],
)
def test_bad_base_configs_name_the_field_and_the_range(
    wire: dict[str, object], fragment: str
) -> None:
    with pytest.raises(ValueError, match="baseConfig") as caught:
        BaseConfig.from_wire(wire)
    assert fragment in str(caught.value)


def test_execute_takes_one_received_leg_fee_rate_sweeps_take_any() -> None:
    split = BaseConfig.from_wire({"buyFeeRate": 0.001, "sellFeeRate": 0.002})
    with pytest.raises(ValueError, match="different buy"):
        split.single_fee_wire()
    with pytest.raises(ValueError, match="feeLeg 'QUOTE' is not supported by execute"):
        BaseConfig.from_wire({"feeLeg": "QUOTE"}).single_fee_wire()
    assert split.full_wire()["sellFeeRate"] == 0.002


def test_equity_curve_options_are_checked() -> None:
    with pytest.raises(ValueError, match="at least 2"):
        EquityCurveOptions.from_wire({"resample": 1})
    with pytest.raises(ValueError, match="outMode"):
        EquityCurveOptions.from_wire({"outMode": "CSV"})


def test_a_prepare_spec_and_its_manifest_read_back_unchanged() -> None:
    from datetime import UTC, datetime

    from backtestd.domain.backtests import PreparedManifest, PrepareSpec

    managed = PrepareSpec(
        "sim",
        "kline",
        "BTC/USDT",
        datetime(2026, 1, 1, tzinfo=UTC),
        datetime(2026, 1, 2, tzinfo=UTC),
        "1m",
        60_000,
    )
    user = PrepareSpec(
        "user", "ticker", "ETH/USDT", managed.start, managed.end, "1s", 1_000, "ds1", "v2"
    )
    assert PrepareSpec.from_json(managed.to_json()) == managed
    assert PrepareSpec.from_json(user.to_json()) == user
    assert "datasetId" not in managed.to_json()
    assert content_id("prepare", "u", managed.to_json()) != content_id(
        "prepare", "u", user.to_json()
    )
    manifest = PreparedManifest("job1", managed, "BTC/USDT", 1440, ("ts", "closeTs", "close"))
    assert PreparedManifest.from_json(manifest.to_json()) == manifest
    assert manifest.window_ms() == (1_767_225_600_000, 1_767_312_000_000)
