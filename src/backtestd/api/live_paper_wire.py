"""Paper trading in its wire shapes (``spec/live-execution.md`` §4.6): ``LivePaper`` and
``LivePaperEquityCurve``. Optional values are omitted, never ``null``."""

from __future__ import annotations

from backtestd.api.schemas import live as wire
from backtestd.api.schemas.backtests import EquityCurveMeta, EquityPoint
from backtestd.api.schemas.common import HalLink
from backtestd.domain.equity import OutMode
from backtestd.domain.paper import AccountView, InstrumentView, PaperKpi, PositionView
from backtestd.services.live.paper_reads import CurvePage, PaperView


def kpi_wire(kpi: PaperKpi | None) -> wire.LivePaperKpi | None:
    if kpi is None:
        return None
    return wire.LivePaperKpi(
        totalTrades=kpi.total_trades,
        winCount=kpi.win_count,
        lossCount=kpi.loss_count,
        winRate=kpi.win_rate,
        pnlTotal=kpi.pnl_total,
        pnlTotalPercent=kpi.pnl_total_percent,
        sharpeRatio=kpi.sharpe_ratio,
        sortinoRatio=kpi.sortino_ratio,
        cagr=kpi.cagr,
        maxDrawdown=kpi.max_drawdown,
        maxDrawdownPercent=kpi.max_drawdown_percent,
    )


def _position(position: PositionView) -> wire.LivePaperPosition:
    return wire.LivePaperPosition(
        instrument=position.instrument,
        base=position.base,
        cost=position.cost,
        markPrice=position.mark_price,
        markedAtMs=position.marked_at_ms,
        unrealisedPnl=position.unrealised_pnl,
    )


def _open_position(position: PositionView | None) -> wire.LivePaperOpenPosition | None:
    if position is None:
        return None
    return wire.LivePaperOpenPosition(
        base=position.base,
        cost=position.cost,
        markPrice=position.mark_price,
        markedAtMs=position.marked_at_ms,
        unrealisedPnl=position.unrealised_pnl,
    )


def _instrument(view: InstrumentView) -> wire.LivePaperInstrument:
    return wire.LivePaperInstrument(
        instrument=view.instrument,
        trades=view.trades,
        wins=view.wins,
        losses=view.losses,
        realisedPnl=view.realised_pnl,
        contributionPct=view.contribution_pct,
        unrealisedPnl=view.unrealised_pnl,
        totalPnl=view.total_pnl,
        openPosition=_open_position(view.open_position),
        kpi=kpi_wire(view.kpi),
    )


def account_wire(view: AccountView) -> wire.LivePaperAccount:
    return wire.LivePaperAccount(
        currency=view.currency,
        initialFunding=view.initial_funding,
        equity=view.equity,
        realisedPnl=view.realised_pnl,
        trades=view.trades,
        gaps=view.gaps,
        openPositions=[_position(p) for p in view.open_positions],
        instrument=view.instrument,
        equityAtMs=view.equity_at_ms,
        equityKind=view.equity_kind,  # type: ignore[arg-type]
        unrealisedPnl=view.unrealised_pnl,
        totalPnl=view.total_pnl,
        kpi=kpi_wire(view.kpi),
        instruments=[_instrument(i) for i in view.instruments]
        if view.instruments is not None
        else None,
    )


def paper_view_wire(view: PaperView) -> wire.LivePaper:
    return wire.LivePaper(
        runId=view.run_id,
        stage=view.stage.value,
        accounts=[account_wire(a) for a in view.accounts],
    )


MEASURE_NAMES = {"realisedPnl": "realised_pnl", "totalPnl": "total_pnl"}
"""The wire's ``measure`` values and the names the service uses."""
MEASURE_WIRE = {name: wire_name for wire_name, name in MEASURE_NAMES.items()}


def curve_wire(page: CurvePage, next_link: HalLink | None) -> wire.LivePaperEquityCurve:
    curve = page.curve
    meta = EquityCurveMeta.of(curve.meta)
    body = wire.LivePaperEquityCurve(
        meta=meta,
        measure=MEASURE_WIRE.get(page.measure, page.measure),  # type: ignore[arg-type]
        gaps=list(page.gaps),
        currency=page.currency,
        instrument=page.instrument,
        _links=wire.NextLink(next=next_link) if next_link is not None else None,
    )
    if curve.meta.out_mode is OutMode.SHORT:
        body.timestamps = list(curve.timestamps)
        body.equities = list(curve.equities)
    else:
        body.points = [
            EquityPoint(timestamp=t, equity=v)
            for t, v in zip(curve.timestamps, curve.equities, strict=True)
        ]
    return body
