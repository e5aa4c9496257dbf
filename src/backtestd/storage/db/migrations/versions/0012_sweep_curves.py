"""The ledger of stored sweep curves: what each sweep's stored curves take and when they were
last read, so stored curves are a bounded, least-recently-read cache
(``jobs/sweep_curve_cache.py``), and which runs' curves were reclaimed.

Every sweep that holds curves when this revision runs gets its row, its bytes summed from the
stored text and its last read taken as its last stored row, so curves stored before the upgrade
count against the budget and are reclaimed like later ones.

Revision ID: 0012
Revises: 0011
"""

import sqlalchemy as sa
from alembic import op

from backtestd.storage.db.tables.base import UtcDateTime

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    ledger = op.create_table(
        "sweep_curves",
        sa.Column("sweep_id", sa.String(40), primary_key=True),
        sa.Column("user_id", sa.String(128), nullable=False),
        sa.Column("bytes", sa.BigInteger(), nullable=False),
        sa.Column("read_at", UtcDateTime(), nullable=False),
        sa.Column("reclaimed", sa.JSON(), nullable=True),
        sa.Column("reclaimed_at", UtcDateTime(), nullable=True),
    )
    op.create_index("ix_sweep_curves_user_read", "sweep_curves", ["user_id", "read_at"])
    rows = sa.table(
        "sweep_rows",
        sa.column("sweep_id", sa.String),
        sa.column("curve", sa.JSON),
        sa.column("created_at", UtcDateTime()),
    )
    jobs = sa.table("jobs", sa.column("job_id", sa.String), sa.column("user_id", sa.String))
    held = (
        sa.select(
            rows.c.sweep_id,
            jobs.c.user_id,
            sa.func.sum(sa.func.length(sa.cast(rows.c.curve, sa.Text))),
            sa.func.max(rows.c.created_at),
        )
        .join(jobs, jobs.c.job_id == rows.c.sweep_id)
        .where(rows.c.curve.is_not(None))
        .group_by(rows.c.sweep_id, jobs.c.user_id)
    )
    assert ledger is not None
    op.execute(sa.insert(ledger).from_select(["sweep_id", "user_id", "bytes", "read_at"], held))


def downgrade() -> None:
    op.drop_index("ix_sweep_curves_user_read", table_name="sweep_curves")
    op.drop_table("sweep_curves")
