"""Table definitions (SQLAlchemy Core metadata); one module per resource."""

from backtestd.storage.db.tables.api_keys import api_keys
from backtestd.storage.db.tables.base import metadata
from backtestd.storage.db.tables.datasets import dataset_uploads, dataset_versions, datasets
from backtestd.storage.db.tables.jobs import jobs
from backtestd.storage.db.tables.live import (
    live_commands,
    live_paper_books,
    live_paper_points,
    live_param_changes,
    live_runs,
    live_signals,
)
from backtestd.storage.db.tables.market import market_hours
from backtestd.storage.db.tables.prepared import prepared_data
from backtestd.storage.db.tables.strategies import strategies
from backtestd.storage.db.tables.sweep_curves import sweep_curves
from backtestd.storage.db.tables.sweeps import sweep_rows
from backtestd.storage.db.tables.usage import storage_items

__all__ = [
    "api_keys",
    "dataset_uploads",
    "dataset_versions",
    "datasets",
    "jobs",
    "live_commands",
    "live_paper_books",
    "live_paper_points",
    "live_param_changes",
    "live_runs",
    "live_signals",
    "market_hours",
    "metadata",
    "prepared_data",
    "storage_items",
    "strategies",
    "sweep_curves",
    "sweep_rows",
]
