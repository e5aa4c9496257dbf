"""Sweep rows as the read path needs them: which rows hold a curve, without reading curves.

A row without a curve stores SQL NULL, so ``curve IS NOT NULL`` answers from the row header;
migration 0007 turns the JSON ``null`` of rows written before it into SQL NULL.
"""

from __future__ import annotations

import doctest
from contextlib import ExitStack
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest
from alembic import command
from alembic.config import Config
from sqlalchemy import insert, text

from backtestd.domain.backtests import BaseConfig
from backtestd.domain.job_specs import JobSpec
from backtestd.domain.serial import to_stored
from backtestd.domain.sweeps import (
    CurveMode,
    CurvePrefs,
    FoldOutcome,
    Objective,
    Sampler,
    SweepAxis,
    SweepMetrics,
    SweepRow,
    SweepSpec,
    TrialCurve,
    WalkForward,
)
from backtestd.storage.db import json_text
from backtestd.storage.db.engine import Database
from backtestd.storage.db.migrate import MIGRATIONS_DIR, migrate
from backtestd.storage.db.repositories.jobs import JobRepository
from backtestd.storage.db.repositories.sweep_curves import SweepCurveRepository
from backtestd.storage.db.repositories.sweeps import SweepRowRepository
from backtestd.storage.db.tables import jobs, sweep_rows
from tests.support.services import temporary_postgres_database

NOW = datetime(2026, 11, 25, tzinfo=UTC)


def _row(run_ix: int, curve: bool) -> SweepRow:
    return SweepRow(
        sweep_id="s",
        run_ix=run_ix,
        params={"fast": run_ix},
        metrics=SweepMetrics(float(run_ix), 0.5, 1.0, 1.0, 0.1, 2.0, 3, 0.5),
        aborted=False,
        runtime_ms=1,
        daily_returns=(0.01, -0.02),
        curve=TrialCurve((0, 60_000), (100.0, 101.0)) if curve else None,
        fold=FoldOutcome(run_ix, 0, 10, 15, {"fast": run_ix}, 1.5, 4) if run_ix == 0 else None,
    )


def test_curve_ixs_rows_and_curves(tmp_path: Path) -> None:
    database = Database(f"sqlite:///{tmp_path / 'db.sqlite'}")
    try:
        migrate(database)
        with database.unit_of_work() as uow:
            repo = SweepRowRepository(uow.session)
            for ix in range(4):
                repo.add(_row(ix, curve=ix in (1, 2)), NOW)
        with database.unit_of_work() as uow:
            repo = SweepRowRepository(uow.session)
            assert repo.run_ixs("s") == {0, 1, 2, 3}
            assert repo.curve_ixs("s") == {1, 2}
            repo.drop_curves("s", [2])
        with database.unit_of_work() as uow:
            repo = SweepRowRepository(uow.session)
            assert repo.curve_ixs("s") == {1}
            assert set(repo.curves("s", [0, 1, 2])) == {1}
            rows = repo.rows("s", with_returns=True, run_ixs=[0, 3])
            assert [r.run_ix for r in rows] == [0, 3]
            assert rows[0].fold == FoldOutcome(0, 0, 10, 15, {"fast": 0}, 1.5, 4)
            assert rows[0].metrics == _row(0, curve=False).metrics
            assert rows[0].daily_returns == (0.01, -0.02)
            assert all(r.curve is None for r in rows)
            assert repo.rows("s", with_folds=False)[0].fold is None
            assert repo.get("s", 1) == _row(1, curve=True)
    finally:
        database.dispose()


