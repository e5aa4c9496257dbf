"""Typed backtest specs: what an execute asks for, parsed once at the edge.

The request is validated into these frozen records by the service, stored as canonical JSON
(:meth:`ExecuteSpec.to_json`), digested into the job id (:meth:`ExecuteSpec.identity`) and read
back by the worker (:meth:`ExecuteSpec.from_json`). Every default lives here and nowhere else:
explicit defaults and omission produce the same identity, so the same job id.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from types import MappingProxyType
from typing import Any

DEFAULT_INITIAL_FUNDING = 100.0
DEFAULT_FEE_RATE = 0.001
DEFAULT_FEE_LEG = "RECEIVED"
FEE_LEGS = ("BASE", "QUOTE", "RECEIVED")
OUT_MODES = ("ARRAY", "SHORT")
ParamValue = str | int | float | bool
"""A strategy property value as a run request carries it."""


def _same(a: float, b: float) -> bool:
    """Equal as the wire means it (9 == 9.0)."""
    return float(a) == float(b)


def check_base_settings(
    initial_funding: float,
    buy_fee_rate: float,
    sell_fee_rate: float,
    percent_amount_to_lock: float | None,
) -> None:
    """The one rule for funding, fees and the entry lock, for the request's ``baseConfig`` and
    for the portfolio kernel's own configuration alike.

    Raises ``ValueError`` that names the setting by its wire name and says the allowed range.

    >>> check_base_settings(100.0, 0.001, 1.0, None)
    Traceback (most recent call last):
    ValueError: baseConfig.sellFeeRate 1 must be in [0, 1)
    """
    for name, rate in (("buyFeeRate", buy_fee_rate), ("sellFeeRate", sell_fee_rate)):
        if not (math.isfinite(rate) and 0 <= rate < 1):
            raise ValueError(f"baseConfig.{name} {rate:g} must be in [0, 1)")
    if not (math.isfinite(initial_funding) and initial_funding > 0):
        raise ValueError(f"baseConfig.initialFunding {initial_funding:g} must be positive")
    lock = percent_amount_to_lock
    if lock is not None and not (math.isfinite(lock) and 0 < lock <= 100):
        raise ValueError(f"baseConfig.percentAmountToLock {lock:g} must be in (0, 100]")


@dataclass(frozen=True)
class BaseConfig:
    """How signals become positions: funding, fees and the per-entry lock (``baseConfig``)."""

    initial_funding: float = DEFAULT_INITIAL_FUNDING
    buy_fee_rate: float = DEFAULT_FEE_RATE
    sell_fee_rate: float = DEFAULT_FEE_RATE
    fee_leg: str = DEFAULT_FEE_LEG
    percent_amount_to_lock: float | None = None

    @classmethod
    def from_wire(cls, config: Mapping[str, Any] | None) -> BaseConfig:
        """Read the wire's ``baseConfig`` (``feeRate`` sets both sides unless they are given).

        Raises ``ValueError`` with a message that names the field and the allowed range.
        """
        config = config or {}
        parsed = cls.resolve(
            initial_funding=config.get("initialFunding"),
            fee_rate=config.get("feeRate"),
            buy_fee_rate=config.get("buyFeeRate"),
            sell_fee_rate=config.get("sellFeeRate"),
            fee_leg=config.get("feeLeg"),
            percent_amount_to_lock=config.get("percentAmountToLock"),
        )
        parsed.check()
        return parsed

    @classmethod
    def resolve(
        cls,
        *,
        initial_funding: float | None = None,
        fee_rate: float | None = None,
        buy_fee_rate: float | None = None,
        sell_fee_rate: float | None = None,
        fee_leg: str | None = None,
        percent_amount_to_lock: float | None = None,
    ) -> BaseConfig:
        """The settings in effect when only some are given (``None``: not given): the
        defaults fill the gaps and ``fee_rate`` sets a side that is not given on its own.

        Not checked: :meth:`check` says what is out of range, in the wire's own names.

        >>> BaseConfig.resolve(fee_rate=0.002, sell_fee_rate=0.0).buy_fee_rate
        0.002
        """
        fee = DEFAULT_FEE_RATE if fee_rate is None else fee_rate
        return cls(
            initial_funding=float(
                DEFAULT_INITIAL_FUNDING if initial_funding is None else initial_funding
            ),
            buy_fee_rate=float(fee if buy_fee_rate is None else buy_fee_rate),
            sell_fee_rate=float(fee if sell_fee_rate is None else sell_fee_rate),
            fee_leg=str(fee_leg or DEFAULT_FEE_LEG),
            percent_amount_to_lock=percent_amount_to_lock,
        )

    def check(self) -> None:
        """Raises ``ValueError`` naming the first setting out of its range (wire names)."""
        check_base_settings(
            self.initial_funding,
            self.buy_fee_rate,
            self.sell_fee_rate,
            self.percent_amount_to_lock,
        )
        if self.fee_leg not in FEE_LEGS:
            raise ValueError(f"baseConfig.feeLeg {self.fee_leg!r} must be one of {FEE_LEGS}")

    def single_fee_wire(self) -> dict[str, Any]:
        """The execute form: one fee rate, received-leg fees, only the non-default settings.

        Raises ``ValueError`` for what execute does not take (split fees, another fee leg).
        """
        if not _same(self.buy_fee_rate, self.sell_fee_rate):
            raise ValueError(
                f"baseConfig resolves to different buy ({self.buy_fee_rate:g}) and sell "
                f"({self.sell_fee_rate:g}) fee rates; execute takes one fee rate: set feeRate only"
            )
        if self.fee_leg != DEFAULT_FEE_LEG:
            raise ValueError(
                f"baseConfig.feeLeg {self.fee_leg!r} is not supported by execute; omit it "
                f"({DEFAULT_FEE_LEG})"
            )
        reduced: dict[str, Any] = {}
        if not _same(self.initial_funding, DEFAULT_INITIAL_FUNDING):
            reduced["initialFunding"] = self.initial_funding
        if not _same(self.buy_fee_rate, DEFAULT_FEE_RATE):
            reduced["feeRate"] = self.buy_fee_rate
        if self.percent_amount_to_lock is not None:
            reduced["percentAmountToLock"] = self.percent_amount_to_lock
        return reduced

    def full_wire(self) -> dict[str, Any]:
        """The sweep form: every setting spelled out (so omission equals the default)."""
        out: dict[str, Any] = {
            "initialFunding": self.initial_funding,
            "buyFeeRate": self.buy_fee_rate,
            "sellFeeRate": self.sell_fee_rate,
            "feeLeg": self.fee_leg,
        }
        if self.percent_amount_to_lock is not None:
            out["percentAmountToLock"] = self.percent_amount_to_lock
        return out


@dataclass(frozen=True)
class EquityCurveOptions:
    """How the result's equity curve is shaped (``equityCurve``); not part of the job id."""

    resample: int | None = None
    differential: bool = False
    out_mode: str = "ARRAY"

    @classmethod
    def from_wire(cls, options: Mapping[str, Any] | None) -> EquityCurveOptions:
        options = options or {}
        parsed = cls(
            options.get("resample"),
            bool(options.get("differential")),
            str(options.get("outMode") or "ARRAY"),
        )
        parsed.check()
        return parsed

    def check(self) -> None:
        """Raises ``ValueError`` naming the option that is out of range (wire names)."""
        if self.resample is not None and self.resample < 2:
            raise ValueError(f"equityCurve.resample {self.resample} must be at least 2")
        if self.out_mode not in OUT_MODES:
            raise ValueError(f"equityCurve.outMode {self.out_mode!r} must be one of {OUT_MODES}")

    def to_wire(self) -> dict[str, Any]:
        reduced: dict[str, Any] = {}
        if self.resample is not None:
            reduced["resample"] = self.resample
        if self.differential:
            reduced["differential"] = True
        if self.out_mode != "ARRAY":
            reduced["outMode"] = self.out_mode
        return reduced


