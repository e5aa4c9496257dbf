"""Live runs: start, read, stop, control and read the signals of a strategy forward-tested on a
live feed (``spec/live-execution.md``; docs/live.md). The executor lives in ``jobs/live``."""
