"""storage.db.tables layer."""