@dataclass(frozen=True)
class StorageLimit:
    """The storage cap in force when an execute that stores signals was accepted."""

    tier: str
    max_total_storage_bytes: int


@dataclass(frozen=True)
class ExecuteSpec:
    """One execute: which prepared data, which strategy, and how to run and report it."""

    prepare_job_id: str
    strategy_id: str
    store_signals: bool = False
    equity_curve: EquityCurveOptions = field(default_factory=EquityCurveOptions)
    base_config: BaseConfig = field(default_factory=BaseConfig)
    params: Mapping[str, ParamValue] = field(default_factory=dict)
    storage_limit: StorageLimit | None = None

    def __post_init__(self) -> None:
        # Frozen all the way down: the params feed the job id, so nobody may change them later.
        object.__setattr__(self, "params", MappingProxyType(dict(self.params)))

    def identity(self) -> dict[str, Any]:
        """What the job id is digested from: the non-default parts, canonical names."""
        spec: dict[str, Any] = {"prepareJobId": self.prepare_job_id, "strategyId": self.strategy_id}
        if self.store_signals:
            spec["storeSignals"] = True
        equity = self.equity_curve.to_wire()
        if equity:
            spec["equityCurve"] = equity
        base = self.base_config.single_fee_wire()
        if base:
            spec["baseConfig"] = base
        if self.params:
            spec["params"] = dict(self.params)
        return spec

    def to_json(self) -> dict[str, Any]:
        """What the job row stores: the identity plus the storage cap the worker enforces."""
        spec = self.identity()
        if self.storage_limit is not None:
            spec["storageLimit"] = {
                "tier": self.storage_limit.tier,
                "maxTotalStorageBytes": self.storage_limit.max_total_storage_bytes,
            }
        return spec

    @classmethod
    def from_json(cls, spec: Mapping[str, Any]) -> ExecuteSpec:
        """Read a stored spec back (every field but the two ids may be absent)."""
        limit = spec.get("storageLimit")
        return cls(
            prepare_job_id=str(spec["prepareJobId"]),
            strategy_id=str(spec["strategyId"]),
            store_signals=bool(spec.get("storeSignals", False)),
            equity_curve=EquityCurveOptions.from_wire(spec.get("equityCurve")),
            base_config=BaseConfig.from_wire(spec.get("baseConfig")),
            params=dict(spec.get("params") or {}),
            storage_limit=StorageLimit(str(limit["tier"]), int(limit["maxTotalStorageBytes"]))
            if limit
            else None,
        )


