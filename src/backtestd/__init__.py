"""backtestd: a self-hostable strategy backtesting service."""
