"""Path parameters shared by several routes, with the documentation OpenAPI shows for them."""

from __future__ import annotations

from typing import Annotated

from fastapi import Path

from backtestd.domain.marketdata import DataType

DATA_TYPE_DESCRIPTION = (
    "The market data the backtest runs on; it must match the strategy's source "
    "(`requiredSources`). "
    "`ticker`: every price update (bid, ask, last, sizes, volume), for `AbstractTickerStrategy` "
    "and QTScript without a source keyword. "
    "`kline`: OHLCV bars at the prepare job's `cadence`, for `AbstractKlineStrategy` and "
    "QTScript `kline`. "
    "`funding`: funding rates of perpetuals, for `AbstractFundingRateStrategy` and QTScript "
    "`funding`; it can be prepared and its prepare job read, but execute and sweeps answer 400. "
    "Another value answers 404 naming the accepted ones."
)

DataTypePath = Annotated[
    str,
    Path(
        description=DATA_TYPE_DESCRIPTION,
        # documentation only: the value is still checked by the service, so an unknown type
        # keeps its 404 {code, message} (the wire reference), not a 422 from validation
        json_schema_extra={"enum": [t.value for t in DataType]},
    ),
]
"""The ``{type}`` of ``/backtest/{exchangeId}/{type}/...``."""
