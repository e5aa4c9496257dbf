"""Client of the JVM engine host: compile, sandbox-check and run strategies in a child JVM.

This is the only package that may use ``subprocess`` (an import-linter contract enforces it).
"""

from backtestd.strategy.jvm.columns import write_columns
from backtestd.strategy.jvm.host import EngineHost, Handshake, HostConfig
from backtestd.strategy.jvm.jar import locate_engine_jar
from backtestd.strategy.jvm.live_session import LiveHost, LiveSessionLost
from backtestd.strategy.jvm.live_types import (
    KlineUpdate,
    LiveFeedResult,
    LiveSessionInfo,
    LiveSignal,
    MarketUpdate,
    Side,
    SignalType,
    TickerUpdate,
    updates_from_columns,
)
from backtestd.strategy.jvm.pool import EnginePool
from backtestd.strategy.jvm.results import (
    CompileResult,
    DeclaredProperty,
    Diagnostic,
    EngineHostError,
    RunFailure,
    RunFailureKind,
    RunResult,
    StackFrame,
)
from backtestd.strategy.jvm.run_request import RunRequest

__all__ = [
    "CompileResult",
    "DeclaredProperty",
    "Diagnostic",
    "EngineHost",
    "EngineHostError",
    "EnginePool",
    "Handshake",
    "HostConfig",
    "KlineUpdate",
    "LiveFeedResult",
    "LiveHost",
    "LiveSessionInfo",
    "LiveSessionLost",
    "LiveSignal",
    "MarketUpdate",
    "RunFailure",
    "RunFailureKind",
    "RunRequest",
    "RunResult",
    "Side",
    "SignalType",
    "StackFrame",
    "TickerUpdate",
    "locate_engine_jar",
    "updates_from_columns",
    "write_columns",
]
