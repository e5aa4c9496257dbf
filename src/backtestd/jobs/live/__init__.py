"""The live-run executor on the workers: leases, the feed loop, the sandbox twin (docs/live.md)."""
