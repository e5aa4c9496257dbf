"""Foundation: API keys, storage accounting, market-data hour index.

Revision ID: 0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

from backtestd.storage.db.tables.base import UtcDateTime

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "api_keys",
        sa.Column("key_id", sa.String(32), primary_key=True),
        sa.Column("key_hash", sa.String(64), nullable=False),
        sa.Column("user_id", sa.String(128), nullable=False),
        sa.Column("tier", sa.String(16), nullable=False),
        sa.Column("created_at", UtcDateTime(), nullable=False),
        sa.Column("expires_at", UtcDateTime(), nullable=True),
        sa.Column("revoked_at", UtcDateTime(), nullable=True),
        sa.UniqueConstraint("key_hash", name="uq_api_keys_key_hash"),
    )
    op.create_index("ix_api_keys_user_id", "api_keys", ["user_id"])
    op.create_table(
        "storage_items",
        sa.Column("item_id", sa.String(96), primary_key=True),
        sa.Column("user_id", sa.String(128), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("bytes", sa.BigInteger(), nullable=False),
        sa.Column("created_at", UtcDateTime(), nullable=False),
        sa.Column("deleted_at", UtcDateTime(), nullable=True),
    )
    op.create_index("ix_storage_items_user_kind", "storage_items", ["user_id", "kind"])
    op.create_table(
        "market_hours",
        sa.Column("exchange_id", sa.String(64), primary_key=True),
        sa.Column("symbol", sa.String(64), primary_key=True),
        sa.Column("kind", sa.String(16), primary_key=True),
        sa.Column("hour", UtcDateTime(), primary_key=True),
        sa.Column("rows", sa.Integer(), nullable=False),
        sa.Column("bytes", sa.BigInteger(), nullable=False),
        sa.Column("last_price", sa.Float(), nullable=True),
        sa.Column("quote_volume", sa.Float(), nullable=False),
        sa.Column("interval", sa.String(8), nullable=True),
        sa.Column("stored_at", UtcDateTime(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("market_hours")
    op.drop_index("ix_storage_items_user_kind", table_name="storage_items")
    op.drop_table("storage_items")
    op.drop_index("ix_api_keys_user_id", table_name="api_keys")
    op.drop_table("api_keys")
