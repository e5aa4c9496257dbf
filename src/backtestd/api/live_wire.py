"""Live records and signals in their wire shapes (``spec/live-execution.md`` §4).

Signals are stored with Python names and rendered here for every delivery path (REST, the
Centrifugo channel, the stream URL), so each sends the very same object.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from backtestd.api.schemas import live as wire
from backtestd.domain.backtests import check_base_settings
from backtestd.domain.live import (
    FeeLeg,
    LiveDesired,
    LiveGate,
    LiveRunRecord,
    LiveSource,
    LiveStart,
    PaperConfig,
    Visibility,
)
from backtestd.domain.marketdata import DataType
from backtestd.errors import InvalidInput
from backtestd.services.live.control import ParamsUpdated

STALE_AFTER_MS = 180_000
_ORDER_KEYS = {
    "order_kind": "orderKind",
    "price": "price",
    "amount": "amount",
    "stop_price": "stopPrice",
    "trail_pct": "trailPct",
}


def signal_wire(body: Mapping[str, Any]) -> dict[str, object]:
    """The wire ``LiveSignal`` of a stored body: ``instrument`` always present (``null`` only
    for paper account items), optional keys omitted."""
    out: dict[str, object] = {
        "v": body["v"],
        "signalId": body["signal_id"],
        "runId": body["run_id"],
        "stage": body["stage"],
        "type": body["type"],
        "eventTsMs": body["event_ts_ms"],
        "emittedAtMs": body["emitted_at_ms"],
        "instrument": body.get("instrument"),
        "digest": body["digest"],
        "paramsVersion": body["params_version"],
    }
    if "kind" in body:
        out["kind"] = body["kind"]
    if "order" in body:
        order = body["order"]
        out["order"] = (
            None if order is None else {_ORDER_KEYS.get(k, k): v for k, v in order.items()}
        )
    if "data" in body:
        data = body["data"]
        # Paper items' keys are written in Python names below the API (§6.5 names them here).
        out["data"] = _camel_keys(data) if body["type"] == "paper" and data else data
    if body.get("regenerated"):
        out["regenerated"] = True
    return out


def gate_wire(gate: LiveGate | None) -> dict[str, object] | None:
    """``LiveRunGate``: ``passed``, then diagnostics (``checks``, ``evaluatedAtMs``) or
    ``inheritedFrom`` on a run that started in ``LIVE``."""
    if gate is None:
        return None
    out: dict[str, object] = {"passed": gate.passed}
    if gate.checks is not None:
        out["checks"] = {
            "agreement": gate.checks.agreement,
            "resources": gate.checks.resources,
            "stability": gate.checks.stability,
            "fed": gate.checks.fed,
        }
    if gate.evaluated_at_ms is not None:
        out["evaluatedAtMs"] = gate.evaluated_at_ms
    if gate.inherited_from is not None:
        out["inheritedFrom"] = gate.inherited_from
    return out


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def _camel_keys(data: Mapping[str, Any]) -> dict[str, object]:
    """``counter_amount`` -> ``counterAmount``, one level deep (paper item data is flat)."""
    return {_camel(key): value for key, value in data.items()}


def params_result_wire(result: ParamsUpdated) -> wire.LiveParamsUpdateResult:
    """``LiveParamsUpdateResult``: the answer of ``PUT .../params`` and of the channel's RPC."""
    return wire.LiveParamsUpdateResult(
        runId=result.run_id,
        paramsVersion=result.params_version,
        effectiveAtMs=result.effective_at_ms,
    )


def source_wire(source: LiveSource) -> wire.LiveSource:
    return wire.LiveSource(
        venueType=source.venue_type,
        exchange=source.exchange,
        segment=source.segment,
        type=source.type.value,
        instruments=list(source.instruments),
    )


def _stats(record: LiveRunRecord, now_ms: int) -> wire.LiveRunStats | None:
    stats = record.stats
    if stats is None:
        return None
    return wire.LiveRunStats(
        processed=stats.processed,
        opsPerSecond=stats.ops_per_second,
        instrumentsSeen=stats.instruments_seen,
        asOfMs=stats.as_of_ms,
        stale=record.desired is LiveDesired.RUNNING and now_ms - stats.as_of_ms > STALE_AFTER_MS,
        progressedAtMs=stats.progressed_at_ms,
    )


def paper_wire(paper: PaperConfig | None) -> wire.LivePaperConfig | None:
    if paper is None:
        return None
    return wire.LivePaperConfig(
        initialFunding=paper.initial_funding,
        buyFeeRate=paper.buy_fee_rate,
        sellFeeRate=paper.sell_fee_rate,
        feeLeg=paper.fee_leg.value,
        output=paper.output,
        percentAmountToLock=paper.percent_amount_to_lock,
        accounts=paper.accounts,
    )


