"""strategy.qtscript layer."""
