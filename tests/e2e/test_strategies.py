"""Black-box: strategy registration, ids, reading, deletion and validation via the SDK."""

from __future__ import annotations

import time

import httpx
import pytest
from qtsurfer_sdk import AuthenticatedSession, QTSCompileError, QTSError, auth

from tests.support.polling import Pauses
from tests.support.server import LiveServer
from tests.support.strategies import source


def _session(server: LiveServer, user: str) -> AuthenticatedSession:
    return auth(server.create_key(user, tier="pro"), base_url=server.base_url)


def _wait_verdict(session: AuthenticatedSession, strategy_id: str, timeout: float = 120):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    pauses = Pauses()
    while time.monotonic() < deadline:
        state = session.get_strategy(strategy_id)
        if state.validation.value not in ("pending",):
            return state
        pauses.sleep()
    raise AssertionError(f"validation of {strategy_id} still pending after {timeout}s")


def _validate(session: AuthenticatedSession, strategy_id: str):  # type: ignore[no-untyped-def]
    first = session.validate_strategy(strategy_id)
    assert first.validation.value == "pending"
    return _wait_verdict(session, strategy_id)


@pytest.fixture(scope="module")
def alice(live_server: LiveServer) -> AuthenticatedSession:
    return _session(live_server, "strategy-alice")


@pytest.mark.parametrize(
    ("name", "sources", "properties"),
    [
        ("ema_cross.java", ["Ticker"], {"fast": "9", "slow": "21"}),
        ("sma_kline.java", ["KLine"], {"sma.period": "20"}),
        ("funding_watch.java", ["FundingRate"], {}),
        ("ema_cross.qts", ["Ticker"], {"fast": "9", "slow": "21", "gain": "1.5"}),
        ("breakout.qts", ["KLine"], {"minRange": "0.05"}),
        ("funding.qts", ["FundingRate"], {}),
        ("configured.qts", ["Ticker"], {"gain": "0.5", "bars": "20", "shortOnly": "false"}),
    ],
)
def test_register_validate_read_each_base_class(
    alice: AuthenticatedSession, name: str, sources: list[str], properties: dict[str, str]
) -> None:
    text = source(name)
    compiled = alice.compile_strategy(text)
    declared = {p.name: p.default_value for p in compiled.declared_properties}
    assert declared == properties
    state = _validate(alice, compiled.strategy_id)
    assert state.validation.value == "passed", state.to_dict()
    assert [s.value for s in state.required_sources] == sources
    assert state.compiled_at is not None
    assert state.validated_at is not None
    assert alice.get_strategy_code(compiled.strategy_id) == text
    again = alice.validate_strategy(compiled.strategy_id)  # a verdict exists: 200, same verdict
    assert again.validation.value == "passed"
    listed = {s.strategy_id for s in alice.list_strategies().strategies}
    assert compiled.strategy_id in listed


def test_declared_property_hints_are_reported(alice: AuthenticatedSession) -> None:
    compiled = alice.compile_strategy(source("ema_cross.java"))
    fast = next(p for p in compiled.declared_properties if p.name == "fast")
    assert (fast.min_, fast.max_, fast.step) == (2, 50, 1)
    assert fast.description == "fast EMA periods"
    assert fast.reflected is True


def test_strategy_state_also_lists_the_declared_properties_and_the_sdk_still_reads_it(
    live_server: LiveServer,
) -> None:
    """An additive key of ``GET /strategy/{id}`` (docs/api-decisions.md): the dashboard builds
    its sweep axes from it; the official client ignores it."""
    session = _session(live_server, "strategy-declared")
    strategy_id = session.compile_strategy(source("ema_cross.java")).strategy_id
    headers = {"Authorization": f"Bearer {session.token.access_token}"}  # type: ignore[union-attr]
    body = httpx.get(f"{live_server.base_url}/strategy/{strategy_id}", headers=headers).json()
    declared = {p["name"]: p for p in body["declaredProperties"]}
    assert set(declared) == {"fast", "slow"}
    assert (declared["fast"]["min"], declared["fast"]["max"], declared["fast"]["step"]) == (
        2,
        50,
        1,
    )
    assert declared["slow"]["defaultValue"] == "21"
    assert "min" not in declared["slow"]
    assert session.get_strategy(strategy_id).strategy_id == strategy_id


def test_validate_answers_202_then_200_with_the_status_code(live_server: LiveServer) -> None:
    session = _session(live_server, "strategy-status")
    strategy_id = session.compile_strategy(source("sma_kline.java")).strategy_id
    headers = {"Authorization": f"Bearer {session.token.access_token}"}  # type: ignore[union-attr]
    url = f"{live_server.base_url}/strategy/{strategy_id}/validate"
    first = httpx.post(url, headers=headers)
    assert first.status_code == 202
    assert first.json() == {"strategyId": strategy_id, "validation": "pending"}
    second = httpx.post(url, headers=headers)
    assert second.status_code == 200
    assert second.json()["validation"] in ("pending", "passed")
    assert second.json()["_links"]["code"]["href"] == f"/v1/strategy/{strategy_id}/code"
    state = _wait_verdict(session, strategy_id)
    assert state.validation.value == "passed"


