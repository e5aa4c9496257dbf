"""What an execute produced: the typed result the worker stores and the read route serialises.

The job row keeps the result as JSON (:meth:`ExecuteResult.to_json`), so a row written by an
older release still reads: every field but the identity is optional there. The identity fields
(strategy context, instrument, host, iops) are required on the wire even for a run that failed
before it loaded its data; :meth:`ExecuteResult.from_json` is the one place that fills them in.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal

from backtestd.domain.backtests import ParamValue

SignalsUpload = Literal["Done", "Failed", "Skipped"]
NOTICE_LEVEL = "WARN"
NOTICE_CODE = "engine.notice"
NOTICE_PROVENANCE = "execute"


@dataclass(frozen=True)
class Metrics:
    """The metric set shared by ``execute`` results and sweep rows (computed by the engine)."""

    pnl_total: float
    pnl_total_percent: float
    total_trades: int
    win_rate: float
    sharpe_ratio: float
    sortino_ratio: float
    cagr: float
    max_drawdown: float
    max_drawdown_percent: float

    def result_fields(self) -> dict[str, float | int]:
        """The yield metrics of a ``ResultMap`` (wire names). Empty when there was no trade.

        >>> Metrics(1.0, 1.0, 1, 1.0, 0.5, 0.7, 0.1, 2.0, 1.9).result_fields()["winRate"]
        1.0
        """
        if self.total_trades == 0:
            return {}
        return {
            "pnlTotal": self.pnl_total,
            "pnlTotalPercent": self.pnl_total_percent,
            "totalTrades": self.total_trades,
            "winRate": self.win_rate,
            "sharpeRatio": self.sharpe_ratio,
            "sortinoRatio": self.sortino_ratio,
            "cagr": self.cagr,
            "maxDrawdown": self.max_drawdown,
            "maxDrawdownPercent": self.max_drawdown_percent,
        }

    @classmethod
    def from_result_fields(cls, stored: Mapping[str, Any]) -> Metrics | None:
        """The metrics of a stored ``ResultMap``; ``None`` when it has none (no trade)."""
        if "totalTrades" not in stored:
            return None
        return cls(
            pnl_total=float(stored["pnlTotal"]),
            pnl_total_percent=float(stored["pnlTotalPercent"]),
            total_trades=int(stored["totalTrades"]),
            win_rate=float(stored["winRate"]),
            sharpe_ratio=float(stored["sharpeRatio"]),
            sortino_ratio=float(stored["sortinoRatio"]),
            cagr=float(stored["cagr"]),
            max_drawdown=float(stored["maxDrawdown"]),
            max_drawdown_percent=float(stored["maxDrawdownPercent"]),
        )


@dataclass(frozen=True)
class SignalsOutcome:
    """What became of the signals of an execute that asked to store them (``storeSignals``).

    ``key`` is the object key of the stored parquet file; the read side turns it into a signed
    ``signalsUrl`` and never shows the key itself.
    """

    count: int
    upload: SignalsUpload
    reason: str | None = None
    signals_id: str | None = None
    key: str | None = None
    uploaded_at: str | None = None

    def to_json(self) -> dict[str, Any]:
        stored: dict[str, Any] = {"signalCount": self.count}
        if self.signals_id is not None:
            stored["signalsId"] = self.signals_id
        if self.key is not None:
            stored["signalsKey"] = self.key
        stored["signalsUpload"] = self.upload
        if self.reason is not None:
            stored["signalsUploadReason"] = self.reason
        if self.uploaded_at is not None:
            stored["signalsUploadedAt"] = self.uploaded_at
        return stored

    @classmethod
    def from_json(cls, stored: Mapping[str, Any]) -> SignalsOutcome | None:
        if "signalsUpload" not in stored:
            return None
        return cls(
            count=int(stored.get("signalCount", 0)),
            upload=stored["signalsUpload"],
            reason=stored.get("signalsUploadReason"),
            signals_id=stored.get("signalsId"),
            key=stored.get("signalsKey"),
            uploaded_at=stored.get("signalsUploadedAt"),
        )


@dataclass(frozen=True)
class ExecuteResult:
    """One execute's ``results``.

    ``metrics`` is ``None`` without a trade (the wire then omits every metric), as is
    ``equity_curve``, which is already in its wire form (``engine.equity_curve`` shapes it by
    the request's options). ``notices`` are the engine's warnings, at most a display cap of them;
    ``notices_truncated`` counts the rest.
    """

    strategy_context: str
    instrument: str = ""
    host_name: str = ""
    iops: float = 0
    params: Mapping[str, ParamValue] | None = None
    metrics: Metrics | None = None
    equity_curve: Mapping[str, Any] | None = None
    notices: tuple[str, ...] = ()
    notices_truncated: int | None = None
    signals: SignalsOutcome | None = None

    def __post_init__(self) -> None:
        if self.params is not None:
            object.__setattr__(self, "params", MappingProxyType(dict(self.params)))

    @staticmethod
    def context_of(user_id: str, strategy_id: str) -> str:
        """The execution-context id the wire names a result's strategy by."""
        return f"strategy:{user_id}:{strategy_id}"

    def to_json(self) -> dict[str, Any]:
        """The stored form: the wire's ``ResultMap`` with the signals' object key."""
        stored: dict[str, Any] = {
            "hostName": self.host_name,
            "iops": self.iops,
            "strategyId": self.strategy_context,
            "instrument": self.instrument,
        }
        if self.params:
            stored["params"] = dict(self.params)
        if self.metrics is not None:
            stored.update(self.metrics.result_fields())
        if self.equity_curve is not None:
            stored["equityCurve"] = dict(self.equity_curve)
        if self.notices:
            stored["notices"] = [
                {
                    "level": NOTICE_LEVEL,
                    "code": NOTICE_CODE,
                    "message": text,
                    "provenance": NOTICE_PROVENANCE,
                }
                for text in self.notices
            ]
        if self.notices_truncated is not None:
            stored["noticesTruncated"] = self.notices_truncated
        if self.signals is not None:
            stored.update(self.signals.to_json())
        return stored

    def to_wire(self, signals_url: str | None) -> dict[str, Any]:
        """The ``results`` a client reads: the object key replaced by its signed link."""
        wire = self.to_json()
        wire.pop("signalsKey", None)
        if signals_url:
            wire["signalsUrl"] = signals_url
        return wire

    @classmethod
    def from_json(cls, stored: Mapping[str, Any], *, strategy_context: str) -> ExecuteResult:
        """Read a stored result; ``strategy_context`` stands in when a failed run stored none."""
        return cls(
            strategy_context=str(stored.get("strategyId") or strategy_context),
            instrument=str(stored.get("instrument", "")),
            host_name=str(stored.get("hostName", "")),
            iops=stored.get("iops", 0),
            params=stored.get("params"),
            metrics=Metrics.from_result_fields(stored),
            equity_curve=stored.get("equityCurve"),
            notices=tuple(str(n["message"]) for n in stored.get("notices") or ()),
            notices_truncated=stored.get("noticesTruncated"),
            signals=SignalsOutcome.from_json(stored),
        )
