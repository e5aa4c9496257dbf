"""The QTScript text as the parser sees it, and the strategyId normalisation.

Parsing and the strategyId agree on what is insignificant: a leading byte-order mark and the
line-ending style. Both are removed up front so that every later offset, line and column is
computed on one canonical text (LF line ends, no BOM) and CRLF files report the same columns as
LF files.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

BOM = "\ufeff"


def canonical_text(source: str) -> str:
    """Drop a leading BOM and turn CRLF and lone CR line ends into LF."""
    if source.startswith(BOM):
        source = source[1:]
    return source.replace("\r\n", "\n").replace("\r", "\n")


def normalize_qtscript_for_id(source: str) -> str:
    """Return the text the QTScript strategyId is derived from.

    Exactly four things are removed: a leading BOM, the line-ending style (CRLF and CR become
    LF), whitespace at the end of each line, and blank lines before the first and after the last
    non-blank line. Comments, indentation and inner blank lines are kept because in QTScript they
    are part of the text the author wrote (indentation is even grammar). The result has no final
    newline, so "ends with a newline" and "does not" give the same id.
    """
    lines = [line.rstrip() for line in canonical_text(source).split("\n")]
    start = 0
    while start < len(lines) and not lines[start]:
        start += 1
    end = len(lines)
    while end > start and not lines[end - 1]:
        end -= 1
    return "\n".join(lines[start:end])


@dataclass(frozen=True)
class SourceText:
    """Canonical QTScript text with offset <-> (line, column) conversion (both 1-based)."""

    text: str
    line_starts: tuple[int, ...] = field(repr=False)

    @classmethod
    def of(cls, source: str) -> SourceText:
        text = canonical_text(source)
        starts = [0]
        starts.extend(i + 1 for i, ch in enumerate(text) if ch == "\n")
        return cls(text, tuple(starts))

    def loc(self, offset: int) -> tuple[int, int]:
        """The 1-based (line, column) of a character offset."""
        index = bisect.bisect_right(self.line_starts, offset) - 1
        return index + 1, offset - self.line_starts[index] + 1

    def line_start(self, line: int) -> int:
        return self.line_starts[line - 1]

    def line_end(self, line: int) -> int:
        """Offset of the LF ending ``line`` (or the end of the text for the last line)."""
        if line < len(self.line_starts):
            return self.line_starts[line] - 1
        return len(self.text)

    def line_text(self, line: int) -> str:
        return self.text[self.line_start(line) : self.line_end(line)]

    def end_of_line(self, offset: int) -> int:
        nl = self.text.find("\n", offset)
        return len(self.text) if nl < 0 else nl
