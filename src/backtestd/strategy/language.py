"""Tell QTScript from Java by the first token.

The rule is the service's: skip a byte-order mark, whitespace and ``//`` / ``/* */`` comments;
if the first token is then the keyword ``strategy``, the source is QTScript, otherwise Java. No
header or separate endpoint is involved. A Java file cannot start with ``strategy`` (it starts with
``package``, ``import``, an annotation or a modifier), so the rule never misreads one.
"""

from __future__ import annotations

import enum

_KEYWORD = "strategy"


class Language(enum.StrEnum):
    JAVA = "java"
    QTSCRIPT = "qtscript"


def _first_token_offset(source: str) -> int:
    """Offset of the first character that is not BOM, whitespace or comment."""
    i = 1 if source.startswith("\ufeff") else 0
    n = len(source)
    while i < n:
        if source[i].isspace():
            i += 1
        elif source.startswith("//", i):
            nl = source.find("\n", i)
            cr = source.find("\r", i)
            ends = [e for e in (nl, cr) if e >= 0]
            i = min(ends) if ends else n
        elif source.startswith("/*", i):
            end = source.find("*/", i + 2)
            i = n if end < 0 else end + 2
        else:
            break
    return i


def detect_language(source: str) -> Language:
    """``QTSCRIPT`` iff the first token after BOM, whitespace and comments is ``strategy``."""
    i = _first_token_offset(source)
    if not source.startswith(_KEYWORD, i):
        return Language.JAVA
    after = source[i + len(_KEYWORD) : i + len(_KEYWORD) + 1]
    if after and (after.isalnum() or after in "_$"):
        return Language.JAVA  # an identifier such as 'strategyFoo'
    return Language.QTSCRIPT