def test_add_many_matches_add_and_skips_stored_rows(tmp_path: Path) -> None:
    """A shard's flush stores its rows in one executemany per kind; the stored rows are the
    ones row-by-row ``add`` stores (SQL NULL without a curve), and a retried shard's rows that
    are already stored are left as they were."""
    database = Database(f"sqlite:///{tmp_path / 'db.sqlite'}")
    try:
        migrate(database)
        with database.unit_of_work() as uow:
            SweepRowRepository(uow.session).add(_row(1, curve=True), NOW)
        retried = replace(_row(1, curve=False), runtime_ms=99)
        with database.unit_of_work() as uow:
            SweepRowRepository(uow.session).add_many(
                [_row(0, curve=False), retried, _row(2, curve=True), _row(3, curve=False)], NOW
            )
        with database.unit_of_work() as uow:
            repo = SweepRowRepository(uow.session)
            assert repo.run_ixs("s") == {0, 1, 2, 3}
            assert repo.curve_ixs("s") == {1, 2}
            assert repo.get("s", 1) == _row(1, curve=True)
            assert repo.get("s", 2) == _row(2, curve=True)
            assert repo.rows("s", with_returns=True, run_ixs=[0])[0] == _row(0, curve=False)
        with database.engine.connect() as connection:
            nulls = connection.execute(
                text("SELECT run_ix FROM sweep_rows WHERE curve IS NULL ORDER BY run_ix")
            ).scalars()
            assert list(nulls) == [0, 3]
    finally:
        database.dispose()


def test_migration_0007_turns_json_null_curves_into_sql_null(tmp_path: Path) -> None:
    database = Database(f"sqlite:///{tmp_path / 'db.sqlite'}")
    try:
        config = Config()
        config.set_main_option("script_location", str(MIGRATIONS_DIR))
        with database.engine.begin() as connection:
            config.attributes["connection"] = connection
            command.upgrade(config, "0006")
        with database.engine.begin() as connection:
            for ix, curve in ((0, "null"), (1, '{"ts": [0], "eq": [1.0]}')):
                connection.execute(
                    text(
                        "INSERT INTO sweep_rows (sweep_id, run_ix, params, metrics, aborted, "
                        "runtime_ms, daily_returns, curve, created_at) VALUES ('s', :ix, '{}', "
                        "'{}', 0, 1, '[]', :curve, '2026-11-25 00:00:00')"
                    ),
                    {"ix": ix, "curve": curve},
                )
        migrate(database)
        with database.unit_of_work() as uow:
            assert SweepRowRepository(uow.session).curve_ixs("s") == {1}
    finally:
        database.dispose()


def test_curves_read_back_bit_for_bit_whichever_way_they_were_stored(database: Database) -> None:
    """A curve is written by orjson (``json_text.encode_numbers``) and read by orjson
    (``decode_numbers``): every double reads back with the same bits, through ``add`` and
    ``add_many``, ``curves`` and ``get`` alike. (A non-finite value takes json.dumps and
    json.loads, on SQLite; PostgreSQL's JSON has no NaN: the doctests cover that path.)"""
    rng = np.random.default_rng(4)
    eq = [
        *(100.0 * np.exp(np.cumsum(rng.normal(0, 0.01, 2_000)))).tolist(),
        *[1e-05, 5e-324, 1e300, -0.0, 0.1 + 0.2, 2.0**-1074 * 3],
    ]
    ts = [1_700_000_000_000 + 1_000 * k for k in range(len(eq))]
    curve = TrialCurve(tuple(ts), tuple(eq))
    with database.unit_of_work() as uow:
        repo = SweepRowRepository(uow.session)
        repo.add(replace(_row(0, curve=False), curve=curve), NOW)
        repo.add_many([replace(_row(1, curve=False), curve=curve), _row(2, curve=False)], NOW)
    with database.unit_of_work() as uow:
        repo = SweepRowRepository(uow.session)
        stored = repo.curves("s", [0, 1, 2])
        got_rows = [repo.get("s", ix) for ix in (0, 1, 2)]
    assert set(stored) == {0, 1}
    assert [row.curve if row else "missing" for row in got_rows] == [stored[0], stored[1], None]
    for ix in (0, 1):
        assert stored[ix].ts == tuple(ts)
        got = np.asarray(stored[ix].eq).view(np.int64)
        assert np.array_equal(got, np.asarray(eq).view(np.int64))


