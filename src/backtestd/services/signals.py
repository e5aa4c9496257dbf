"""The stored signals of an execution as CSV, for callers that cannot read parquet (a browser).

The parquet file at ``results.signalsUrl`` stays the stored form; this reads it back through the
owner's own job (the same ownership check as the result, so another user's id is a 404) and
writes the same columns as text.
"""

from __future__ import annotations

import io

import pyarrow.parquet as pq

from backtestd.domain.accounts import Principal
from backtestd.errors import Conflict, NotFound
from backtestd.marketdata.segments import table_csv
from backtestd.services import job_views
from backtestd.services.backtests import BacktestService
from backtestd.storage.objects.store import ObjectStore


class SignalFiles:
    def __init__(self, backtests: BacktestService, objects: ObjectStore) -> None:
        self._backtests = backtests
        self._objects = objects

    def csv(self, principal: Principal, exchange_id: str, data_type: str, job_id: str) -> bytes:
        """``ts,side,price,info``: epoch ms, +1 buy / -1 sell, the price, the strategy's note."""
        job = self._backtests.execute_state(principal, exchange_id, data_type, job_id)
        if not job.status.terminal:
            raise Conflict(f"execution {job_id} has not finished yet; poll its result first")
        signals = job_views.execute_result(job).signals
        if signals is None or not signals.key:
            reason = signals.reason if signals else None
            raise NotFound(
                f"execution {job_id} stored no signals: execute with storeSignals: true "
                f"({reason or 'it was not asked to'})"
            )
        blob = self._objects.get(signals.key)
        if blob is None:
            raise NotFound(
                "the signals no longer exist: they are deleted with their strategy (docs/limits.md)"
            )
        return table_csv(pq.read_table(io.BytesIO(blob)))
