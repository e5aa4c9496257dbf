"""QTScript literal values and their Java spelling.

QTScript strings use Java's escape sequences, so an author who knows Java is never surprised. The
generator never pastes a QTScript string into Java as written: it decodes it and re-encodes the
value with :func:`java_string`, which only emits escapes that javac handles after its Unicode-escape
pre-pass (a literal ``\\u0022`` would otherwise end the Java string early).
"""

from __future__ import annotations

import math

_SIMPLE_ESCAPES = {
    "b": "\b",
    "t": "\t",
    "n": "\n",
    "f": "\f",
    "r": "\r",
    "s": " ",
    '"': '"',
    "'": "'",
    "\\": "\\",
}
_ENCODE = {
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\f": "\\f",
    "\r": "\\r",
    '"': '\\"',
    "\\": "\\\\",
}

JAVA_INT_MAX = 2**31 - 1


class LiteralError(ValueError):
    """A malformed literal; ``offset`` is relative to the start of the literal's source text."""

    def __init__(self, offset: int, message: str) -> None:
        super().__init__(message)
        self.offset = offset
        self.message = message


def decode_string(raw: str) -> str:
    """Decode a double-quoted QTScript string (``raw`` includes both quotes)."""
    body = raw[1:-1]
    out: list[str] = []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch != "\\":
            out.append(ch)
            i += 1
            continue
        i = _decode_escape(body, i, out)
    return "".join(out)


def _decode_escape(body: str, i: int, out: list[str]) -> int:
    """Decode the escape starting at ``body[i] == '\\'``; return the index after it."""
    nxt = body[i + 1] if i + 1 < len(body) else ""
    if nxt in _SIMPLE_ESCAPES:
        out.append(_SIMPLE_ESCAPES[nxt])
        return i + 2
    if nxt and nxt in "01234567":
        j = i + 1
        limit = i + (4 if nxt in "0123" else 3)
        while j < len(body) and j < limit and body[j] in "01234567":
            j += 1
        out.append(chr(int(body[i + 1 : j], 8)))
        return j
    if nxt == "u":
        j = i + 1
        while j < len(body) and body[j] == "u":
            j += 1
        digits = body[j : j + 4]
        if len(digits) != 4 or any(c not in "0123456789abcdefABCDEF" for c in digits):
            raise LiteralError(i + 1, "invalid unicode escape: expected \\u and 4 hex digits")
        out.append(chr(int(digits, 16)))
        return j + 4
    shown = f"\\{nxt}" if nxt else "\\"
    raise LiteralError(
        i + 1,
        f"invalid escape '{shown}' in string (valid: \\b \\t \\n \\f \\r \\s \\\" \\' \\\\, "
        "octal and \\uXXXX)",
    )


def java_string(value: str) -> str:
    """A Java string literal for ``value``, ASCII only, safe against javac's Unicode pre-pass."""
    out = ['"']
    for ch in value:
        code = ord(ch)
        if ch in _ENCODE:
            out.append(_ENCODE[ch])
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\{code:03o}")
        elif code < 0x80:
            out.append(ch)
        elif code > 0xFFFF:
            code -= 0x10000
            out.append(f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}")
        else:
            out.append(f"\\u{code:04x}")
    out.append('"')
    return "".join(out)


def check_int(text: str) -> None:
    """Reject an integer literal outside Java's ``int`` range (``text`` may start with '-')."""
    value = int(text)
    if value > JAVA_INT_MAX or value < -JAVA_INT_MAX - 1:
        raise LiteralError(0, f"integer {text} is outside the int range; write it as a decimal")


def check_decimal(text: str) -> None:
    """Reject a decimal that javac would refuse (too large, or non-zero but too small)."""
    value = float(text)
    if math.isinf(value):
        raise LiteralError(0, f"decimal {text} is too large for a double")
    mantissa = text.lower().split("e")[0]
    if value == 0.0 and any(c in "123456789" for c in mantissa):
        raise LiteralError(0, f"decimal {text} is too small for a double")
