"""The cost of paper trading on a live run: CPU per update, with and without the paper book.

Run with ``PYTHONPATH=src .venv/bin/python benchmarks/bench_paper.py``. The workload is what the
paper tests run: one-second bars of a random walk and a strategy that emits a hint on every bar
(buy up, sell down), so about every other update opens or closes a position, the costliest case
(a real strategy trades far less often). Each update goes through what the primary execution
does for it (``LiveExecution._step`` after the engine answered): the paper book
(``jobs/live/paper.LivePaper.update``, ``mix`` items included), then one unit of work that
appends the update's signals and, when the book changed, stores its JSON state and its new
curve entries, on a SQLite file as a single-node deployment has it. The same updates are then
recorded without paper (the run without a ``paper`` block), and the difference is the cost of
paper trading. Process CPU time (SQLite runs in the process, so its work counts); the engine's
own time (the JVM) is the same with and without paper and is left out.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from backtestd.domain.live import (
    LiveDesired,
    LiveRunRecord,
    LiveSource,
    LiveStage,
    LiveState,
    PaperConfig,
    SignalType,
    Visibility,
)
from backtestd.domain.marketdata import DataType, Instrument
from backtestd.jobs.live.paper import LivePaper, PaperStep
from backtestd.jobs.live.signal_content import SignalContent, decimal_text, recorded
from backtestd.storage.db.engine import Database
from backtestd.storage.db.migrate import migrate
from backtestd.storage.db.repositories.live import LiveSignalRepository
from backtestd.storage.db.repositories.paper import PaperRepository

FROM_MS = 1_767_225_600_000
BTC = Instrument.parse("BTC/USDT")


@dataclass(frozen=True)
class Update:
    ts_ms: int
    values: tuple[float, ...]
    hint: SignalContent


def _workload(n: int, seed: int) -> list[Update]:
    rng = np.random.default_rng(seed)
    closes = 60_000.0 * np.exp(np.cumsum(rng.normal(0.0, 3e-4, n + 1)))
    place = {"exchange": "sim", "segment": "spot", "symbol": BTC.symbol}
    out = []
    for k in range(n):
        ts = FROM_MS + k * 1_000
        open_, close = float(closes[k]), float(closes[k + 1])
        hint = SignalContent(
            type=SignalType.HINT,
            event_ts_ms=ts + 999,
            instrument=place,
            kind="BUY" if close >= open_ else "SELL",
            order={"order_kind": "MARKET", "price": decimal_text(close)},
        )
        values = (float(ts + 999), open_, max(open_, close), min(open_, close), close, 1.0)
        out.append(Update(ts, values, hint))
    return out


def _record(run_id: str, output: str) -> LiveRunRecord:
    return LiveRunRecord(
        run_id=run_id,
        user_id="bench",
        strategy_id="bench",
        compilation="bench@0",
        visibility=Visibility.PRIVATE,
        stage=LiveStage.LIVE,
        state=LiveState.RUNNING,
        desired=LiveDesired.RUNNING,
        source=LiveSource("cex", "sim", "spot", DataType.KLINE, (BTC.symbol,)),
        params={},
        params_version=0,
        relay=False,
        stream=False,
        warm_from=0,
        created_at_ms=FROM_MS,
        started_at_ms=FROM_MS,
        updated_at_ms=FROM_MS,
        paper=PaperConfig(initial_funding=1000.0, output=output),
    )


def _run(database: Database, updates: list[Update], run_id: str, paper: str | None) -> float:
    """CPU seconds per update of recording ``updates`` as the primary execution does."""
    book = LivePaper(_record(run_id, paper), None) if paper is not None else None
    seq = 1
    started = time.process_time()
    for update in updates:
        produced = [update.hint]
        step: PaperStep | None = None
        if book is not None:
            step = book.update(BTC, update.values, update.ts_ms, produced, 0)
        contents = list(step.before) if step is not None else []
        for index, content in enumerate(produced):
            contents.append(content)
            if step is not None:
                contents += step.after[index]
        signals = []
        for content in contents:
            signals.append(recorded(run_id, seq, "live", content, content.event_ts_ms))
            seq += 1
        with database.unit_of_work() as uow:
            LiveSignalRepository(uow.session).append(signals)
            if step is not None and step.state is not None:
                repository = PaperRepository(uow.session)
                repository.save(run_id, step.state, update.ts_ms)
                repository.add_points(run_id, step.points)
    return (time.process_time() - started) / len(updates)


def _book_only(updates: list[Update]) -> float:
    book = LivePaper(_record("book-only", "mix"), None)
    started = time.process_time()
    for update in updates:
        book.update(BTC, update.values, update.ts_ms, [update.hint], 0)
    return (time.process_time() - started) / len(updates)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--updates", type=int, default=5_000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    updates = _workload(args.updates, args.seed)
    with tempfile.TemporaryDirectory() as scratch:
        database = Database(f"sqlite:///{Path(scratch) / 'bench.sqlite3'}")
        migrate(database)
        _run(database, updates[:200], "warm-up", "mix")
        plain = _run(database, updates, "plain", None)
        separate = _run(database, updates, "separate", "separate")
        mix = _run(database, updates, "mix", "mix")
        database.engine.dispose()
    book = _book_only(updates)
    print(f"{args.updates} updates, a hint on every one (one-second bars, one instrument)")
    print(f"  the paper book alone (LivePaper.update, mix items):  {book * 1e6:8.1f} us CPU")
    print(f"  recorded without paper:                            {plain * 1e6:8.1f} us CPU")
    print(f"  recorded with paper, output separate:              {separate * 1e6:8.1f} us CPU")
    print(f"  recorded with paper, output mix:                   {mix * 1e6:8.1f} us CPU")
    print(
        f"  cost of paper trading per update (separate, mix):  "
        f"{(separate - plain) * 1e6:.1f}, {(mix - plain) * 1e6:.1f} us CPU"
    )


if __name__ == "__main__":
    main()
