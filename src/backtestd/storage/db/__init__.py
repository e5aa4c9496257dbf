"""storage.db layer."""
