"""A served equity curve as a value: its points after the transforms, and what was done.

The engine shapes a curve (``engine/equity_curve.py``) into a :class:`ShapedCurve`; an
execute stores it in its result, a sweep's curve route returns it, and the API alone decides
how it looks on the wire (``points`` or two parallel arrays, ``meta``).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class OutMode(enum.StrEnum):
    """``EquityCurveOutMode``: a list of point objects, or two parallel arrays."""

    ARRAY = "ARRAY"
    SHORT = "SHORT"


@dataclass(frozen=True)
class EquityCurveMeta:
    """What the served curve actually is (clients trust this rather than their request)."""

    input_point_count: int
    output_point_count: int
    resampled: bool
    differential: bool
    out_mode: OutMode


@dataclass(frozen=True)
class ShapedCurve:
    """The curve's timestamps (ms) and equities after resampling and delta encoding."""

    timestamps: tuple[int, ...]
    equities: tuple[float, ...]
    meta: EquityCurveMeta