def test_json_text_examples_hold() -> None:
    outcome = doctest.testmod(json_text)
    assert outcome.attempted > 0
    assert outcome.failed == 0


def test_migration_0009_reads_earlier_rows_and_specs_as_typed_values(tmp_path: Path) -> None:
    """Rows and a spec as the release before typed sweep rows wrote them (the wire's names in
    ``metrics`` and ``fold``, the wire's spelling of the curve mode) read back typed."""
    database = Database(f"sqlite:///{tmp_path / 'db.sqlite'}")
    try:
        migrate(database, "0008")
        spec = to_stored(
            SweepSpec(
                prepare_job_id="p",
                strategy_id="s",
                axes=(SweepAxis("fast", (5, 10)),),
                sampler=Sampler.GRID,
                seed=0,
                samples=None,
                objective=Objective.MAXDD,
                base_config=BaseConfig(),
                min_trade_floor=30,
                shards=1,
                walk_forward=WalkForward(2, 60),
                curves=CurvePrefs(mode=CurveMode.TOP_PCT, max_pct=12.5),
            ),
            JobSpec,
        )
        spec["curves"]["mode"] = "topPct"
        metrics = {
            "sharpe": 1.5, "sortino": 2.0, "pnl": 12.0, "pnlPct": 12.0, "cagr": 0.3,
            "maxDdPct": 4.5, "trades": 31, "winRate": 0.6,
        }  # fmt: skip
        fold = {
            "foldIx": 1, "inSampleFrom": 50, "inSampleTo": 80, "outOfSampleTo": 100,
            "params": {"fastMa": 10}, "inSampleSharpe": 2.5, "vectorsRun": 2,
        }  # fmt: skip
        with database.engine.begin() as connection:
            connection.execute(
                insert(jobs).values(
                    job_id="s", user_id="u", kind="sweep", exchange_id="sim",
                    data_type="kline", spec=spec, status="Completed", size=2, completed=0,
                    created_at=NOW, result={}, cancel_requested=False, attempts=1,
                )
            )  # fmt: skip
            for ix, with_fold in ((0, False), (1, True)):
                connection.execute(
                    insert(sweep_rows).values(
                        sweep_id="s", run_ix=ix, params={"fastMa": 10}, metrics=metrics,
                        aborted=False, error=None, runtime_ms=5, daily_returns=[0.01],
                        curve=None, fold=fold if with_fold else None, created_at=NOW,
                    )
                )  # fmt: skip

        migrate(database)

        with database.unit_of_work() as uow:
            stored = JobRepository(uow.session).get("s")
            rows = SweepRowRepository(uow.session).rows("s", with_returns=True)
        assert stored is not None
        assert stored.spec_as(SweepSpec).curves.mode is CurveMode.TOP_PCT
        assert rows[0].metrics == SweepMetrics(1.5, 2.0, 12.0, 12.0, 0.3, 4.5, 31, 0.6)
        assert rows[0].fold is None
        assert rows[1].fold == FoldOutcome(1, 50, 80, 100, {"fastMa": 10}, 2.5, 2)
        assert rows[1].params == {"fastMa": 10}  # the user's own names are kept
        migrate(database)  # again: nothing left to convert
    finally:
        database.dispose()


def test_add_many_and_drop_curves_count_the_bytes_the_curve_column_holds(
    database: Database,
) -> None:
    """The ledger of stored curves (``jobs/sweep_curve_cache.py``) is kept from what these
    return: the bytes of the curves a call stored or dropped, rows already stored counting 0."""
    thinned = replace(_row(2, curve=True), curve=TrialCurve((0, 1), (100.0, 99.5), 7))
    with database.unit_of_work() as uow:
        repo = SweepRowRepository(uow.session)
        added = repo.add_many([_row(1, curve=True), thinned, _row(3, curve=False)], NOW)
        again = repo.add_many([_row(1, curve=True)], NOW)
    with database.engine.connect() as connection:
        held = connection.execute(
            text(
                "SELECT run_ix, length(CAST(curve AS TEXT)) FROM sweep_rows WHERE curve IS NOT NULL"
            )
        )
        sizes = {int(ix): int(size) for ix, size in held}

    assert sizes.keys() == {1, 2}
    assert added == sizes[1] + sizes[2]
    assert again == 0
    with database.unit_of_work() as uow:
        repo = SweepRowRepository(uow.session)
        assert repo.curve_bytes("s") == added
        assert repo.drop_curves("s", [2, 3]) == sizes[2]  # row 3 holds none
        assert repo.drop_all_curves("s") == sizes[1]
        assert repo.curve_bytes("s") == 0


