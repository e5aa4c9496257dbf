"""Live runs, their signal record, pending parameter changes and commands.

Revision ID: 0011
Revises: 0010
"""

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "live_runs",
        sa.Column("run_id", sa.String(32), primary_key=True),
        sa.Column("user_id", sa.String(128), nullable=False),
        sa.Column("strategy_id", sa.String(64), nullable=False),
        sa.Column("compilation", sa.String(96), nullable=False),
        sa.Column("visibility", sa.String(16), nullable=False),
        sa.Column("stage", sa.String(16), nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("desired", sa.String(16), nullable=False),
        sa.Column("source", sa.JSON(), nullable=False),
        sa.Column("params", sa.JSON(), nullable=False),
        sa.Column("params_version", sa.Integer(), nullable=False),
        sa.Column("relay", sa.Boolean(), nullable=False),
        sa.Column("stream", sa.Boolean(), nullable=False),
        sa.Column("stream_secret", sa.String(64), nullable=True),
        sa.Column("stream_revoked", sa.Boolean(), nullable=False),
        sa.Column("warm_from", sa.Integer(), nullable=False),
        sa.Column("sandbox_minutes", sa.Integer(), nullable=True),
        sa.Column("name", sa.Text(), nullable=True),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.Column("gate", sa.JSON(), nullable=True),
        sa.Column("stats", sa.JSON(), nullable=True),
        sa.Column("paper", sa.JSON(), nullable=True),
        sa.Column("stopped_for_resources", sa.Boolean(), nullable=False),
        sa.Column("created_at_ms", sa.BigInteger(), nullable=False),
        sa.Column("started_at_ms", sa.BigInteger(), nullable=False),
        sa.Column("updated_at_ms", sa.BigInteger(), nullable=False),
        sa.Column("lease_owner", sa.String(128), nullable=True),
        sa.Column("lease_until_ms", sa.BigInteger(), nullable=True),
        sa.Column("executions", sa.Integer(), nullable=False),
        sa.Column("trial_started_ms", sa.BigInteger(), nullable=True),
    )
    op.create_index("ix_live_runs_user", "live_runs", ["user_id", "created_at_ms"])
    op.create_index(
        "ix_live_runs_strategy", "live_runs", ["user_id", "strategy_id", "created_at_ms"]
    )
    op.create_index("ix_live_runs_desired", "live_runs", ["desired", "lease_until_ms"])
    op.create_table(
        "live_signals",
        sa.Column("run_id", sa.String(32), primary_key=True),
        sa.Column("seq", sa.BigInteger(), primary_key=True),
        sa.Column("event_ts_ms", sa.BigInteger(), nullable=False),
        sa.Column("type", sa.String(16), nullable=False),
        sa.Column("symbol", sa.String(64), nullable=True),
        sa.Column("stage", sa.String(16), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
    )
    op.create_table(
        "live_param_changes",
        sa.Column("run_id", sa.String(32), primary_key=True),
        sa.Column("version", sa.Integer(), primary_key=True),
        sa.Column("params", sa.JSON(), nullable=False),
        sa.Column("effective_at_ms", sa.BigInteger(), nullable=False),
    )
    op.create_table(
        "live_commands",
        sa.Column("command_id", sa.String(40), primary_key=True),
        sa.Column("run_id", sa.String(32), nullable=False),
        sa.Column("command", sa.Text(), nullable=False),
        sa.Column("properties", sa.JSON(), nullable=False),
        sa.Column("effective_at_ms", sa.BigInteger(), nullable=False),
    )
    op.create_index("ix_live_commands_run", "live_commands", ["run_id"])


def downgrade() -> None:
    op.drop_index("ix_live_commands_run", table_name="live_commands")
    op.drop_table("live_commands")
    op.drop_table("live_param_changes")
    op.drop_table("live_signals")
    op.drop_index("ix_live_runs_desired", table_name="live_runs")
    op.drop_index("ix_live_runs_strategy", table_name="live_runs")
    op.drop_index("ix_live_runs_user", table_name="live_runs")
    op.drop_table("live_runs")
