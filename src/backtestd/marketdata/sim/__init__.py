"""marketdata.sim layer."""
