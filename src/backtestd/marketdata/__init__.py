"""marketdata layer."""
