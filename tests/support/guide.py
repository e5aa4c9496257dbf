"""The code blocks of the user guide (docs/guide/*.md) and the markers that say how to check them.

Every fenced block tagged ``java``, ``qtscript``, ``python`` or ``bash`` is collected. A marker
is an HTML comment on the lines just before the fence (blank lines may separate them), invisible
when the page is rendered::

    <!-- guide: expect=compile-error message="Line 7, Column 20: incompatible types" -->

Its content is ``key=value`` words split like a shell line (quote values with spaces); a key may
repeat. tests/e2e/test_guide.py reads these keys:

* strategy blocks (``java``, ``qtscript``): ``expect`` = ``run`` (the default: validation passes and
  the backtest completes with at least ``signals`` signals, default 1), ``compile-error``,
  ``validation-failed``; ``message`` (text the error or verdict must contain, repeatable),
  ``warning`` (text a registration warning must contain, repeatable), ``info-field``
  (``name:json`` that one stored info signal must carry, repeatable); ``type``
  (``ticker`` or ``kline``, default from the strategy's required source), ``cadence`` (kline,
  default ``1m``), ``instrument`` (default ``BTC/USDT``), ``params`` (JSON for execute), ``notice``
  (text one result notice must contain), ``twin`` (blocks with the same twin name must give the
  same trades and PnL), ``file`` (the name the page tells the reader to save it under).
* script blocks (``python``, ``bash``): only those with ``run`` are executed; ``args`` (repeatable)
  and ``output`` (text standard output must contain, repeatable). Blocks without ``run`` are
  command lines shown for reference, not scripts.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

GUIDE_DIR = Path(__file__).resolve().parents[2] / "docs" / "guide"
STRATEGY_LANGUAGES = ("java", "qtscript")
SCRIPT_LANGUAGES = ("python", "bash")
_FENCE = re.compile(r"^```(\w*)\s*$")
_MARKER = re.compile(r"^<!--\s*guide:(.*?)-->\s*$")


@dataclass(frozen=True)
class Block:
    """One fenced block of a guide page, with the marker written before it (if any)."""

    page: str
    line: int  # 1-based line of the opening fence
    language: str
    text: str
    marker: dict[str, list[str]] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}"

    def get(self, key: str, default: str | None = None) -> str | None:
        values = self.marker.get(key)
        return values[-1] if values else default

    def all(self, key: str) -> list[str]:
        return self.marker.get(key, [])


def parse_marker(text: str) -> dict[str, list[str]]:
    """``expect=run message="a b"`` → ``{"expect": ["run"], "message": ["a b"]}``; a bare word is
    a flag with the value ``""``."""
    result: dict[str, list[str]] = {}
    for word in shlex.split(text):
        key, _, value = word.partition("=")
        result.setdefault(key, []).append(value)
    return result


def page_blocks(path: Path) -> list[Block]:
    """The fenced blocks of one page, in order."""
    lines = path.read_text(encoding="utf-8").splitlines()
    blocks: list[Block] = []
    marker: dict[str, list[str]] = {}
    index = 0
    while index < len(lines):
        line = lines[index]
        found = _MARKER.match(line)
        if found:
            marker = parse_marker(found.group(1))
        fence = _FENCE.match(line)
        if fence:
            end = index + 1
            while end < len(lines) and not lines[end].startswith("```"):
                end += 1
            text = "\n".join(lines[index + 1 : end]) + "\n"
            blocks.append(Block(path.name, index + 1, fence.group(1), text, marker))
            marker = {}
            index = end + 1
            continue
        if line.strip() and not found:
            marker = {}  # a marker applies only to the fence right after it
        index += 1
    return blocks


def guide_pages() -> list[Path]:
    return sorted(GUIDE_DIR.glob("*.md"))


def guide_blocks(languages: tuple[str, ...]) -> list[Block]:
    """Every block of the guide in one of ``languages``."""
    return [b for page in guide_pages() for b in page_blocks(page) if b.language in languages]
