"""strategy.jvm layer."""
