"""Sweep rows and sweep specs in the stored form of the typed sweep values (``domain/sweeps.py``).

Before this revision a sweep row's ``metrics`` and ``fold`` held the wire's camelCase names
(``pnlPct``, ``maxDdPct``, ``foldIx``, ...), and a sweep spec's curve retention mode the wire's
spelling (``topN``, ``topPct``). They are now the serialisation of ``SweepMetrics``,
``FoldOutcome`` and ``CurveMode`` (``domain/serial.py``): the field names and the enum's values,
all in snake case. Every earlier row is rewritten once, so a sweep run by an earlier release
still reads after the upgrade; a row already in snake case is left as it is. The conversion is
written here, not imported (it describes the layout this revision found). A stored curve
(``{"ts": [...], "eq": [...]}``) is unchanged and never read.

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

import json
import re
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

Json = Any
_UPPER = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def snake_name(name: str) -> str:
    return _UPPER.sub("_", name).lower()


def snake_keys(value: Json) -> Json:
    """The keys of a stored mapping in snake case; ``params`` (the user's names) kept as is."""
    if not isinstance(value, dict):
        return value
    return {
        snake_name(key): item if key == "params" else snake_keys(item)
        for key, item in value.items()
    }


def _loaded(value: Json) -> Json:
    return json.loads(value) if isinstance(value, str) else value


def upgrade() -> None:
    bind = op.get_bind()
    _sweep_specs(bind)
    _sweep_rows(bind)


def _sweep_specs(bind: sa.Connection) -> None:
    jobs = sa.table(
        "jobs",
        sa.column("job_id", sa.String),
        sa.column("kind", sa.String),
        sa.column("spec", sa.JSON),
    )
    found = bind.execute(sa.select(jobs.c.job_id, jobs.c.spec).where(jobs.c.kind == "sweep"))
    for job_id, stored in found.all():
        sweep = _loaded(stored)
        curves = sweep.get("curves") if isinstance(sweep, dict) else None
        if not isinstance(curves, dict) or not isinstance(curves.get("mode"), str):
            continue
        mode = snake_name(curves["mode"])
        if mode != curves["mode"]:
            sweep = {**sweep, "curves": {**curves, "mode": mode}}
            bind.execute(sa.update(jobs).where(jobs.c.job_id == job_id).values(spec=sweep))


def _sweep_rows(bind: sa.Connection) -> None:
    rows = sa.table(
        "sweep_rows",
        sa.column("sweep_id", sa.String),
        sa.column("run_ix", sa.Integer),
        sa.column("metrics", sa.JSON),
        sa.column("fold", sa.JSON),
    )
    found = bind.execute(sa.select(rows.c.sweep_id, rows.c.run_ix, rows.c.metrics, rows.c.fold))
    for sweep_id, run_ix, metrics, fold in found.all():
        metrics, fold = _loaded(metrics), _loaded(fold)
        new_metrics, new_fold = snake_keys(metrics), snake_keys(fold)
        if new_metrics == metrics and new_fold == fold:
            continue
        bind.execute(
            sa.update(rows)
            .where(rows.c.sweep_id == sweep_id, rows.c.run_ix == run_ix)
            .values(metrics=new_metrics, fold=sa.null() if new_fold is None else new_fold)
        )


def downgrade() -> None:
    """Not converted back: an earlier release cannot read rows written since, whatever this
    revision does, so a downgrade keeps the rows as they are."""
