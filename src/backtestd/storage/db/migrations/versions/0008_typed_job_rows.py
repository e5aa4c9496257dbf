"""Job specs and results in the stored form of the typed job specs (``domain/job_specs.py``),
and an upload session's PUT cap under its domain name.

Before this revision a job row's ``spec`` and ``result`` held hand-written JSON in the wire's
camelCase names, flat where the types now nest (an execute's metrics, its signals outcome).
They are now the serialisation of frozen dataclasses (``domain/serial.py``): the field names,
nested as declared, each spec tagged with its ``kind``. This revision rewrites every row
written before it, so a job queued, run or finished by an earlier release still reads (and a
job left unfinished is resumed) after the upgrade.

The conversion is written here, not imported: it describes the layout this revision found,
which later code no longer knows. A key is first put in snake case (``prepareJobId`` ->
``prepare_job_id``), except inside a strategy's ``params`` whose keys are the user's; then the
few renames and regroupings are applied by kind. A row that already has a ``kind`` in its spec
is left as it is (re-running the revision is harmless).

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

import json
import re
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

Json = Any
_UPPER = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_USER_KEYS = frozenset({"params"})
_LIMIT_BYTES = ("max_dataset_bytes", "max_total_storage_bytes")
"""Mappings whose keys are the user's own names, never renamed."""


def snake(value: Json) -> Json:
    """Every key of ``value`` in snake case, recursively, but the keys of user mappings."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            name = _UPPER.sub("_", key).lower()
            out[name] = item if name in _USER_KEYS else snake(item)
        return out
    if isinstance(value, list):
        return [snake(item) for item in value]
    return value


def _limits(fields: dict[str, Json]) -> dict[str, Json]:
    return {name: fields.pop(name) for name in ("tier", *_LIMIT_BYTES)}


def _prepare_spec(fields: dict[str, Json]) -> dict[str, Json]:
    fields["data_type"] = fields.pop("type")
    fields["start"], fields["end"] = fields.pop("from"), fields.pop("to")
    dataset_id = fields.pop("dataset_id", None)
    version_id = fields.pop("dataset_version_id", None)
    fields["dataset"] = {"dataset_id": dataset_id, "version_id": version_id} if dataset_id else None
    return fields


def _execute_spec(fields: dict[str, Json]) -> dict[str, Json]:
    base = fields.get("base_config") or {}
    fee = base.pop("fee_rate", None)
    if fee is not None:  # the single fee rate execute stored sets both sides
        base["buy_fee_rate"] = base["sell_fee_rate"] = fee
    fields["base_config"] = base
    return fields


def _import_spec(fields: dict[str, Json]) -> dict[str, Json]:
    data_type = fields.pop("data_type")
    fields["data_kind"] = "klines" if data_type == "klines" else "tickers"
    fields["start"], fields["end"] = fields.pop("from"), fields.pop("to")
    fields["limits"] = _limits(fields)
    return fields


def _ingest_spec(fields: dict[str, Json]) -> dict[str, Json]:
    fields["limits"] = _limits(fields)
    return fields


def _sweep_spec(fields: dict[str, Json]) -> dict[str, Json]:
    fields.setdefault("samples", None)  # omitted when None
    fields.setdefault("walk_forward", None)
    return fields


def _curve(wire: dict[str, Json]) -> dict[str, Json]:
    """An execute's curve as the wire showed it (points, or two arrays) as two arrays."""
    points = wire.get("points")
    if points is not None:
        stamps = [point["timestamp"] for point in points]
        equities = [point["equity"] for point in points]
    else:
        stamps, equities = wire.get("timestamps") or [], wire.get("equities") or []
    return {"timestamps": stamps, "equities": equities, "meta": wire["meta"]}


_METRICS = (
    "pnl_total",
    "pnl_total_percent",
    "total_trades",
    "win_rate",
    "sharpe_ratio",
    "sortino_ratio",
    "cagr",
    "max_drawdown",
    "max_drawdown_percent",
)
_SIGNALS = {
    "signal_count": "count",
    "signals_upload": "upload",
    "signals_upload_reason": "reason",
    "signals_id": "signals_id",
    "signals_key": "key",
    "signals_uploaded_at": "uploaded_at",
}


def _execute_result(result: dict[str, Json]) -> dict[str, Json]:
    out: dict[str, Json] = {
        "strategy_context": result.pop("strategy_id", ""),
        "instrument": result.pop("instrument", ""),
        "host_name": result.pop("host_name", ""),
        "iops": result.pop("iops", 0),
        "params": result.pop("params", None),
        "notices": [notice["message"] for notice in result.pop("notices", None) or ()],
        "notices_truncated": result.pop("notices_truncated", None),
    }
    out["metrics"] = (
        {name: result.pop(name) for name in _METRICS} if "total_trades" in result else None
    )
    curve = result.pop("equity_curve", None)
    out["equity_curve"] = _curve(curve) if curve else None
    signals = {new: result.pop(old) for old, new in _SIGNALS.items() if old in result}
    out["signals"] = signals if "upload" in signals else None
    return out


SPECS = {
    "prepare": _prepare_spec,
    "execute": _execute_spec,
    "sweep": _sweep_spec,
    "dataset_import": _import_spec,
    "dataset_ingest": _ingest_spec,
}
RESULTS = {"execute": _execute_result}


def convert(kind: str, spec: dict[str, Json], result: dict[str, Json]) -> tuple[Json, Json]:
    """One earlier row's spec and result in the typed stored form (``{}`` results: none)."""
    new_spec = {**SPECS.get(kind, lambda s: s)(snake(spec)), "kind": kind}
    new_result = RESULTS.get(kind, lambda r: r)(snake(result)) if result else {}
    return new_spec, new_result


def _loaded(value: Json) -> Json:
    return json.loads(value) if isinstance(value, str) else value


def upgrade() -> None:
    bind = op.get_bind()
    jobs = sa.table(
        "jobs",
        sa.column("job_id", sa.String),
        sa.column("kind", sa.String),
        sa.column("spec", sa.JSON),
        sa.column("result", sa.JSON),
    )
    rows = bind.execute(sa.select(jobs.c.job_id, jobs.c.kind, jobs.c.spec, jobs.c.result)).all()
    for job_id, kind, spec, result in rows:
        spec, result = _loaded(spec), _loaded(result) or {}
        if not isinstance(spec, dict) or "kind" in spec:
            continue
        new_spec, new_result = convert(kind, spec, result)
        bind.execute(
            sa.update(jobs).where(jobs.c.job_id == job_id).values(spec=new_spec, result=new_result)
        )
    _upload_caps(bind)


def _upload_caps(bind: sa.Connection) -> None:
    """An upload session's PUT cap, stored under the wire's name before, is ``upload_cap``."""
    sessions = sa.table(
        "dataset_uploads", sa.column("upload_id", sa.String), sa.column("spec", sa.JSON)
    )
    for upload_id, stored in bind.execute(sa.select(sessions.c.upload_id, sessions.c.spec)).all():
        fields = snake(_loaded(stored) or {})
        if "max_dataset_bytes" not in fields:
            continue
        new = {"upload_cap": fields["max_dataset_bytes"]}
        bind.execute(sa.update(sessions).where(sessions.c.upload_id == upload_id).values(spec=new))


def downgrade() -> None:
    """Not converted back: an earlier release cannot read rows written since, whatever this
    revision does, so a downgrade keeps the rows as they are."""
