"""sweeps layer."""
