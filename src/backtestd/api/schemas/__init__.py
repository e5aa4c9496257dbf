"""api.schemas layer."""
