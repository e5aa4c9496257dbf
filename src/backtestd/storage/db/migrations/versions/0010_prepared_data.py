"""The ledger of prepared data: what each completed prepare's columns take and when they were
last used, so prepared data is a bounded, least-recently-used cache (``jobs/prepared_cache.py``).

Prepares completed before this revision have no row: they are neither counted nor reclaimed.

Revision ID: 0010
Revises: 0009
"""

import sqlalchemy as sa
from alembic import op

from backtestd.storage.db.tables.base import UtcDateTime

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "prepared_data",
        sa.Column("job_id", sa.String(40), primary_key=True),
        sa.Column("user_id", sa.String(128), nullable=False),
        sa.Column("bytes", sa.BigInteger(), nullable=False),
        sa.Column("used_at", UtcDateTime(), nullable=False),
    )
    op.create_index("ix_prepared_data_used_at", "prepared_data", ["used_at"])


def downgrade() -> None:
    op.drop_index("ix_prepared_data_used_at", table_name="prepared_data")
    op.drop_table("prepared_data")