@dataclass(frozen=True)
class PrepareSpec:
    """One prepare: which data, over which range, at which cadence (``cadence`` is the one in
    effect: the request's, or the tier's or the dataset version's default)."""

    exchange: str
    data_type: str
    instrument: str
    start: datetime
    end: datetime
    cadence: str
    cadence_ms: int
    dataset_id: str | None = None
    dataset_version_id: str | None = None

    def to_json(self) -> dict[str, Any]:
        """What the job row stores and the job id is digested from."""
        spec: dict[str, Any] = {"exchange": self.exchange, "type": self.data_type}
        if self.dataset_id is not None:
            spec["datasetId"] = self.dataset_id
            spec["datasetVersionId"] = self.dataset_version_id
        spec.update(
            {
                "instrument": self.instrument,
                "from": self.start.isoformat(),
                "to": self.end.isoformat(),
                "cadence": self.cadence,
                "cadenceMs": self.cadence_ms,
            }
        )
        return spec

    @classmethod
    def from_json(cls, spec: Mapping[str, Any]) -> PrepareSpec:
        return cls(
            exchange=str(spec["exchange"]),
            data_type=str(spec["type"]),
            instrument=str(spec["instrument"]),
            start=datetime.fromisoformat(spec["from"]),
            end=datetime.fromisoformat(spec["to"]),
            cadence=str(spec["cadence"]),
            cadence_ms=int(spec["cadenceMs"]),
            dataset_id=spec.get("datasetId"),
            dataset_version_id=spec.get("datasetVersionId"),
        )


@dataclass(frozen=True)
class PreparedManifest:
    """What a finished prepare wrote next to its column files, and what every run reads back."""

    job_id: str
    spec: PrepareSpec
    instrument: str
    rows: int
    columns: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        body = self.spec.to_json()
        body["instrument"] = self.instrument
        return {"jobId": self.job_id, **body, "rows": self.rows, "columns": list(self.columns)}

    @classmethod
    def from_json(cls, body: Mapping[str, Any]) -> PreparedManifest:
        return cls(
            job_id=str(body["jobId"]),
            spec=PrepareSpec.from_json(body),
            instrument=str(body["instrument"]),
            rows=int(body["rows"]),
            columns=tuple(str(c) for c in body["columns"]),
        )

    def window_ms(self) -> tuple[int, int]:
        """The prepared range as epoch milliseconds."""
        return int(self.spec.start.timestamp() * 1000), int(self.spec.end.timestamp() * 1000)
