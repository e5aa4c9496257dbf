"""strategy layer."""
