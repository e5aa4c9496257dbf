"""Split a Binance symbol such as ``BTCUSDT`` into base and quote.

Binance concatenates the two assets with no separator, so the split needs knowledge: the
quote is the longest known quote asset that is a proper suffix, because some quotes end in
others (``BTCAEUR`` is BTC/AEUR, not BTCA/EUR). Unknown quotes fail loudly instead of
guessing; callers that know better pass an explicit :class:`Instrument`.
"""

from __future__ import annotations

from backtestd.domain.marketdata import Instrument

# Quote assets that have been used on Binance spot. Order is irrelevant: matching is done
# longest-first.
QUOTE_ASSETS: frozenset[str] = frozenset(
    {
        # stablecoins
        "USDT", "USDC", "FDUSD", "BUSD", "TUSD", "USDP", "PAX", "DAI", "UST", "USDS", "AEUR",
        "EURI", "XUSD", "IDRT", "BIDR", "BVND", "BKRW", "VAI",
        # crypto
        "BTC", "ETH", "BNB", "XRP", "TRX", "DOGE", "DOT", "SOL",
        # fiat
        "EUR", "TRY", "GBP", "AUD", "BRL", "RUB", "UAH", "NGN", "ZAR", "PLN", "RON", "ARS",
        "JPY", "MXN", "COP", "CZK",
    }
)  # fmt: skip

_BY_LENGTH = sorted(QUOTE_ASSETS, key=lambda asset: (-len(asset), asset))


def split_symbol(symbol: str) -> Instrument:
    """``BTCUSDT`` -> ``Instrument("BTC", "USDT")``; raises ``ValueError`` if no quote fits."""
    text = symbol.strip().upper()
    if not text.isalnum() or not text.isascii():
        raise ValueError(f"symbol {symbol!r} must be letters and digits only, like BTCUSDT")
    for quote in _BY_LENGTH:
        if text.endswith(quote) and len(text) > len(quote):
            return Instrument(text[: -len(quote)], quote)
    raise ValueError(
        f"cannot split symbol {symbol!r} into base and quote: its quote asset is not one of "
        f"the known ones ({', '.join(sorted(QUOTE_ASSETS))}); pass the instrument explicitly"
    )
