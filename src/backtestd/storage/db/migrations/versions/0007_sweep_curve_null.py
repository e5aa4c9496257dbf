"""Sweep rows without a curve hold SQL NULL, not JSON ``null``.

Reading a sweep asks which rows still hold a curve. ``curve IS NOT NULL`` answers that from the
row header; telling JSON ``null`` apart means reading every stored curve (megabytes each), so
rows written before this revision are normalised once.

Revision ID: 0007
Revises: 0006
"""

from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(
        "UPDATE sweep_rows SET curve = NULL "
        "WHERE curve IS NOT NULL AND CAST(curve AS TEXT) = 'null'"
    )


def downgrade() -> None:
    """Nothing to undo: older code reads SQL NULL and JSON ``null`` alike (as ``None``)."""
