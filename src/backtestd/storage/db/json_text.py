"""The text the database's JSON columns store.

Every JSON value is written with ``json.dumps``, as SQLAlchemy does by default, except values a
repository encoded itself (:class:`EncodedJSON`): a sweep's retained equity curves, tens of
thousands of numbers each, which ``json.dumps`` spends about 15 ms a curve on and orjson about
1 ms. Both write the shortest text that reads back as the same double, so a curve decoded from
either is bit for bit the same. Curves are read back by :func:`decode_numbers` (orjson again,
several times faster than ``json.loads``): a sweep's result page decodes each newly retained
curve while the sweep runs, and that decoding was the largest part of a poll's CPU.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import orjson


@dataclass(frozen=True, slots=True)
class EncodedJSON:
    """JSON text to store as it is."""

    text: str


def dumps(value: object) -> str:
    """The engine's JSON serializer (``create_engine(json_serializer=...)``)."""
    if isinstance(value, EncodedJSON):
        return value.text
    return json.dumps(value)


def decode_numbers(text: str | bytes) -> Any:
    """The value of text :func:`encode_numbers` wrote (or ``json.dumps``, for a curve that
    held a non-finite number, which orjson does not read: ``json.loads`` reads that one).

    orjson and ``json.loads`` give the same doubles for the same text (both round correctly),
    and the same integers below 2**63; a curve's numbers are doubles and millisecond times.

    >>> decode_numbers('{"ts":[0,60000],"eq":[100.0,0.00001]}')
    {'ts': [0, 60000], 'eq': [100.0, 1e-05]}
    >>> decode_numbers('{"eq": [NaN, -Infinity]}')
    {'eq': [nan, -inf]}
    """
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)


def encode_numbers(value: Mapping[str, Sequence[float] | float | None]) -> EncodedJSON:
    """A mapping of number lists (and single numbers or None), encoded fast.

    orjson writes a non-finite float as ``null`` where ``json.dumps`` writes ``NaN`` or
    ``Infinity``; only when the text holds a ``null`` that came from such a number, not from a
    None (a curve stored whole has ``full_points`` None), is the value encoded the ordinary way
    instead (a curve always holding a None once sent every curve down that path, 15 ms each).

    >>> encode_numbers({"ts": [0, 60_000], "eq": [100.0, 1e-05]}).text
    '{"ts":[0,60000],"eq":[100.0,0.00001]}'
    >>> encode_numbers({"eq": [float("nan")]}).text
    '{"eq": [NaN]}'
    >>> encode_numbers({"eq": [1.5], "full_points": None}).text
    '{"eq":[1.5],"full_points":null}'
    >>> encode_numbers({"eq": [float("inf")], "full_points": None}).text
    '{"eq": [Infinity], "full_points": null}'
    """
    text = orjson.dumps(value)
    nones = sum(v is None for v in value.values())
    # More nulls than Nones: a number was non-finite (or a key holds "null"; the scan decides).
    if text.count(b"null") > nones and any(_non_finite(v) for v in value.values()):
        return EncodedJSON(json.dumps(value))
    return EncodedJSON(text.decode())


def _non_finite(value: Sequence[float] | float | None) -> bool:
    """Whether ``value`` is or holds a NaN or an infinity."""
    if value is None:
        return False
    if isinstance(value, int | float):
        return not math.isfinite(value)
    return not bool(np.isfinite(np.asarray(value, dtype=np.float64)).all())
