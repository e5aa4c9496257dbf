"""Strategy sources used by the black-box tests (read them with ``source(name)``)."""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).parent


def source(name: str) -> str:
    return (HERE / name).read_text(encoding="utf-8")
