"""Typed backtest specs: what an execute asks for, parsed once at the edge.

The route turns the wire body into these frozen records, the service checks them, the job row
stores them through the one serialisation of ``domain/serial.py`` (they are members of the
``domain.job_specs.JobSpec`` union), and the worker reads them back typed. Every default
lives here and nowhere else: explicit defaults and omission build the same record, so the same
job id.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from types import MappingProxyType
from typing import Annotated, Literal

from pydantic import AfterValidator, ConfigDict, PlainSerializer

from backtestd.domain.equity import OutMode
from backtestd.domain.jobs import JobKind
from backtestd.domain.marketdata import DataType
from backtestd.domain.serial import to_stored

DEFAULT_INITIAL_FUNDING = 100.0
DEFAULT_FEE_RATE = 0.001
DEFAULT_FEE_LEG = "RECEIVED"
FEE_LEGS = ("BASE", "QUOTE", "RECEIVED")
ParamValue = str | int | float | bool
"""A strategy property value as a run request carries it."""
FrozenParams = Annotated[
    Mapping[str, ParamValue],
    AfterValidator(lambda params: MappingProxyType(dict(params))),
    PlainSerializer(dict),
]
"""Params read back frozen and stored as a plain mapping."""
STRICT = ConfigDict(extra="forbid")
"""Stored specs name every field they hold: an unknown one is an error, never ignored."""


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
    for name, rate in (
        ("baseConfig.buyFeeRate", buy_fee_rate),
        ("baseConfig.sellFeeRate", sell_fee_rate),
    ):
        if not (math.isfinite(rate) and 0 <= rate < 1):
            raise ValueError(f"{name} {rate:g} must be in [0, 1)")
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

    def check_single_fee(self) -> None:
        """Execute takes one fee rate on the received leg; raises ``ValueError`` for what it
        does not take (split fees, another fee leg)."""
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


@dataclass(frozen=True)
class EquityCurveOptions:
    """How the result's equity curve is shaped (``equityCurve``); not part of the job id."""

    resample: int | None = None
    differential: bool = False
    out_mode: OutMode = OutMode.ARRAY

    def check(self) -> None:
        """Raises ``ValueError`` naming the option that is out of range (wire names)."""
        if self.resample is not None and self.resample < 2:
            raise ValueError(f"equityCurve.resample {self.resample} must be at least 2")


@dataclass(frozen=True)
class StorageLimit:
    """The storage cap in force when an execute that stores signals was accepted."""

    tier: str
    max_total_storage_bytes: int


@dataclass(frozen=True)
class RunLimit:
    """The wall-clock limit of one strategy run (an execute, or one vector of a sweep) on the
    caller's tier when the job was accepted: time blocked or parked counts, since a run that
    waits holds its worker as surely as one that computes (``maxRunSeconds``)."""

    tier: str
    seconds: float

    def cpu_seconds(self, server_cap: float) -> float:
        """The run's CPU limit: the server's, never more than its wall-clock limit."""
        return min(server_cap, self.seconds)


@dataclass(frozen=True)
class ExecuteSpec:
    """One execute: which prepared data, which strategy, and how to run and report it."""

    __pydantic_config__ = STRICT

    prepare_job_id: str
    strategy_id: str
    store_signals: bool = False
    equity_curve: EquityCurveOptions = field(default_factory=EquityCurveOptions)
    base_config: BaseConfig = field(default_factory=BaseConfig)
    params: FrozenParams = field(default_factory=dict)
    storage_limit: StorageLimit | None = None
    run_limit: RunLimit | None = None  # None in rows stored before tiers had one
    kind: Literal[JobKind.EXECUTE] = field(default=JobKind.EXECUTE, kw_only=True)

    def __post_init__(self) -> None:
        # Frozen all the way down: the params feed the job id, so nobody may change them later.
        object.__setattr__(self, "params", MappingProxyType(dict(self.params)))

    def identity(self) -> object:
        """What the job id is digested from: the stored spec without the storage cap and the
        run limit, which travel to the worker but do not make another job."""
        return to_stored(replace(self, storage_limit=None, run_limit=None))


@dataclass(frozen=True)
class DatasetVersionRef:
    """The dataset version a ``user`` prepare reads (the one current when it was asked)."""

    dataset_id: str
    version_id: str


@dataclass(frozen=True)
class PrepareSpec:
    """One prepare: which data, over which range, at which cadence (``cadence`` is the one in
    effect: the request's, or the tier's or the dataset version's default).

    A prepare of a user dataset is the same job with ``dataset`` set (``exchange`` is then
    ``user``): one lifecycle, one handler entry, one manifest; only the source differs.
    """

    __pydantic_config__ = STRICT

    exchange: str
    data_type: DataType
    instrument: str
    start: datetime
    end: datetime
    cadence: str
    cadence_ms: int
    dataset: DatasetVersionRef | None = None
    kind: Literal[JobKind.PREPARE] = field(default=JobKind.PREPARE, kw_only=True)


@dataclass(frozen=True)
class PreparedManifest:
    """What a finished prepare wrote next to its column files, and what every run reads back."""

    job_id: str
    spec: PrepareSpec
    instrument: str
    rows: int
    columns: tuple[str, ...]

    def window_ms(self) -> tuple[int, int]:
        """The prepared range as epoch milliseconds."""
        return int(self.spec.start.timestamp() * 1000), int(self.spec.end.timestamp() * 1000)
