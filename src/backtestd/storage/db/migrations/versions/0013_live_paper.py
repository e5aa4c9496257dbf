"""Paper trading on live runs: each run's book and its curves.

Revision ID: 0013
Revises: 0012
"""

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "live_paper_books",
        sa.Column("run_id", sa.String(32), primary_key=True),
        sa.Column("state", sa.Text(), nullable=False),
        sa.Column("updated_at_ms", sa.BigInteger(), nullable=False),
    )
    op.create_table(
        "live_paper_points",
        sa.Column("run_id", sa.String(32), primary_key=True),
        sa.Column("seq", sa.BigInteger(), primary_key=True),
        sa.Column("account", sa.String(64), nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("instrument", sa.String(64), nullable=True),
        sa.Column("ts_ms", sa.BigInteger(), nullable=False),
        sa.Column("value", sa.Double(), nullable=False),
        sa.Column("total", sa.Double(), nullable=True),
    )
    op.create_index(
        "ix_live_paper_points_account", "live_paper_points", ["run_id", "account", "seq"]
    )


def downgrade() -> None:
    op.drop_index("ix_live_paper_points_account", table_name="live_paper_points")
    op.drop_table("live_paper_points")
    op.drop_table("live_paper_books")
