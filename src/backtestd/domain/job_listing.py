"""The owner's lists of backtest jobs and sweeps: what one entry says and how pages chain.

The lists exist so that a client (the dashboard) can show work started anywhere — from an SDK,
another tab, the CLI — and not only what it started itself. An entry is a summary built from
the job row's typed spec and state; the full state stays at the job's own address.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Generic, TypeVar

from backtestd.domain.backtests import BaseConfig, ExecuteSpec, ParamValue, PrepareSpec
from backtestd.domain.jobs import JobRecord
from backtestd.domain.sweeps import SweepSpec, SweepStatus

T = TypeVar("T")

LIST_LIMIT_DEFAULT = 50
LIST_LIMIT_MAX = 200
"""A page holds at most this many entries (``limit`` 1 to 200, default 50)."""


@dataclass(frozen=True)
class PreparedWindow:
    """What a prepare reads: instrument, range and cadence (and the dataset, for ``user``)."""

    instrument: str
    start: datetime
    end: datetime
    cadence: str
    dataset_id: str | None = None

    @classmethod
    def of(cls, spec: PrepareSpec) -> PreparedWindow:
        dataset = spec.dataset.dataset_id if spec.dataset else None
        return cls(spec.instrument, spec.start, spec.end, spec.cadence, dataset)


@dataclass(frozen=True)
class JobSummary:
    """One prepare or execute job of the owner, as a list shows it.

    ``window`` is the prepare's own window, or for an execute the window of the prepare it ran
    on (``None`` when that prepare is gone). ``strategy_name`` is the QTScript title or Java
    class name of an execute's strategy (``None`` when the strategy row is gone).
    """

    job: JobRecord
    window: PreparedWindow | None = None
    strategy_name: str | None = None
    coverage_ratio: float | None = None

    @property
    def execute(self) -> ExecuteSpec | None:
        return self.job.spec if isinstance(self.job.spec, ExecuteSpec) else None

    @property
    def params(self) -> Mapping[str, ParamValue]:
        spec = self.execute
        return spec.params if spec else {}

    @property
    def base_config(self) -> BaseConfig | None:
        spec = self.execute
        return spec.base_config if spec else None


@dataclass(frozen=True)
class SweepSummary:
    """One sweep of the owner: its address parts, strategy, size and status."""

    job: JobRecord
    spec: SweepSpec
    status: SweepStatus
    strategy_name: str | None = None
    window: PreparedWindow | None = None


@dataclass(frozen=True)
class Page(Generic[T]):
    """Entries newest first; ``next_cursor`` fetches the following page (``None``: last)."""

    items: list[T]
    next_cursor: str | None
