"""User datasets, dataset versions and upload sessions.

Revision ID: 0006
Revises: 0005
"""

import sqlalchemy as sa
from alembic import op

from backtestd.storage.db.tables.base import UtcDateTime

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "datasets",
        sa.Column("dataset_id", sa.String(40), primary_key=True),
        sa.Column("user_id", sa.String(128), nullable=False),
        sa.Column("name", sa.String(256), nullable=False),
        sa.Column("instrument", sa.String(64), nullable=False),
        sa.Column("type", sa.String(16), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("current_version_id", sa.String(40), nullable=True),
        sa.Column("created_at", UtcDateTime(), nullable=False),
        sa.Column("updated_at", UtcDateTime(), nullable=True),
        sa.Column("deleted_at", UtcDateTime(), nullable=True),
    )
    op.create_index("ix_datasets_user_name", "datasets", ["user_id", "name"])
    op.create_table(
        "dataset_versions",
        sa.Column("version_id", sa.String(40), primary_key=True),
        sa.Column("dataset_id", sa.String(40), nullable=False),
        sa.Column("user_id", sa.String(128), nullable=False),
        sa.Column("object_key", sa.String(512), nullable=False),
        sa.Column("data_format", sa.String(16), nullable=False),
        sa.Column("bytes", sa.BigInteger(), nullable=False),
        sa.Column("rows", sa.BigInteger(), nullable=False),
        sa.Column("cadence", sa.String(8), nullable=False),
        sa.Column("timestamp_unit", sa.String(8), nullable=False),
        sa.Column("gaps", sa.BigInteger(), nullable=False),
        sa.Column("largest_gap_steps", sa.BigInteger(), nullable=False),
        sa.Column("data_from", UtcDateTime(), nullable=False),
        sa.Column("data_to", UtcDateTime(), nullable=False),
        sa.Column("columns", sa.JSON(), nullable=False),
        sa.Column("created_at", UtcDateTime(), nullable=False),
    )
    op.create_index("ix_dataset_versions_dataset", "dataset_versions", ["dataset_id"])
    op.create_table(
        "dataset_uploads",
        sa.Column("upload_id", sa.String(40), primary_key=True),
        sa.Column("dataset_id", sa.String(40), nullable=False),
        sa.Column("user_id", sa.String(128), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("object_key", sa.String(512), nullable=False),
        sa.Column("received_bytes", sa.BigInteger(), nullable=True),
        sa.Column("job_id", sa.String(40), nullable=True),
        sa.Column("version_id", sa.String(40), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("spec", sa.JSON(), nullable=False),
        sa.Column("created_at", UtcDateTime(), nullable=False),
        sa.Column("updated_at", UtcDateTime(), nullable=False),
    )
    op.create_index("ix_dataset_uploads_dataset", "dataset_uploads", ["dataset_id"])


def downgrade() -> None:
    op.drop_index("ix_dataset_uploads_dataset", table_name="dataset_uploads")
    op.drop_table("dataset_uploads")
    op.drop_index("ix_dataset_versions_dataset", table_name="dataset_versions")
    op.drop_table("dataset_versions")
    op.drop_index("ix_datasets_user_name", table_name="datasets")
    op.drop_table("datasets")
