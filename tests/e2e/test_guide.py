"""Black-box: every code block of the user guide (docs/guide/) works as its page says.

Each ``java``/``qtscript`` block is registered on a live server, validated, and backtested over
a small ``sim`` range (or fails exactly as its marker says); the runnable ``python``/``bash``
blocks are executed against the same server. So the guide cannot rot: a change to the engine, the
sandbox or the API that breaks an example breaks this test. The markers are described in
tests/support/guide.py.
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import httpx
import pytest
from qtsurfer_sdk import AuthenticatedSession, auth

from tests.e2e.backtest_helpers import call, recent_range, wait_prepare, wait_result
from tests.support.guide import (
    GUIDE_DIR,
    SCRIPT_LANGUAGES,
    STRATEGY_LANGUAGES,
    Block,
    guide_blocks,
    guide_pages,
)
from tests.support.polling import Pauses
from tests.support.server import LiveServer

ROOT = GUIDE_DIR.parents[1]
STRATEGIES = guide_blocks(STRATEGY_LANGUAGES)
SCRIPTS = [b for b in guide_blocks(SCRIPT_LANGUAGES) if "run" in b.marker]
TWO_HOURS = recent_range(2)
SOURCE_TYPES = {"Ticker": "ticker", "KLine": "kline"}


@pytest.fixture(scope="module")
def reader(live_server: LiveServer) -> tuple[str, AuthenticatedSession]:
    key = live_server.create_key("guide-reader", tier="elite")
    return key, auth(key, base_url=live_server.base_url)


@pytest.fixture(scope="module")
def prepared(reader: tuple[str, AuthenticatedSession]) -> dict[tuple[str, str, str], str]:
    """Prepare jobs by (type, instrument, cadence), made on first use."""
    return {}


def _prepare(
    session: AuthenticatedSession, cache: dict[tuple[str, str, str], str], block: Block, kind: str
) -> str:
    instrument = block.get("instrument", "BTC/USDT") or "BTC/USDT"
    cadence = block.get("cadence", "1m") if kind == "kline" else ""
    key = (kind, instrument, cadence or "")
    if key not in cache:
        start, end = TWO_HOURS
        extra = {"cadence": cadence} if cadence else {}
        job = session.prepare(
            exchange_id="sim", type_=kind, instrument=instrument, from_=start, to=end, **extra
        )
        state = wait_prepare(session, "sim", kind, job.job_id)
        assert state.status.value == "Completed", state.to_dict()
        cache[key] = str(job.job_id)
    return cache[key]


def _register(server: LiveServer, session: AuthenticatedSession, block: Block) -> httpx.Response:
    token = session.token.access_token  # type: ignore[union-attr]
    return httpx.post(
        f"{server.base_url}/strategy",
        content=block.text.encode(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "text/plain"},
        timeout=60,
    )


def _verdict(server: LiveServer, session: AuthenticatedSession, strategy_id: str) -> dict[str, Any]:
    session.validate_strategy(strategy_id)
    deadline = time.monotonic() + 120
    pauses = Pauses()
    while time.monotonic() < deadline:
        state: dict[str, Any] = call(server, session, "GET", f"/strategy/{strategy_id}").json()
        if state["validation"] != "pending":
            return state
        pauses.sleep()
    raise AssertionError(f"validation of {strategy_id} still pending")


def _backtest(
    server: LiveServer,
    session: AuthenticatedSession,
    cache: dict[tuple[str, str, str], str],
    block: Block,
) -> tuple[dict[str, Any], str]:
    """Register, validate and run ``block``; returns (result body, signals CSV path)."""
    registered = _register(server, session, block)
    assert registered.status_code == 200, (block.id, registered.text)
    strategy_id = registered.json()["strategyId"]
    state = _verdict(server, session, strategy_id)
    assert state["validation"] == "passed", (block.id, state)
    kind = block.get("type") or SOURCE_TYPES[state["requiredSources"][0]]
    body: dict[str, Any] = {
        "prepareJobId": _prepare(session, cache, block, kind),
        "strategyId": strategy_id,
        "storeSignals": True,
    }
    if block.get("params"):
        body["params"] = json.loads(block.get("params") or "{}")
    accepted = call(server, session, "POST", f"/backtest/sim/{kind}/execute", json=body)
    assert accepted.status_code == 202, (block.id, accepted.text)
    job_id = accepted.json()["jobId"]
    return wait_result(
        session, "sim", kind, job_id
    ), f"/backtest/sim/{kind}/execute/{job_id}/signals"


def test_the_guide_has_strategy_blocks_of_both_languages_and_runnable_scripts() -> None:
    languages = {b.language for b in STRATEGIES}
    assert languages == {"java", "qtscript"}
    assert len(STRATEGIES) >= 10
    assert any(b.language == "python" for b in SCRIPTS)
    assert {b.get("expect") for b in STRATEGIES} >= {None, "compile-error", "validation-failed"}
    known = {None, "run", "compile-error", "validation-failed"}
    assert all(b.get("expect") in known for b in STRATEGIES), [b.id for b in STRATEGIES]
    # a misspelt key would silently check nothing
    strategy_keys = {"expect", "message", "warning", "info-field", "type", "cadence"}
    strategy_keys |= {"instrument", "params", "notice", "twin", "file", "signals"}
    for block in STRATEGIES:
        assert set(block.marker) <= strategy_keys, (block.id, block.marker)
    for block in guide_blocks(SCRIPT_LANGUAGES):
        assert set(block.marker) <= {"run", "args", "output"}, (block.id, block.marker)


@pytest.mark.parametrize("block", STRATEGIES, ids=[b.id for b in STRATEGIES])
def test_guide_strategy_block_behaves_as_its_page_says(
    live_server: LiveServer,
    reader: tuple[str, AuthenticatedSession],
    prepared: dict[tuple[str, str, str], str],
    block: Block,
) -> None:
    session = reader[1]
    expect = block.get("expect", "run")
    if expect == "compile-error":
        response = _register(live_server, session, block)
        assert response.status_code == 400, response.text
        assert set(response.json()) >= {"code", "message"}
        for text in block.all("message"):
            assert text in response.json()["message"], response.json()
        return
    if expect == "validation-failed":
        response = _register(live_server, session, block)
        assert response.status_code == 200, response.text
        for text in block.all("warning"):
            assert any(text in w for w in response.json().get("warnings", [])), response.json()
        state = _verdict(live_server, session, response.json()["strategyId"])
        assert state["validation"] == "failed", state
        for text in block.all("message"):
            assert text in state["detail"], state
            assert any(text in n["message"] for n in state["notices"]), state
        # the page says a backtest of it fails the same way: validation does not gate execute
        kind = SOURCE_TYPES[(state.get("requiredSources") or ["Ticker"])[0]]
        job = call(
            live_server,
            session,
            "POST",
            f"/backtest/sim/{kind}/execute",
            json={
                "prepareJobId": _prepare(session, prepared, block, kind),
                "strategyId": state["strategyId"],
            },
        )
        assert job.status_code == 202, job.text
        failed = wait_result(session, "sim", kind, job.json()["jobId"])["state"]
        assert failed["status"] == "Failed", failed
        for text in block.all("message"):
            assert text in failed["statusDetail"], failed
        return
    body, signals_path = _backtest(live_server, session, prepared, block)
    assert body["state"]["status"] == "Completed", (block.id, body["state"])
    results = body["results"]
    assert results["signalCount"] >= int(block.get("signals", "1") or "1"), results
    for text in block.all("notice"):
        assert any(text in n["message"] for n in results.get("notices", [])), results
    if block.get("params"):
        assert results["params"] == json.loads(block.get("params") or "{}")
    if block.all("info-field"):
        rows = list(
            csv.DictReader(io.StringIO(call(live_server, session, "GET", signals_path).text))
        )
        infos = [json.loads(row["info"]) for row in rows if row["side"] == "0"]
        for expected in block.all("info-field"):
            name, _, value = expected.partition(":")
            assert any(info.get(name) == json.loads(value) for info in infos), infos[:5]


TWINS: dict[str, list[Block]] = defaultdict(list)
for _block in STRATEGIES:
    if _block.get("twin"):
        TWINS[_block.get("twin") or ""].append(_block)


@pytest.mark.parametrize("twin", sorted(TWINS))
def test_java_and_qtscript_twins_trade_identically(
    live_server: LiveServer,
    reader: tuple[str, AuthenticatedSession],
    prepared: dict[tuple[str, str, str], str],
    twin: str,
) -> None:
    """The pages say the QTScript version is the same strategy as the Java one: same data, same
    trades, same PnL (executes are idempotent, so re-running a block costs nothing)."""
    blocks = TWINS[twin]
    assert {b.language for b in blocks} == {"java", "qtscript"}, [b.id for b in blocks]
    outcomes = set()
    for block in blocks:
        body, _ = _backtest(live_server, reader[1], prepared, block)
        results = body["results"]
        outcomes.add((results.get("totalTrades"), results.get("pnlTotal"), results["signalCount"]))
    assert len(outcomes) == 1, outcomes


def _write_files(directory: Path) -> None:
    for block in STRATEGIES:
        if block.get("file"):
            (directory / (block.get("file") or "")).write_text(block.text, encoding="utf-8")


@pytest.mark.parametrize("block", SCRIPTS, ids=[b.id for b in SCRIPTS])
def test_guide_script_runs_against_the_server(
    live_server: LiveServer,
    reader: tuple[str, AuthenticatedSession],
    tmp_path: Path,
    block: Block,
) -> None:
    """The page's Python (official SDK) and curl scripts, run as a reader would, with the key and
    the server address in the environment variables the page names."""
    _write_files(tmp_path)
    if block.language == "python":
        script = tmp_path / "script.py"
        command = [sys.executable, str(script)]
    else:
        for tool in ("curl", "jq"):
            if shutil.which(tool) is None:
                pytest.skip(f"{tool} is not on PATH")
        script = tmp_path / "script.sh"
        command = ["bash", "-euo", "pipefail", str(script)]
    script.write_text(block.text, encoding="utf-8")
    env = {
        **os.environ,
        "QTSURFER_APIKEY": reader[0],
        "QTSURFER_BASE_URL": live_server.base_url,
    }
    result = subprocess.run(
        [*command, *block.all("args")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, (result.stdout, result.stderr)
    for text in block.all("output"):
        assert text in result.stdout, result.stdout


def test_readme_and_index_link_every_guide_page() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    quick_start = readme.index("## Quick start")
    link = readme.index("(docs/guide/README.md)")
    assert quick_start < link < readme.index("```", quick_start), "link it near the top"
    docs_list = readme[readme.index("## Documentation") :]
    assert docs_list.index("docs/guide/README.md") < docs_list.index("docs/architecture.md")
    index = (GUIDE_DIR / "README.md").read_text(encoding="utf-8")
    for page in guide_pages():
        if page.name != "README.md":
            assert f"]({page.name})" in index, page.name


@pytest.mark.parametrize("page", guide_pages(), ids=[p.name for p in guide_pages()])
def test_guide_links_resolve_and_cite_no_spec_sections(page: Path) -> None:
    import re

    text = page.read_text(encoding="utf-8")
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text):
        if "://" in target:
            continue
        assert (page.parent / target).resolve().exists(), f"{page.name} links to {target}"
    assert not re.search(r"§\s*\d", text), f"{page.name} cites a spec section"
