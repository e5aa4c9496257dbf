"""The dataset and upload/import session transition tables, driven without I/O."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime

import pytest

from backtestd.domain.datasets import (
    ACCEPTS_BYTES,
    BUSY,
    CANDLE_COLUMNS,
    DATASET_TRANSITION_SOURCES,
    SESSION_INITIAL,
    SESSION_TRANSITION_SOURCES,
    DataFormat,
    DatasetStatus,
    DatasetVersion,
    SessionKind,
    SessionStatus,
    TimestampUnit,
    can_move_dataset,
    can_move_session,
)
from backtestd.domain.marketdata import DataKind

S = SessionStatus
FINAL = {S.READY, S.FAILED}


def _walks(start: SessionStatus, steps: int) -> set[tuple[SessionStatus, ...]]:
    """Every sequence of ``steps`` allowed moves from ``start``."""
    walks = {(start,)}
    for _ in range(steps):
        walks = {
            (*walk, target)
            for walk in walks
            for target in SessionStatus
            if can_move_session(walk[-1], target)
        } | walks
    return walks


def test_an_upload_reaches_ready_only_through_uploading_and_ingesting() -> None:
    assert SESSION_INITIAL[SessionKind.UPLOAD] is S.OPEN
    path = [S.OPEN, S.UPLOADING, S.UPLOADING, S.INGESTING, S.READY]
    assert all(can_move_session(a, b) for a, b in itertools.pairwise(path))
    assert not can_move_session(S.OPEN, S.INGESTING)  # finalize without bytes: 400, no move
    assert not can_move_session(S.OPEN, S.READY)
    assert not can_move_session(S.UPLOADING, S.READY)


def test_an_import_reaches_ready_through_fetching_and_ingesting_or_fails_on_the_way() -> None:
    assert SESSION_INITIAL[SessionKind.IMPORT] is S.FETCHING
    assert can_move_session(S.FETCHING, S.INGESTING)
    assert can_move_session(S.INGESTING, S.READY)
    assert can_move_session(S.FETCHING, S.FAILED)
    assert can_move_session(S.INGESTING, S.FAILED)
    assert not can_move_session(S.FETCHING, S.UPLOADING)  # an import never takes a PUT
    assert not can_move_session(S.FETCHING, S.READY)


@pytest.mark.parametrize("final", sorted(FINAL))
def test_ready_and_failed_sessions_never_move_again(final: SessionStatus) -> None:
    assert not any(can_move_session(final, target) for target in SessionStatus)


def test_no_session_state_is_entered_again_once_finalized_or_returns_to_open() -> None:
    assert not any(can_move_session(current, S.OPEN) for current in SessionStatus)
    assert not any(can_move_session(current, S.FETCHING) for current in SessionStatus)
    for kind, first in SESSION_INITIAL.items():
        for walk in _walks(first, 5):
            finalized = walk.index(S.INGESTING) if S.INGESTING in walk else len(walk)
            assert S.UPLOADING not in walk[finalized:], (kind, walk)
            assert walk.count(S.READY) + walk.count(S.FAILED) <= 1, (kind, walk)


def test_an_upload_takes_bytes_only_before_it_is_finalized_and_busy_means_a_job_works() -> None:
    assert ACCEPTS_BYTES == {S.OPEN, S.UPLOADING}
    assert BUSY == {S.FETCHING, S.INGESTING}
    assert not ACCEPTS_BYTES & BUSY
    assert not (ACCEPTS_BYTES | BUSY) & FINAL


def test_every_session_target_names_its_sources_and_no_source_is_final() -> None:
    for target, sources in SESSION_TRANSITION_SOURCES.items():
        assert sources, target
        assert not sources & FINAL, target


def test_a_dataset_moves_between_ready_and_failed_but_never_back_to_pending() -> None:
    for current in DatasetStatus:
        assert can_move_dataset(current, DatasetStatus.READY)
        assert can_move_dataset(current, DatasetStatus.FAILED)
        assert not can_move_dataset(current, DatasetStatus.PENDING)
    assert DatasetStatus.PENDING not in DATASET_TRANSITION_SOURCES


@pytest.mark.parametrize(
    ("columns", "kind"),
    [
        (("close",), DataKind.TICKERS),
        (("close", "bid", "ask"), DataKind.TICKERS),
        (("open", "high", "close"), DataKind.TICKERS),
        (("close", *sorted(CANDLE_COLUMNS)), DataKind.KLINES),
    ],
)
def test_a_version_holds_klines_only_with_open_high_and_low(
    columns: tuple[str, ...], kind: DataKind
) -> None:
    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    version = DatasetVersion(
        "dsv_1",
        "ds_1",
        "u",
        "k",
        DataFormat.LASTRA,
        1,
        1,
        "1m",
        TimestampUnit.MILLIS,
        0,
        0,
        t0,
        t0,
        columns,
        t0,
    )
    assert version.kind is kind
