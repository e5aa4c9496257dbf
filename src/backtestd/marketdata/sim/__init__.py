"""The ``sim`` exchange: deterministic simulated market data generated hour by hour.

See ``docs/sim-exchange.md`` for the model. The service needs only :class:`SimExchange`;
:func:`klines_from_tickers` and :func:`hour_stats` are exported for reuse and checks.
"""

from backtestd.marketdata.sim.generator import SimExchange
from backtestd.marketdata.sim.klines import klines_from_tickers
from backtestd.marketdata.sim.stats import hour_stats

__all__ = ["SimExchange", "hour_stats", "klines_from_tickers"]
