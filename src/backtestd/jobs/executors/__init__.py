"""jobs.executors layer."""
