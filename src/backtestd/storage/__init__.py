"""storage layer."""
