"""Statement parameters without NUL characters, on every database kind.

PostgreSQL refuses a text value holding NUL (U+0000) and fails the whole statement, so text the
service did not write itself could fail a write that must not fail: the error message of a
strategy that threw ``new RuntimeException("a\\0b")`` made its job's final write fail, and the job
was resubmitted and run again until it gave up (the job never ended in between). SQLite stores
NUL, so the same data behaved differently on each kind.

The API refuses NUL in what users send (paths, queries and bodies: ``api/nul_guard.py``,
``RequestBody``); this hook is for text produced inside the service (a strategy's messages,
notices, names) and for anything that slips past the API: each NUL becomes U+FFFD, the Unicode
replacement character, the same on both kinds. JSON values are serialised before they get here
and spell NUL as the escape ``\\u0000``, so they pass unchanged; bytes are never touched.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import Engine, event

NUL = "\x00"
REPLACEMENT = "\ufffd"


def install(engine: Engine) -> None:
    """Scrub the parameters of every statement ``engine`` executes."""

    @event.listens_for(engine, "before_cursor_execute", retval=True)
    def _scrub(
        _conn: Any,
        _cursor: Any,
        statement: str,
        parameters: Any,
        _context: Any,
        executemany: bool,
    ) -> tuple[str, Any]:
        if executemany and isinstance(parameters, list | tuple):
            return statement, [without_nul(p) for p in parameters]
        return statement, without_nul(parameters)


def without_nul(parameters: Any) -> Any:
    """``parameters`` (a mapping or a sequence of values) with NUL replaced in every string;
    the same object when no string holds one, so a statement without NUL pays one scan.

    >>> without_nul({"a": "x\\x00y", "b": 1}) == {"a": "x\\ufffdy", "b": 1}
    True
    >>> without_nul(("ok", b"\\x00"))
    ('ok', b'\\x00')
    """
    if isinstance(parameters, Mapping):
        if not any(_has_nul(v) for v in parameters.values()):
            return parameters
        return {k: _scrubbed(v) for k, v in parameters.items()}
    if isinstance(parameters, Sequence) and not isinstance(parameters, str | bytes):
        if not any(_has_nul(v) for v in parameters):
            return parameters
        return type(parameters)(_scrubbed(v) for v in parameters)  # type: ignore[call-arg]
    return parameters


def _has_nul(value: object) -> bool:
    return isinstance(value, str) and NUL in value


def _scrubbed(value: object) -> object:
    return value.replace(NUL, REPLACEMENT) if isinstance(value, str) else value