def test_never_validated_strategy_reads_not_validated(live_server: LiveServer) -> None:
    session = _session(live_server, "strategy-fresh")
    strategy_id = session.compile_strategy(source("breakout.qts")).strategy_id
    assert session.get_strategy(strategy_id).validation.value == "not_validated"


def test_reformatted_java_keeps_id_and_verdict_and_code_is_latest(live_server: LiveServer) -> None:
    session = _session(live_server, "strategy-ids")
    original = session.compile_strategy(source("ema_cross.java")).strategy_id
    assert _validate(session, original).validation.value == "passed"
    reformatted_text = source("ema_cross_reformatted.java")
    again = session.compile_strategy(reformatted_text).strategy_id
    assert again == original
    assert session.get_strategy(again).validation.value == "passed"
    assert session.get_strategy_code(again) == reformatted_text
    renamed = session.compile_strategy(source("ema_cross_renamed.java")).strategy_id
    assert renamed != original


def test_qtscript_id_ignores_line_endings_and_trailing_space_not_comments(
    live_server: LiveServer,
) -> None:
    session = _session(live_server, "strategy-qts-ids")
    text = source("breakout.qts")
    base = session.compile_strategy(text).strategy_id
    variant = "\ufeff\n\n" + "\r\n".join(line + "   " for line in text.splitlines()) + "\r\n\n"
    assert session.compile_strategy(variant).strategy_id == base
    commented = text.replace("Main m1 {", "// the entry\nMain m1 {")
    assert session.compile_strategy(commented).strategy_id != base


def test_same_source_gets_different_ids_for_different_users(live_server: LiveServer) -> None:
    a = _session(live_server, "strategy-user-a").compile_strategy(source("funding.qts"))
    b = _session(live_server, "strategy-user-b").compile_strategy(source("funding.qts"))
    assert a.strategy_id != b.strategy_id


def test_delete_then_resubmit_registers_a_new_id(live_server: LiveServer) -> None:
    session = _session(live_server, "strategy-delete")
    first = session.compile_strategy(source("funding_watch.java")).strategy_id
    usage_before = session.get_account_usage()
    assert usage_before.strategies_used == 1
    assert usage_before.strategy_bytes_used > len(source("funding_watch.java"))
    deleted = session.delete_strategy(first)
    assert deleted.deleted is True
    assert session.get_account_usage().strategies_used == 0
    with pytest.raises(QTSError):
        session.get_strategy(first)
    second = session.compile_strategy(source("funding_watch.java")).strategy_id
    assert second != first
    active = session.list_strategies().strategies
    assert [s.strategy_id for s in active] == [second]
    with_deleted = session.list_strategies(include_deleted=True).strategies
    by_id = {s.strategy_id: s for s in with_deleted}
    assert by_id[first].deleted_at is not None
    assert "deletedAt" not in by_id[second].to_dict()


def test_list_is_most_recent_first_and_include_deleted_needs_literal_true(
    live_server: LiveServer,
) -> None:
    session = _session(live_server, "strategy-list")
    ids = [
        session.compile_strategy(source(name)).strategy_id
        for name in ("breakout.qts", "funding.qts", "sma_kline.java")
    ]
    assert [s.strategy_id for s in session.list_strategies().strategies] == ids[::-1]
    session.delete_strategy(ids[0])
    headers = {"Authorization": f"Bearer {session.token.access_token}"}  # type: ignore[union-attr]
    for value, expected in (("true", 3), ("True", 2), ("1", 2), ("yes", 2), ("false", 2)):
        body = httpx.get(
            f"{live_server.base_url}/strategies", params={"includeDeleted": value}, headers=headers
        ).json()
        assert len(body["strategies"]) == expected, value


def test_other_users_strategies_answer_404(live_server: LiveServer) -> None:
    owner = _session(live_server, "strategy-owner")
    intruder = _session(live_server, "strategy-intruder")
    strategy_id = owner.compile_strategy(source("sma_kline.java")).strategy_id
    headers = {"Authorization": f"Bearer {intruder.token.access_token}"}  # type: ignore[union-attr]
    base = f"{live_server.base_url}/strategy/{strategy_id}"
    for method, url in (
        ("GET", base),
        ("GET", f"{base}/code"),
        ("POST", f"{base}/validate"),
        ("DELETE", base),
    ):
        response = httpx.request(method, url, headers=headers)
        assert response.status_code == 404, (method, url)
        assert response.json()["code"] == 404
    assert owner.get_strategy(strategy_id).strategy_id == strategy_id


def test_qtscript_syntax_errors_give_400_with_line_and_column(alice: AuthenticatedSession) -> None:
    with pytest.raises(QTSCompileError) as failure:
        alice.compile_strategy(source("syntax_error.qts"))
    assert failure.value.status == 400
    assert "Line 4, Column 7:" in str(failure.value)