def run_wire(
    record: LiveRunRecord,
    now_ms: int,
    *,
    with_stats: bool = False,
    with_start: bool = False,
    with_updated: bool = False,
    stream_url: str | None = None,
) -> wire.LiveRun:
    """``LiveRun`` (stop), ``LiveRunWithStream`` (start, GET by strategy: ``with_start``) or
    ``LiveRunDetail`` (``with_updated``)."""
    return wire.LiveRun(
        strategyId=record.strategy_id,
        runId=record.run_id,
        visibility=record.visibility.value,
        stage=record.stage.value,
        state=record.state.value,
        desired=record.desired.value,
        sources=[source_wire(record.source)],
        params=dict(record.params),
        paramsVersion=record.params_version,
        relay=record.relay,
        startedAtMs=record.started_at_ms,
        name=record.name,
        description=record.description,
        reason=record.reason,
        gate=gate_wire(record.gate),
        paper=paper_wire(record.paper),
        stats=_stats(record, now_ms) if with_stats else None,
        warmFrom=record.warm_from if (with_start or with_updated) else None,
        sandboxMinutes=record.sandbox_minutes if (with_start or with_updated) else None,
        streamUrl=stream_url if with_start else None,
        updatedAtMs=record.updated_at_ms if with_updated else None,
    )


def compact_wire(record: LiveRunRecord) -> wire.LiveRunCompact:
    return wire.LiveRunCompact(
        runId=record.run_id,
        visibility=record.visibility.value,
        stage=record.stage.value,
        state=record.state.value,
        sources=[source_wire(record.source)],
        name=record.name,
        description=record.description,
    )


def summary_wire(record: LiveRunRecord) -> wire.LiveRunSummary:
    return wire.LiveRunSummary(
        strategyId=record.strategy_id,
        runId=record.run_id,
        visibility=record.visibility.value,
        stage=record.stage.value,
        state=record.state.value,
        desired=record.desired.value,
        sources=[source_wire(record.source)],
        createdAtMs=record.created_at_ms,
        startedAtMs=record.started_at_ms,
        name=record.name,
        description=record.description,
        reason=record.reason,
        gate=gate_wire(record.gate),
    )


def public_wire(record: LiveRunRecord) -> wire.PublicLiveRun:
    return wire.PublicLiveRun(
        runId=record.run_id,
        sources=[source_wire(record.source)],
        state=record.state.value,
        createdAtMs=record.created_at_ms,
        name=record.name,
        description=record.description,
    )


_VENUES = {"cx": "cex", "dx": "dex"}


def start_request(body: wire.StartLiveRequest) -> LiveStart:
    """The request in Python names, normalised (§3.1): venue, exchange and segment trimmed and
    lower case; instruments omitted or ``["*"]`` kept as ``["*"]``."""
    if len(body.sources) != 1:
        raise InvalidInput(
            f"sources must hold exactly one source, got {len(body.sources)}",
            reason="INVALID_SOURCES",
        )
    given = body.sources[0]
    venue = given.venueType.strip().lower()
    kind = given.type.strip().lower()
    if kind not in (DataType.TICKER.value, DataType.KLINE.value):
        raise InvalidInput(
            f"sources[0].type {given.type!r} is not ticker or kline", reason="INVALID_SOURCE"
        )
    if given.instruments is not None and not given.instruments:
        raise InvalidInput(
            'sources[0].instruments is empty; name instruments such as ["BTC/USDT"], or '
            "omit it for the strategy's own list",
            reason="INVALID_INSTRUMENTS",
        )
    instruments = tuple(i.strip() for i in given.instruments or ["*"])
    paper = _paper(body.paper)
    if paper is not None and paper.accounts == "instrument" and any("*" in i for i in instruments):
        raise InvalidInput(
            "paper.accounts instrument opens one account per instrument, so it needs the "
            'instruments named (no "*"): name them in sources[0].instruments, or use accounts '
            "currency",
            reason="INVALID_PAPER",
        )
    return LiveStart(
        source=LiveSource(
            venue_type=_VENUES.get(venue, venue),
            exchange=given.exchange.strip().lower(),
            segment=given.segment.strip().lower(),
            type=DataType(kind),
            instruments=instruments,
        ),
        source_given_instruments=given.instruments is not None,
        params=dict(body.params or {}),
        visibility=Visibility(body.visibility or "private"),
        relay=bool(body.relay),
        sandbox=bool(body.sandbox),
        stream=bool(body.stream),
        warm_from=body.warmFrom,
        sandbox_minutes=body.sandboxMinutes,
        name=body.name,
        description=body.description,
        paper=paper,
    )


def _paper(paper: wire.LivePaperConfigRequest | None) -> PaperConfig | None:
    if paper is None:
        return None
    fee = paper.feeRate if paper.feeRate is not None else 0.001
    leg = (paper.feeLeg or "RECEIVED").strip().upper()
    if leg not in FeeLeg.__members__:
        raise InvalidInput(
            f"paper.feeLeg {paper.feeLeg!r} is not RECEIVED, QUOTE or BASE",
            reason="INVALID_PAPER",
        )
    config = PaperConfig(
        initial_funding=paper.initialFunding if paper.initialFunding is not None else 100.0,
        buy_fee_rate=paper.buyFeeRate if paper.buyFeeRate is not None else fee,
        sell_fee_rate=paper.sellFeeRate if paper.sellFeeRate is not None else fee,
        fee_leg=FeeLeg(leg),
        output=paper.output or "separate",
        percent_amount_to_lock=paper.percentAmountToLock,
        accounts=paper.accounts,
    )
    try:  # the one rule of a backtest's baseConfig, named in the paper block's words
        check_base_settings(
            config.initial_funding,
            config.buy_fee_rate,
            config.sell_fee_rate,
            config.percent_amount_to_lock,
        )
    except ValueError as exc:
        raise InvalidInput(
            str(exc).replace("baseConfig.", "paper."), reason="INVALID_PAPER"
        ) from None
    return config
