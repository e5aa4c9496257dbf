"""Diagnostics for QTScript compilation.

Every message a QTScript author sees points at *their* text, never at the generated Java, so a
diagnostic is just a 1-based line and column in the user's source plus a message. The string form
is the documented wire format (``Line N, Column M: message``) that the service puts in a ``400``.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class QtsDiagnostic:
    """One error or warning located in the QTScript source.

    Lines and columns are 1-based; a column counts characters (a tab is one column), measured on
    the text after a leading byte-order mark has been dropped.
    """

    line: int
    column: int
    message: str

    def __str__(self) -> str:
        return f"Line {self.line}, Column {self.column}: {self.message}"


class QtsCompileError(Exception):
    """Raised when a QTScript source has errors; carries every error found, sorted by position.

    The parser recovers after each mistake so the author sees all of them at once instead of
    fixing one per round trip.
    """

    def __init__(self, diagnostics: list[QtsDiagnostic]) -> None:
        self.diagnostics: list[QtsDiagnostic] = sorted(
            diagnostics, key=lambda d: (d.line, d.column)
        )
        super().__init__("\n".join(str(d) for d in self.diagnostics))

    def __str__(self) -> str:
        return "\n".join(str(d) for d in self.diagnostics)


class DiagnosticSink:
    """Collects diagnostics while parsing and checking, de-duplicating identical entries."""

    def __init__(self) -> None:
        self.errors: list[QtsDiagnostic] = []
        self.warnings: list[QtsDiagnostic] = []

    def error(self, line: int, column: int, message: str) -> None:
        diag = QtsDiagnostic(line, column, message)
        if diag not in self.errors:
            self.errors.append(diag)

    def warn(self, line: int, column: int, message: str) -> None:
        diag = QtsDiagnostic(line, column, message)
        if diag not in self.warnings:
            self.warnings.append(diag)

    def raise_if_errors(self) -> None:
        if self.errors:
            raise QtsCompileError(self.errors)
