"""Generated Java line (and column) -> QTScript line and column.

Every generated line records where it came from. Lines that carry text the author wrote (body
lines, setup calls) record the copied span, so a javac column inside it maps to the exact QTScript
column; lines the generator wrote itself (field declarations, window registrations, listener
scaffolding) map to the construct that produced them. Package and import lines map to nothing.

Columns: the Java column given to :meth:`LineMap.to_qts` is javac's, as
``javax.tools.Diagnostic.getColumnNumber()`` reports it, with tabs expanded to multiples of 8 and
characters counted in UTF-16 units. QTScript columns count characters (a tab is one column), like
every QTScript diagnostic.
"""

from __future__ import annotations

from dataclasses import dataclass, field

JAVAC_TAB = 8


@dataclass(frozen=True)
class LineOrigin:
    """Where one generated Java line comes from.

    ``qts_line``/``qts_column`` anchor the line; when ``length`` > 0 the Java characters from
    column ``java_start`` on are a verbatim copy of the QTScript text starting at ``qts_start``.
    """

    qts_line: int
    qts_column: int
    java_start: int = 0
    qts_start: int = 0
    length: int = 0


def javac_to_char_column(line: str, javac_column: int) -> int:
    """The 1-based character column that javac's (tab-expanded, UTF-16) column points at."""
    target = javac_column - 1
    visual = 0
    for index, ch in enumerate(line):
        if visual >= target:
            return index + 1
        if ch == "\t":
            visual = (visual // JAVAC_TAB + 1) * JAVAC_TAB
        else:
            visual += 2 if ord(ch) > 0xFFFF else 1
    return len(line) + 1 + max(0, target - visual)


@dataclass(frozen=True)
class LineMap:
    """The origin of each generated Java line (index 0 is Java line 1)."""

    java_lines: tuple[str, ...] = field(repr=False)
    origins: tuple[LineOrigin | None, ...] = field(repr=False)

    def origin(self, java_line: int) -> LineOrigin | None:
        if 1 <= java_line <= len(self.origins):
            return self.origins[java_line - 1]
        return None

    def to_qts(self, java_line: int, java_column: int) -> tuple[int, int] | None:
        """QTScript ``(line, column)`` for a javac position; ``None`` outside the class."""
        origin = self.origin(java_line)
        if origin is None:
            return None
        if origin.length == 0 or java_column < 1:
            return origin.qts_line, origin.qts_column
        column = javac_to_char_column(self.java_lines[java_line - 1], java_column)
        column = min(max(column, origin.java_start), origin.java_start + origin.length)
        return origin.qts_line, origin.qts_start + (column - origin.java_start)

    def qts_line(self, java_line: int) -> int | None:
        origin = self.origin(java_line)
        return None if origin is None else origin.qts_line

    def runtime_lines(self) -> list[int | None]:
        """The QTScript line of each generated Java line (index 0 is Java line 1): all a stack
        trace needs, small enough to store with the strategy."""
        return [None if o is None else o.qts_line for o in self.origins]


class JavaWriter:
    """Accumulates generated Java lines together with their origins."""

    def __init__(self) -> None:
        self._lines: list[str] = []
        self._origins: list[LineOrigin | None] = []

    def line(self, text: str = "", origin: LineOrigin | None = None) -> None:
        self._lines.append(text.rstrip())
        self._origins.append(origin)

    def copied(self, prefix: str, copied: str, suffix: str, qts_line: int, qts_start: int) -> None:
        """A line whose middle part is QTScript text starting at (``qts_line``, ``qts_start``)."""
        if not suffix:
            copied = copied.rstrip()
        origin = LineOrigin(qts_line, qts_start, len(prefix) + 1, qts_start, len(copied))
        self.line(prefix + copied + suffix, origin)

    def build(self) -> tuple[str, LineMap]:
        source = "\n".join(self._lines) + "\n"
        return source, LineMap(tuple(self._lines), tuple(self._origins))
