"""Alembic migrations, run programmatically by ``migrate`` at start-up."""