def test_javac_error_inside_qtscript_body_maps_to_the_users_line(
    alice: AuthenticatedSession,
) -> None:
    with pytest.raises(QTSCompileError) as failure:
        alice.compile_strategy(source("java_error.qts"))
    assert "Line 4, Column 15:" in str(failure.value)


def test_java_compile_error_gives_400_and_registers_nothing(live_server: LiveServer) -> None:
    session = _session(live_server, "strategy-broken")
    broken = source("ema_cross.java").replace("private int slow = 21;", 'private int slow = "x";')
    with pytest.raises(QTSCompileError) as failure:
        session.compile_strategy(broken)
    assert failure.value.status == 400
    assert "Line 15, Column 24: incompatible types" in str(failure.value)
    assert session.list_strategies().strategies == []
    assert session.get_account_usage().strategies_used == 0


@pytest.mark.parametrize(
    ("name", "fragment"),
    [
        ("unknown_indicator.qts", "noSuchIndicator"),
        ("runtime_error.qts", "QTS line 5"),
        ("throws_at_runtime.java", "ArrayIndexOutOfBounds"),
    ],
)
def test_strategies_that_cannot_run_fail_validation_with_notices(
    alice: AuthenticatedSession, name: str, fragment: str
) -> None:
    strategy_id = alice.compile_strategy(source(name)).strategy_id
    state = _validate(alice, strategy_id)
    assert state.validation.value == "failed"
    messages = " ".join(n.message for n in state.notices)
    assert fragment in messages, messages
    assert all(n.provenance.value == "compile-dry-run" for n in state.notices)


def test_a_validation_failing_with_nul_in_its_message_says_so_and_the_next_passes(
    live_server: LiveServer,
) -> None:
    """The verdict of a strategy whose exception message holds NUL is stored on both databases
    (PostgreSQL cannot store NUL in text; notices are JSON, which spells it as an escape), and
    the next validation runs."""
    alice = _session(live_server, "strategy-nul-message")
    strategy_id = alice.compile_strategy(source("throws_nul_message.java")).strategy_id
    state = _validate(alice, strategy_id)
    assert state.validation.value == "failed"
    messages = " ".join(n.message for n in state.notices)
    assert "stopped at\x00here\x00" in messages, messages
    healthy = alice.compile_strategy(source("breakout.qts")).strategy_id
    assert _validate(alice, healthy).validation.value == "passed"


def test_a_source_holding_nul_is_refused_with_its_line(live_server: LiveServer) -> None:
    """A NUL cannot be stored (nor given back as sent by GET /strategy/{id}/code)."""
    token = live_server.token(live_server.create_key("strategy-nul"))
    text = source("ema_cross.java").replace("public class", "public\x00 class", 1)
    response = httpx.post(
        f"{live_server.base_url}/strategy",
        content=text.encode(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "text/plain"},
    )
    assert response.status_code == 400, response.text
    line = text[: text.index("\x00")].count("\n") + 1
    assert f"NUL character (U+0000) on line {line}" in response.json()["message"]


def test_file_access_registers_then_fails_validation_naming_class_and_rule(
    alice: AuthenticatedSession,
) -> None:
    """strategy-api §2.2: a blocked class is not a compile error; validation fails."""
    strategy_id = alice.compile_strategy(source("reads_file.java")).strategy_id

    state = _validate(alice, strategy_id)

    assert state.validation.value == "failed"
    messages = " ".join(n.message for n in state.notices)
    assert "ReadsFile uses java.nio.file" in messages, messages
    assert "not on the strategy allowlist" in messages


def test_runaway_strategy_fails_its_own_validation_and_service_keeps_answering(
    live_server: LiveServer,
) -> None:
    session = _session(live_server, "strategy-runaway")
    runaway = session.compile_strategy(source("loops_forever.java")).strategy_id
    session.validate_strategy(runaway)
    healthy = session.compile_strategy(source("breakout.qts")).strategy_id
    assert httpx.get(f"{live_server.base_url}/exchanges").status_code == 200
    state = _wait_verdict(session, runaway, timeout=240)
    assert state.validation.value == "failed"
    assert any("limit" in n.message.lower() or "cpu" in n.message.lower() for n in state.notices)
    verdict = _validate(session, healthy)
    assert verdict.validation.value == "passed", verdict.to_dict()


def test_qtscript_warning_is_returned_with_the_registration(live_server: LiveServer) -> None:
    token = live_server.token(live_server.create_key("strategy-warned"))
    text = 'strategy "Warns"\n\nparam fast = 9\n\ninit {\n  fast = 3;\n}\n\nMain {\n}\n'
    response = httpx.post(
        f"{live_server.base_url}/strategy",
        content=text.encode(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "text/plain"},
    )
    assert response.status_code == 200
    warnings = response.json()["warnings"]
    assert len(warnings) == 1
    assert warnings[0].startswith("Line 6, Column 3:")
    assert "fast" in warnings[0]
