"""The instruments listed on the sim exchange and the parameters that shape each one.

Parameters live in two layers because a spot pair and its perpetual share one underlying
price process (``Asset``) but differ in liquidity and quoting (``Listing``). Values are
loosely calibrated to large USDT markets so that prices, spreads and activity look
plausible in a backtest; they are not estimates of any real market.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from backtestd.domain.marketdata import Instrument

QUOTE = "USDT"
_LOT_TARGET_USD = 2.0  # a lot is the power-of-two base amount worth about this much


@dataclass(frozen=True)
class Asset:
    """An underlying price process.

    ``ref_price`` is the level the log price reverts to; ``market_corr`` is the correlation
    of its hourly shocks with the common market factor (BTC is the market).
    """

    base: str
    ref_price: float
    annual_vol: float
    market_corr: float


@dataclass(frozen=True)
class Listing:
    """One tradable instrument: how often it ticks, how wide it quotes, how big it trades.

    ``ticks_per_hour`` is the median tick count of an hour with seasonality and activity
    regime both at 1. ``outage_prob`` is the chance that an hour has no ticks at all
    (maintenance, halted book), which only the thinner markets have.
    """

    instrument: Instrument
    asset: Asset
    price_decimals: int
    ticks_per_hour: float
    activity_dispersion: float
    spread_bps: float
    trade_usd: float
    outage_prob: float

    @property
    def is_perpetual(self) -> bool:
        return self.instrument.settle is not None

    @property
    def lot_size(self) -> float:
        """Trade and book sizes are whole multiples of this power of two.

        A power-of-two lot makes every partial sum of sizes exact in float64, so kline
        volumes do not depend on summation order and can be recomputed bit for bit.
        """
        return 2.0 ** round(math.log2(_LOT_TARGET_USD / self.asset.ref_price))


BTC = Asset("BTC", ref_price=45_000.0, annual_vol=0.55, market_corr=1.0)
ETH = Asset("ETH", ref_price=2_500.0, annual_vol=0.70, market_corr=0.85)
SOL = Asset("SOL", ref_price=140.0, annual_vol=0.95, market_corr=0.75)
BNB = Asset("BNB", ref_price=550.0, annual_vol=0.60, market_corr=0.70)
XRP = Asset("XRP", ref_price=0.55, annual_vol=0.85, market_corr=0.65)
ADA = Asset("ADA", ref_price=0.45, annual_vol=0.90, market_corr=0.70)
DOGE = Asset("DOGE", ref_price=0.12, annual_vol=1.00, market_corr=0.65)
LINK = Asset("LINK", ref_price=14.0, annual_vol=0.95, market_corr=0.70)


def _listing(asset: Asset, perpetual: bool, *params: float) -> Listing:
    decimals, ticks, dispersion, spread, trade, outage = params
    settle = QUOTE if perpetual else None
    return Listing(
        Instrument(asset.base, QUOTE, settle),
        asset,
        int(decimals),
        ticks,
        dispersion,
        spread,
        trade,
        outage,
    )


# decimals, median ticks/hour, hourly activity dispersion, spread (bps), median trade (USD),
# outage probability per hour
LISTINGS: tuple[Listing, ...] = (
    _listing(BTC, False, 2, 4_000, 0.35, 0.4, 900, 0.0),
    _listing(ETH, False, 2, 2_500, 0.40, 0.6, 600, 0.0),
    _listing(SOL, False, 2, 1_500, 0.50, 1.5, 400, 0.0),
    _listing(BNB, False, 2, 900, 0.55, 2.0, 300, 0.0005),
    _listing(XRP, False, 4, 700, 0.60, 2.5, 250, 0.0005),
    _listing(ADA, False, 4, 350, 0.80, 3.5, 150, 0.004),
    _listing(DOGE, False, 5, 500, 0.70, 3.0, 150, 0.002),
    _listing(LINK, False, 3, 450, 0.85, 4.0, 150, 0.005),
    _listing(BTC, True, 1, 7_000, 0.30, 0.2, 2_500, 0.0),
    _listing(ETH, True, 2, 5_000, 0.35, 0.4, 1_500, 0.0),
    _listing(SOL, True, 3, 2_500, 0.45, 1.0, 700, 0.0),
    _listing(XRP, True, 4, 1_200, 0.55, 2.0, 400, 0.0005),
)

ASSETS: tuple[Asset, ...] = (BTC, ETH, SOL, BNB, XRP, ADA, DOGE, LINK)
_BY_INSTRUMENT: dict[Instrument, Listing] = {item.instrument: item for item in LISTINGS}


def listing_for(instrument: Instrument) -> Listing:
    """The listing of ``instrument``; ``KeyError`` if the sim exchange does not list it."""
    try:
        return _BY_INSTRUMENT[instrument]
    except KeyError:
        raise KeyError(f"the sim exchange does not list {instrument}") from None
