"""marketdata.ingest layer."""
