"""Typed job specs: one place for every default, a canonical identity for the job id, and one
strict serialisation to and from the job row."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest
from pydantic import ValidationError

from backtestd.api.schemas.backtests import BaseConfig as WireBaseConfig
from backtestd.api.schemas.backtests import EquityCurveOptions as WireEquityCurve
from backtestd.domain.backtests import (
    DEFAULT_FEE_RATE,
    DEFAULT_INITIAL_FUNDING,
    BaseConfig,
    DatasetVersionRef,
    EquityCurveOptions,
    ExecuteSpec,
    PreparedManifest,
    PrepareSpec,
    StorageLimit,
)
from backtestd.domain.canonical import content_id
from backtestd.domain.datasets import DatasetImportSpec, DatasetIngestSpec, DatasetLimits
from backtestd.domain.equity import OutMode
from backtestd.domain.job_specs import spec_from_stored, spec_to_stored
from backtestd.domain.marketdata import DataKind, DataType
from backtestd.domain.serial import from_stored, to_stored
from backtestd.domain.sweeps import SweepShardSpec


def _job_id(spec: ExecuteSpec) -> str:
    return content_id("execute", "user-1", spec.identity())


def _spec(**wire: Any) -> ExecuteSpec:
    """An execute spec as the route builds it from the wire body's sub-objects."""
    return ExecuteSpec(
        prepare_job_id="prep",
        strategy_id="strat",
        base_config=WireBaseConfig.model_validate(wire.get("baseConfig") or {}).to_domain(),
        equity_curve=WireEquityCurve.model_validate(wire.get("equityCurve") or {}).to_domain(),
        params=wire.get("params") or {},
    )


def _round_trip(spec: Any) -> Any:
    return spec_from_stored(json.loads(json.dumps(spec_to_stored(spec))))


def test_explicit_defaults_and_omission_give_the_same_job_id() -> None:
    bare = _spec()
    explicit = _spec(
        baseConfig={"initialFunding": 100, "feeRate": 0.001, "feeLeg": "RECEIVED"},
        equityCurve={"outMode": "ARRAY", "differential": False},
    )
    assert explicit == bare
    assert _job_id(explicit) == _job_id(bare)


def test_numbers_are_compared_by_value_and_real_changes_change_the_id() -> None:
    nine = _spec(params={"fast": 9}, baseConfig={"feeRate": 0.002})
    nine_point_zero = _spec(
        params={"fast": 9.0}, baseConfig={"buyFeeRate": 0.002, "sellFeeRate": 0.002}
    )
    ten = _spec(params={"fast": 10}, baseConfig={"feeRate": 0.002})
    assert _job_id(nine) == _job_id(nine_point_zero)
    assert _job_id(ten) != _job_id(nine)


def test_the_storage_cap_travels_with_the_job_but_is_not_part_of_its_id() -> None:
    spec = ExecuteSpec("prep", "strat", store_signals=True)
    capped = ExecuteSpec("prep", "strat", store_signals=True, storage_limit=StorageLimit("free", 5))
    assert _job_id(spec) == _job_id(capped)
    assert _round_trip(capped) == capped
    assert _round_trip(capped).storage_limit == StorageLimit("free", 5)


def test_every_job_kind_reads_back_as_the_spec_it_was() -> None:
    start, end = datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 1, 2, tzinfo=UTC)
    limits = DatasetLimits("free", 10, 20)
    specs: list[Any] = [
        _spec(
            params={"fast": 5, "flag": True, "name": "x"},
            baseConfig={"initialFunding": 250, "feeRate": 0.0005, "percentAmountToLock": 50},
            equityCurve={"resample": 100, "differential": True, "outMode": "SHORT"},
        ),
        PrepareSpec("sim", DataType.KLINE, "BTC/USDT", start, end, "1m", 60_000),
        PrepareSpec(
            "user",
            DataType.TICKER,
            "ETH/USDT",
            start,
            end,
            "1s",
            1_000,
            dataset=DatasetVersionRef("ds1", "v2"),
        ),
        SweepShardSpec("swp_1", start=0, stop=50),
        SweepShardSpec("swp_1", fold=3),
        DatasetIngestSpec("ds1", "up_1", limits),
        DatasetImportSpec("ds1", "imp_1", "sim", "BTC/USDT", DataKind.KLINES, start, end, limits),
    ]
    for spec in specs:
        again = _round_trip(spec)
        assert type(again) is type(spec)
        assert again == spec
    assert _round_trip(specs[0]).equity_curve == EquityCurveOptions(100, True, OutMode.SHORT)


