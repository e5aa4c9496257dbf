"""storage.db.repositories layer."""
