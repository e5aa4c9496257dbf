"""Strategy sources used by the black-box tests (read them with ``source(name)``)."""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).parent


def source(name: str) -> str:
    return (HERE / name).read_text(encoding="utf-8")


ENGINE_IMPORTS = """\
import com.wualabs.qtsurfer.engine.core.state.StateStore;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;
import com.wualabs.qtsurfer.engine.indicators.helpers.WindowTimeRTIndicator.WindowTime;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.InstrumentGroupRTIndicator;
import com.wualabs.qtsurfer.engine.strategy.AbstractKlineStrategy;
import com.wualabs.qtsurfer.engine.strategy.AbstractStrategy;
import com.wualabs.qtsurfer.engine.strategy.AbstractTickerStrategy;
import com.wualabs.qtsurfer.engine.strategy.AbstractWindowListener;
import com.wualabs.qtsurfer.engine.strategy.StrategyProperty;
import com.wualabs.qtsurfer.engine.strategy.TickerValueSource;
"""
"""The engine imports the inline test strategies start with (unused ones are harmless)."""
