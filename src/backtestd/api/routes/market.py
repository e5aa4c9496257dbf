"""Public market-data routes: exchanges, instrument listings, hourly downloads."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from backtestd.api.deps import ServicesDep
from backtestd.api.schemas.common import HalLink, ResponseDocs, ResponseError
from backtestd.api.schemas.market import (
    Coverage,
    CoverageWindow,
    Exchange,
    Instrument,
    InstrumentLinks,
    InstrumentListMeta,
    InstrumentListResponse,
)
from backtestd.domain.marketdata import DataKind
from backtestd.marketdata.catalogue import CoverageWindow as DomainWindow
from backtestd.marketdata.catalogue import InstrumentListing

router = APIRouter(tags=["exchange"])

_DOWNLOAD_ERRORS: ResponseDocs = {
    400: {"model": ResponseError},
    404: {"model": ResponseError},
    429: {
        "model": ResponseError,
        "description": "too many downloads, or requests, from this address (Retry-After: seconds)",
    },
    500: {"model": ResponseError},
}
_BINARY: ResponseDocs = {
    200: {
        "content": {
            "application/vnd.lastra": {"schema": {"type": "string", "format": "binary"}},
            "application/vnd.apache.parquet": {"schema": {"type": "string", "format": "binary"}},
            "text/csv": {"schema": {"type": "string"}},
        },
        "description": "One UTC hour as a lastra (default), parquet or CSV file",
    }
}


@router.get("/exchanges", response_model=list[Exchange], summary="Exchanges with market data")
def list_exchanges(services: ServicesDep) -> list[Exchange]:
    return [
        Exchange(
            id=e.id,
            name=e.name,
            description=e.description,
            segments=services.market.segments(e.id),
            liveSegments=list(e.live_segments),
        )
        for e in services.market.exchanges()
    ]


@router.get(
    "/exchange/{exchangeId}/instruments",
    response_model=InstrumentListResponse,
    response_model_exclude_none=True,
    responses={404: {"model": ResponseError}},
    summary="Spot instruments of an exchange",
)
def list_instruments(exchangeId: str, services: ServicesDep) -> InstrumentListResponse:
    return _listing(services.market.instruments(exchangeId, "spot"))


@router.get(
    "/exchange/{exchangeId}/{segment}/instruments",
    response_model=InstrumentListResponse,
    response_model_exclude_none=True,
    responses={404: {"model": ResponseError}},
    summary="Instruments of one segment (spot or futures)",
)
def list_segment_instruments(
    exchangeId: str, segment: str, services: ServicesDep
) -> InstrumentListResponse:
    return _listing(services.market.instruments(exchangeId, segment))


def _download(
    request: Request,
    services: ServicesDep,
    kind: DataKind,
    exchange_id: str,
    base: str,
    quote: str,
    hour: str | None,
    fmt: str | None,
) -> Response:
    services.market.admit_download(request.client.host if request.client else "unknown")
    result = services.market.download(exchange_id, kind, base, quote, hour, fmt)
    return Response(
        content=result.content,
        media_type=result.media_type,
        headers={
            "Content-Disposition": f'attachment; filename="{result.filename}"',
            # Both formats carry ``ts`` as int64 epoch milliseconds (docs/market-data.md).
            "X-Ts-Unit": "millis",
        },
    )


HourQuery = Annotated[
    str | None,
    Query(description="UTC hour as YYYY-MM-DDTHH", pattern=None, examples=["2026-01-31T14"]),
]
FormatQuery = Annotated[
    Literal["lastra", "parquet", "csv"] | None,
    Query(description="lastra (default) or parquet; csv (an additive option) for browsers"),
]


@router.get(
    "/exchange/{exchangeId}/tickers/{base}/{quote}",
    response_class=Response,
    responses={**_BINARY, **_DOWNLOAD_ERRORS},
    summary="Download one hour of tickers",
)
def download_tickers(
    exchangeId: str,
    base: str,
    quote: str,
    request: Request,
    services: ServicesDep,
    hour: HourQuery = None,
    format: FormatQuery = None,
) -> Response:
    return _download(request, services, DataKind.TICKERS, exchangeId, base, quote, hour, format)


@router.get(
    "/exchange/{exchangeId}/klines/{base}/{quote}",
    response_class=Response,
    responses={**_BINARY, **_DOWNLOAD_ERRORS},
    summary="Download one hour of klines",
)
def download_klines(
    exchangeId: str,
    base: str,
    quote: str,
    request: Request,
    services: ServicesDep,
    hour: HourQuery = None,
    format: FormatQuery = None,
) -> Response:
    return _download(request, services, DataKind.KLINES, exchangeId, base, quote, hour, format)


def _window(window: DomainWindow | None) -> CoverageWindow | None:
    if window is None:
        return None
    return CoverageWindow(**{"from": window.start, "to": window.end})


def _listing(listing: InstrumentListing) -> InstrumentListResponse:
    base = f"/v1/exchange/{listing.exchange_id}"
    return InstrumentListResponse(
        data=[
            Instrument(
                id=e.instrument.pair,
                symbol=e.instrument.pair,
                settle=e.instrument.settle,
                base=e.instrument.base,
                quote=e.instrument.quote,
                coverage=Coverage(tickers=_window(e.tickers), klines=_window(e.klines)),
                lastPrice=e.last_price,
                volume24h=e.volume_24h,
                lastPriceAt=e.price_as_of,
            )
            for e in listing.entries
        ],
        meta=InstrumentListMeta(
            updatedAt=listing.updated_at,
            exchange=listing.exchange_id,
            segment=listing.segment.value,
        ),
        _links=InstrumentLinks(
            self=HalLink(href=f"{base}/{listing.segment.value}/instruments"),
            spot=HalLink(href=f"{base}/spot/instruments"),
            futures=HalLink(href=f"{base}/futures/instruments"),
        ),
    )
