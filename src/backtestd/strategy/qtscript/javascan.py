"""Just enough Java lexing to find where embedded Java ends.

QTScript copies ``{ ... }`` bodies and ``setup:`` call arguments through as Java, so the front end
never parses Java; it only has to find the matching ``}`` or ``)`` without being fooled by braces
inside strings, character literals, text blocks or comments. An unterminated string or character
literal ends at the end of its line, as it does for javac, so one bad literal does not swallow the
rest of the file: javac reports it against the right line afterwards.
"""

from __future__ import annotations

from collections.abc import Iterator

_OPENERS = {"(": ")", "[": "]", "{": "}"}
_CLOSERS = {")", "]", "}"}


def skip_literal_or_comment(text: str, i: int) -> int | None:
    """If a string, char literal, text block or comment starts at ``i``, return the offset after it.

    Returns ``None`` when ``text[i]`` starts none of them.
    """
    ch = text[i]
    if ch == "/" and text.startswith("//", i):
        nl = text.find("\n", i)
        return len(text) if nl < 0 else nl
    if ch == "/" and text.startswith("/*", i):
        end = text.find("*/", i + 2)
        return len(text) if end < 0 else end + 2
    if ch == '"' and text.startswith('"""', i):
        return _skip_text_block(text, i + 3)
    if ch in "\"'":
        return _skip_quoted(text, i + 1, ch)
    return None


def _skip_quoted(text: str, i: int, quote: str) -> int:
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "\n":
            return i
        i += 1
        if ch == quote:
            return i
    return n


def _skip_text_block(text: str, i: int) -> int:
    n = len(text)
    while i < n:
        if text[i] == "\\":
            i += 2
            continue
        if text.startswith('"""', i):
            return i + 3
        i += 1
    return n


def find_matching(
    text: str, open_index: int, limit: int | None = None, *, braces_only: bool = False
) -> int | None:
    """Offset of the bracket closing the one at ``open_index``, or ``None`` if it is not closed.

    All three bracket kinds nest and a mismatched closer (``(]``) counts as unclosed, unless
    ``braces_only``: a body only needs its braces balanced to be cut out, and javac reports any
    other bracket mistake inside it far better. ``limit`` bounds the search (for a setup call,
    which must close on its own line).
    """
    end = len(text) if limit is None else limit
    stack = [_OPENERS[text[open_index]]]
    i = open_index + 1
    while i < end:
        skipped = skip_literal_or_comment(text, i)
        if skipped is not None:
            i = skipped
            continue
        ch = text[i]
        if braces_only and ch not in "{}":
            pass
        elif ch in _OPENERS:
            stack.append(_OPENERS[ch])
        elif ch in _CLOSERS:
            if ch != stack.pop():
                return None
            if not stack:
                return i
        i += 1
    return None


def split_arguments(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Split ``text[start:end]`` (the inside of a call's parentheses) at top-level commas.

    Returns ``(start, end)`` offsets of each argument with surrounding whitespace trimmed; an
    empty argument list gives ``[]``.
    """
    if not text[start:end].strip():
        return []
    parts: list[tuple[int, int]] = []
    depth = 0
    arg_start = start
    i = start
    while i < end:
        skipped = skip_literal_or_comment(text, i)
        if skipped is not None:
            i = skipped
            continue
        ch = text[i]
        if ch in _OPENERS:
            depth += 1
        elif ch in _CLOSERS:
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(_trim(text, arg_start, i))
            arg_start = i + 1
        i += 1
    parts.append(_trim(text, arg_start, end))
    return parts


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def is_ident_start(ch: str) -> bool:
    """Java identifier start (letters, ``_`` and ``$``; Unicode letters included)."""
    return ch.isalpha() or ch in "_$"


def is_ident_part(ch: str) -> bool:
    return ch.isalnum() or ch in "_$"


def iter_code_tokens(text: str, start: int, end: int) -> Iterator[tuple[int, str]]:
    """Yield ``(offset, token)`` for identifiers, numbers and single punctuation characters.

    Strings, char literals and comments are skipped entirely (a string is yielded as ``"``); this
    is the token view used for the param-assignment warning in ``init``.
    """
    i = start
    while i < end:
        ch = text[i]
        if ch.isspace():
            i += 1
            continue
        skipped = skip_literal_or_comment(text, i)
        if skipped is not None:
            if ch in "\"'":
                yield i, '"'
            i = skipped
            continue
        if is_ident_part(ch):
            j = i + 1
            while j < end and is_ident_part(text[j]):
                j += 1
            yield i, text[i:j]
            i = j
            continue
        yield i, ch
        i += 1
