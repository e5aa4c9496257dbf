"""api.routes layer."""
