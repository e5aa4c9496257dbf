"""Registered strategies.

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

from backtestd.storage.db.tables.base import UtcDateTime

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "strategies",
        sa.Column("strategy_id", sa.String(40), primary_key=True),
        sa.Column("user_id", sa.String(128), nullable=False),
        sa.Column("language", sa.String(16), nullable=False),
        sa.Column("content_digest", sa.String(64), nullable=False),
        sa.Column("generation", sa.Integer(), nullable=False),
        sa.Column("source", sa.Text(), nullable=False),
        sa.Column("main_class", sa.String(256), nullable=False),
        sa.Column("class_files", sa.LargeBinary(), nullable=False),
        sa.Column("declared_properties", sa.JSON(), nullable=False),
        sa.Column("required_sources", sa.JSON(), nullable=False),
        sa.Column("line_map", sa.Text(), nullable=True),
        sa.Column("compiled_at", UtcDateTime(), nullable=False),
        sa.Column("validation", sa.String(16), nullable=False),
        sa.Column("validated_at", UtcDateTime(), nullable=True),
        sa.Column("notices", sa.JSON(), nullable=False),
        sa.Column("detail", sa.Text(), nullable=True),
        sa.Column("deleted_at", UtcDateTime(), nullable=True),
    )
    op.create_index("ix_strategies_user_digest", "strategies", ["user_id", "content_digest"])


def downgrade() -> None:
    op.drop_index("ix_strategies_user_digest", table_name="strategies")
    op.drop_table("strategies")