def test_attach_curves_stores_a_curve_on_a_row_stored_without_one_and_counts_its_bytes(
    database: Database,
) -> None:
    """A shard stores its rows first and its best rows' curves later; a row that holds a curve
    already (a retried shard) keeps it and counts 0 bytes."""
    curve = TrialCurve((0, 60_000, 120_000), (100.0, 99.5, 1e-05), 9)
    other = TrialCurve((0,), (7.0,))
    with database.unit_of_work() as uow:
        repo = SweepRowRepository(uow.session)
        repo.add_many([_row(1, curve=False), _row(2, curve=True), _row(3, curve=False)], NOW)
        stored = repo.curve_bytes("s")
    with database.unit_of_work() as uow:
        repo = SweepRowRepository(uow.session)
        added = repo.attach_curves("s", {1: curve, 2: other, 4: other})  # 4: no such row
    with database.unit_of_work() as uow:
        repo = SweepRowRepository(uow.session)
        assert repo.curve_ixs("s") == {1, 2}
        assert repo.curves("s", [1, 2]) == {1: curve, 2: _row(2, curve=True).curve}
        assert added == repo.curve_bytes("s") - stored == repo.curve_bytes("s", [1]) > 0
        assert repo.get("s", 1) == replace(_row(1, curve=False), curve=curve)


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_migration_0012_counts_the_curves_stored_before_it(kind: str, tmp_path: Path) -> None:
    """Sweeps holding curves when the ledger of stored curves is created get their row, so
    curves stored before the upgrade are bounded and reclaimed like later ones."""
    with ExitStack() as stack:
        if kind == "sqlite":
            database = Database(f"sqlite:///{tmp_path / 'db.sqlite'}")
        else:
            database = Database(stack.enter_context(temporary_postgres_database()))
        stack.callback(database.dispose)
        migrate(database, "0011")
        spec = to_stored(
            SweepSpec(
                prepare_job_id="p", strategy_id="stg", axes=(SweepAxis("fast", (1, 2, 3)),),
                sampler=Sampler.GRID, seed=0, samples=None, objective=Objective.SHARPE,
                base_config=BaseConfig(), min_trade_floor=30, shards=1, walk_forward=None,
                curves=CurvePrefs(),
            ),
            JobSpec,
        )  # fmt: skip
        with database.engine.begin() as connection:
            for sweep_id in ("s", "bare"):
                connection.execute(
                    insert(jobs).values(
                        job_id=sweep_id, user_id="u", kind="sweep", exchange_id="sim",
                        data_type="kline", spec=spec, status="Completed", size=3, completed=0,
                        created_at=NOW, result={}, cancel_requested=False, attempts=1,
                    )
                )  # fmt: skip
        with database.unit_of_work() as uow:
            repo = SweepRowRepository(uow.session)
            stored = repo.add_many([_row(0, curve=True), _row(1, curve=True), _row(2, False)], NOW)
            repo.add_many([replace(_row(0, curve=False), sweep_id="bare")], NOW)

        migrate(database)

        with database.unit_of_work() as uow:
            assert SweepCurveRepository(uow.session).bytes_by_user() == {"u": stored}
            listed = SweepCurveRepository(uow.session).least_recently_read("u", 10)
        assert [(sweep_id, size) for sweep_id, size, _ in listed] == [("s", stored)]
        assert listed[0][2] == NOW  # last read: its last stored row