def test_a_stored_spec_with_an_unknown_field_or_kind_is_refused() -> None:
    stored = spec_to_stored(ExecuteSpec("prep", "strat"))
    with pytest.raises(ValidationError, match="surprise"):
        spec_from_stored({**stored, "surprise": 1})
    with pytest.raises(ValidationError):
        spec_from_stored({**stored, "kind": "teleport"})


def test_base_config_resolution_fills_every_default_from_one_place() -> None:
    base = BaseConfig.resolve(fee_rate=0.002, sell_fee_rate=0.003)
    assert base.initial_funding == DEFAULT_INITIAL_FUNDING
    assert (base.buy_fee_rate, base.sell_fee_rate) == (0.002, 0.003)  # a side beats feeRate
    assert BaseConfig.resolve() == BaseConfig()
    assert BaseConfig().buy_fee_rate == DEFAULT_FEE_RATE


@pytest.mark.parametrize(
    ("settings", "fragment"),
    [
        ({"fee_rate": 1.0}, "baseConfig.buyFeeRate 1 must be in [0, 1)"),
        ({"sell_fee_rate": -0.1}, "baseConfig.sellFeeRate -0.1 must be in [0, 1)"),
        ({"initial_funding": 0}, "baseConfig.initialFunding 0 must be positive"),
        ({"percent_amount_to_lock": 150}, "percentAmountToLock 150 must be in (0, 100]"),
        ({"fee_leg": "SIDEWAYS"}, "baseConfig.feeLeg 'SIDEWAYS' must be one of"),
    ],
)
def test_bad_base_configs_name_the_field_and_the_range(
    settings: dict[str, Any], fragment: str
) -> None:
    with pytest.raises(ValueError, match="baseConfig") as caught:
        BaseConfig.resolve(**settings).check()
    assert fragment in str(caught.value)


def test_execute_takes_one_received_leg_fee_rate_sweeps_take_any() -> None:
    split = BaseConfig.resolve(buy_fee_rate=0.001, sell_fee_rate=0.002)
    split.check()  # a sweep takes it
    with pytest.raises(ValueError, match="different buy"):
        split.check_single_fee()
    with pytest.raises(ValueError, match="feeLeg 'QUOTE' is not supported by execute"):
        BaseConfig.resolve(fee_leg="QUOTE").check_single_fee()


def test_equity_curve_options_are_checked() -> None:
    with pytest.raises(ValueError, match="at least 2"):
        EquityCurveOptions(resample=1).check()
    with pytest.raises(ValidationError, match="outMode"):
        WireEquityCurve.model_validate({"outMode": "CSV"})


def test_a_prepare_spec_and_its_manifest_read_back_unchanged() -> None:
    managed = PrepareSpec(
        "sim",
        DataType.KLINE,
        "BTC/USDT",
        datetime(2026, 1, 1, tzinfo=UTC),
        datetime(2026, 1, 2, tzinfo=UTC),
        "1m",
        60_000,
    )
    user = PrepareSpec(
        "user",
        DataType.TICKER,
        "ETH/USDT",
        managed.start,
        managed.end,
        "1s",
        1_000,
        DatasetVersionRef("ds1", "v2"),
    )
    assert to_stored(managed)["dataset"] is None
    assert content_id("prepare", "u", to_stored(managed)) != content_id(
        "prepare", "u", to_stored(user)
    )
    manifest = PreparedManifest("job1", managed, "BTC/USDT", 1440, ("ts", "closeTs", "close"))
    blob = json.dumps(to_stored(manifest))  # what the object store holds
    assert from_stored(PreparedManifest, json.loads(blob)) == manifest
    assert manifest.window_ms() == (1_767_225_600_000, 1_767_312_000_000)
