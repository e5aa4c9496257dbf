"""Sweep rows.

Revision ID: 0004
Revises: 0003
"""

import sqlalchemy as sa
from alembic import op

from backtestd.storage.db.tables.base import UtcDateTime

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "sweep_rows",
        sa.Column("sweep_id", sa.String(40), primary_key=True),
        sa.Column("run_ix", sa.Integer(), primary_key=True),
        sa.Column("params", sa.JSON(), nullable=False),
        sa.Column("metrics", sa.JSON(), nullable=False),
        sa.Column("aborted", sa.Boolean(), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("runtime_ms", sa.Integer(), nullable=False),
        sa.Column("daily_returns", sa.JSON(), nullable=False),
        sa.Column("curve", sa.JSON(), nullable=True),
        sa.Column("fold", sa.JSON(), nullable=True),
        sa.Column("created_at", UtcDateTime(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("sweep_rows")
