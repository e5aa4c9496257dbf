"""A paper run read through the official SDK 0.8.0, unmodified.

Run as ``python -m tests.support.paper_journey BASE_URL API_KEY RUN_ID`` with ``PYTHONPATH``
putting ``.venv/next-clients`` first; it prints one JSON object of what the user saw:
``get_live_run_paper``, ``get_live_run_paper_equity`` (paged, followed with
``get_next_live_run_paper_equity``, and an instrument's ``totalPnl`` in ``SHORT``) all parse.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from qtsurfer.api.client._generated.models import EquityCurveOutMode, GetLiveRunPaperEquityMeasure
from qtsurfer_sdk import auth


def journey(base_url: str, key: str, run_id: str) -> dict[str, Any]:
    session = auth(key, base_url=base_url)
    paper = session.get_live_run_paper(run_id)
    account = paper.accounts[0]
    pages = [session.get_live_run_paper_equity(run_id, limit=5)]
    while len(pages) < 3:
        following = session.get_next_live_run_paper_equity(run_id, pages[-1])
        if following is None:
            break
        pages.append(following)
    total = session.get_live_run_paper_equity(
        run_id,
        instrument="BTC/USDT",
        measure=GetLiveRunPaperEquityMeasure("totalPnl"),
        out_mode=EquityCurveOutMode("SHORT"),
    )
    return {
        "stage": str(paper.stage.value),
        "currency": account.currency,
        "trades": account.trades,
        "realisedPnl": account.realised_pnl,
        "kpiTrades": account.kpi.total_trades,
        "instruments": [i.instrument for i in account.instruments],
        "pages": [[p.timestamp for p in page.points] for page in pages],
        "measure": str(pages[0].measure.value),
        "totalMeasure": str(total.measure.value),
        "totalPoints": len(total.timestamps),
    }


if __name__ == "__main__":
    print(json.dumps(journey(sys.argv[1], sys.argv[2], sys.argv[3])))  # noqa: T201
