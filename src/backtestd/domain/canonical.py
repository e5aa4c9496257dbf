"""Canonical JSON and content-addressed ids for run specs.

Numbers are normalised so ``9`` and ``9.0`` are the same value, keys are sorted, and the
caller has already removed optional fields equal to their defaults, so the same request always
digests to the same id and an explicit default equals its omission.
"""

from __future__ import annotations

import hashlib
import json
import math
from typing import Any

_BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def normalise(value: Any) -> Any:
    """Integral floats become ints; containers are normalised recursively."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError("numbers must be finite")
        return int(value) if value.is_integer() else value
    if isinstance(value, int):
        return value
    if isinstance(value, dict):
        return {str(k): normalise(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [normalise(v) for v in value]
    raise TypeError(f"cannot canonicalise {type(value).__name__}")


def canonical_json(value: Any) -> str:
    return json.dumps(normalise(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def content_id(*parts: Any, length: int = 22) -> str:
    """A base-62 id of ``length`` characters over the canonical JSON of ``parts``."""
    digest = hashlib.blake2b(canonical_json(list(parts)).encode("utf-8"), digest_size=24).digest()
    number = int.from_bytes(digest, "big")
    chars = []
    for _ in range(length):
        number, rem = divmod(number, 62)
        chars.append(_BASE62[rem])
    return "".join(chars)
