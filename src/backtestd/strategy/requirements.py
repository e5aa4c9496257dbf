"""Which plan features a compiled strategy needs, read from its bytecode.

The pro indicators live in ``pro`` sub-packages of the engine's indicator packages
(``...indicators.statistics.pro.ZScoreRTIndicator``, ``...indicators.pro...``); a class file that
names one of them in its constant pool uses it. Newer clients show this as
``CompileStrategyResponse.requires: ["indicators.pro"]``; this service runs every indicator on
every tier, so it is informational.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Literal

Feature = Literal["indicators.pro"]

_PRO_INDICATOR = re.compile(rb"com/wualabs/qtsurfer/engine/indicators/(?:[a-z]+/)*pro/")


def required_features(class_files: Mapping[str, bytes]) -> tuple[Feature, ...]:
    """``("indicators.pro",)`` when any class refers to a pro indicator, else ``()``.

    >>> required_features({"A": b"...com/wualabs/qtsurfer/engine/indicators/statistics/pro/Z..."})
    ('indicators.pro',)
    >>> required_features({"A": b"com/wualabs/qtsurfer/engine/indicators/averages/Sma"})
    ()
    """
    if any(_PRO_INDICATOR.search(data) for data in class_files.values()):
        return ("indicators.pro",)
    return ()


def listens_to_its_execution(class_files: Mapping[str, bytes]) -> bool:
    """Whether a class declares or calls ``getExecutionCallback`` (the strategy API's hook for
    its own execution events): such a strategy needs a venue that executes its hints, and on a
    live run that is paper trading (§6.1). The name in a constant pool is enough: the engine's
    API has no such method of its own, so only the strategy's classes can carry it.

    >>> listens_to_its_execution({"A": b"...getExecutionCallback..."})
    True
    >>> listens_to_its_execution({"A": b"getExecutionMode"})
    False
    """
    return any(b"getExecutionCallback" in data for data in class_files.values())
