"""Strategy sources and helpers shared by the engine-host tenant isolation tests (issue 9).

``TEMPLATE`` is a ticker strategy with ``name``, ``members`` and ``body`` slots; ``VICTIM`` is the
ordinary tenant's strategy (buys and sells on small moves) whose signals every test compares with
a run on a JVM no attacker touched.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from backtestd.domain.marketdata import DataType, Instrument
from backtestd.strategy.jvm import (
    CompileResult,
    EngineHost,
    RunRequest,
    RunResult,
    write_columns,
)

TEMPLATE = """\
package demo;

import com.wualabs.qtsurfer.engine.core.Ticker;
import com.wualabs.qtsurfer.engine.core.instrument.Instrument;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.InstrumentGroupRTIndicator;
import com.wualabs.qtsurfer.engine.strategy.AbstractTickerStrategy;
import java.util.*;
import java.util.function.*;

public class %(name)s extends AbstractTickerStrategy {
    private long counter;
%(members)s
    @Override
    public boolean acceptInstrument(Instrument instrument) {
        return true;
    }

    @Override
    protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
    }

    @Override
    public void update(Ticker ticker) {
        super.update(ticker);
%(body)s
    }
}
"""

VICTIM = TEMPLATE % {
    "name": "Victim",
    "members": "    private double prev = Double.NaN;\n",
    "body": (
        "        double p = ticker.last();\n"
        "        boolean seen = !Double.isNaN(prev);\n"
        "        if (seen && p > prev * 1.0005) { emitBuy(ticker.instrument(), p); }\n"
        "        if (seen && p < prev * 0.9995) { emitSell(ticker.instrument(), p); }\n"
        "        prev = p;"
    ),
}


CURRENCY_USER = TEMPLATE % {
    "name": "Cents",
    "members": "    private double prev = Double.NaN;\n",
    "body": (
        '        int digits = java.util.Currency.getInstance("USD").getDefaultFractionDigits();\n'
        "        double scale = Math.pow(10, digits);\n"
        "        double p = Math.round(ticker.last() * scale) / scale;\n"
        "        boolean seen = !Double.isNaN(prev);\n"
        "        if (seen && p > prev * 1.0005) { emitBuy(ticker.instrument(), p); }\n"
        "        if (seen && p < prev * 0.9995) { emitSell(ticker.instrument(), p); }\n"
        "        prev = p;"
    ),
}
"""An ordinary strategy that rounds prices to the currency's cents: it needs
``java.util.Currency``, the JDK class the attacks of these tests try to poison."""


NUMBER_PARSER = TEMPLATE % {
    "name": "Parser",
    "members": "    private double prev = Double.NaN;\n",
    "body": (
        '        double p = Double.parseDouble(String.format("%.2f", ticker.last()));\n'
        "        Calendar at = Calendar.getInstance();\n"
        "        at.setTimeInMillis(ticker.timestamp());\n"
        "        boolean early = at.get(Calendar.MINUTE) < 30;\n"
        "        boolean seen = !Double.isNaN(prev);\n"
        "        if (seen && early && p > prev * 1.0005) { emitBuy(ticker.instrument(), p); }\n"
        "        if (seen && p < prev * 0.9995) { emitSell(ticker.instrument(), p); }\n"
        "        prev = p;"
    ),
}
"""An ordinary strategy whose results depend on the JVM's default locale (it formats and parses
prices; in German ``60090,34`` does not parse) and default time zone (buys only in the first
half of each hour of the default zone's clock; a zone off by half an hour changes them)."""


def attack(name: str, body: str, members: str = "") -> str:
    """A strategy named ``name`` whose ``update`` runs ``body`` (class members in ``members``)."""
    return TEMPLATE % {"name": name, "members": members, "body": body}


def ticker_columns(directory: Path, n: int = 3_000) -> dict[str, Path]:
    """A deterministic random walk of ``n`` tickers written as column files."""
    rng = np.random.default_rng(7)
    last = 100.0 * np.exp(np.cumsum(rng.normal(0, 0.001, n)))
    columns = {
        "ts": 1_700_000_000_000 + np.arange(n, dtype=np.int64) * 1000,
        "bid": last,
        "bidSize": np.ones(n),
        "ask": last,
        "askSize": np.ones(n),
        "last": last,
        "volume": np.ones(n),
    }
    return write_columns(directory, DataType.TICKER, columns)


def ticker_request(compiled: CompileResult, files: dict[str, Path]) -> RunRequest:
    """A run of a compiled strategy over ``files`` (BTC/USDT tickers)."""
    assert compiled.ok, [d.render() for d in compiled.diagnostics]
    assert compiled.main_class is not None
    return RunRequest(
        class_files=compiled.class_files,
        main_class=compiled.main_class,
        kind=DataType.TICKER,
        columns=files,
        instrument=Instrument("BTC", "USDT"),
    )


def run_compiled(host: EngineHost, compiled: CompileResult, files: dict[str, Path]) -> RunResult:
    """Runs a compiled strategy over ``files`` (BTC/USDT tickers)."""
    return host.run(ticker_request(compiled, files))


def same_signals(result: RunResult, reference: RunResult) -> None:
    """Asserts that two runs emitted the same signals."""
    assert result.signal_count == reference.signal_count > 0
    np.testing.assert_array_equal(result.signal_ts, reference.signal_ts)
    np.testing.assert_array_equal(result.signal_side, reference.signal_side)
    np.testing.assert_array_equal(result.signal_price, reference.signal_price)
