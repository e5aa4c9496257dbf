"""The QTScript front end's entry points: compile to Java, and map Java positions back.

``compile_qtscript`` runs the whole pipeline (parse, check, plan windows, generate) and raises
one :class:`QtsCompileError` holding every error found. The two mapping functions turn what the
JVM side reports about the generated class (a javac diagnostic, a stack-trace line) into the
user's coordinates, because QTScript authors never see the generated Java.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from backtestd.domain.marketdata import DataType

from .checks import check_params, warn_param_assignments
from .errors import DiagnosticSink, QtsDiagnostic
from .javagen import generate_java
from .linemap import LineMap
from .naming import derive_class_name
from .nodes import QtsParam
from .parser import parse_program
from .windows import plan_windows


@dataclass(frozen=True)
class GeneratedJava:
    """The Java class generated from a QTScript file.

    ``package`` is always ``None``: the class is generated in the default package. ``warnings``
    are non-fatal diagnostics (an assignment to a param in ``init``, a section nothing uses).
    """

    class_name: str
    package: str | None
    java_source: str
    line_map: LineMap = field(repr=False)
    params: list[QtsParam]
    title: str = ""
    source_kind: DataType = DataType.TICKER
    header_line: int = 1
    header_column: int = 1
    warnings: list[QtsDiagnostic] = field(default_factory=list)

    @property
    def qualified_name(self) -> str:
        return self.class_name if self.package is None else f"{self.package}.{self.class_name}"


# Comments and string/char literals, in the order they start (a quote inside a comment is
# part of the comment); an odd run of backslashes before 'u' is a javac unicode escape.
_LEXEMES = re.compile(
    r"/\*.*?(?:\*/|\Z)|//[^\n]*|\"(?:\\.|[^\"\\\n])*\"?|'(?:\\.|[^'\\\n])*'?", re.S
)
_ESCAPE = re.compile(r"(?<!\\)(?:\\\\)*\\u")


def _refuse_unicode_escapes(source: str, sink: DiagnosticSink) -> None:
    """Refuse a unicode escape outside string literals (in comments and code).

    javac decodes ``\\uXXXX`` before anything else, even inside comments, so ``// \\u000a``
    would end a QTScript comment early and turn the rest of it into live Java. String literals
    are safe: they are decoded here and re-escaped for Java (:func:`java_string`).
    """
    outside: list[tuple[int, str]] = []
    at = 0
    for lexeme in _LEXEMES.finditer(source):
        outside.append((at, source[at : lexeme.start()]))
        if lexeme.group().startswith("/"):
            outside.append((lexeme.start(), lexeme.group()))
        at = lexeme.end()
    outside.append((at, source[at:]))
    for offset, text in outside:
        escape = _ESCAPE.search(text)
        if escape is not None:
            where = offset + escape.end() - 2
            line = source.count("\n", 0, where) + 1
            column = where - (source.rfind("\n", 0, where) + 1) + 1
            sink.error(
                line,
                column,
                "unicode escapes (a backslash followed by 'u') are only allowed inside string "
                "literals; javac would decode one in a comment or in code",
            )
            return


def compile_qtscript(source: str) -> GeneratedJava:
    """Compile QTScript ``source`` to one Java class; raise ``QtsCompileError`` on any error."""
    sink = DiagnosticSink()
    _refuse_unicode_escapes(source, sink)
    program, src = parse_program(source, sink)
    check_params(program.params, sink)
    header = program.header
    source_kind = header.source if header is not None else DataType.TICKER
    plan = plan_windows(program, source_kind, sink)
    warn_param_assignments(program.init, program.params, src, sink)
    sink.raise_if_errors()
    assert header is not None  # a missing header is an error
    taken = frozenset(listener.class_name for listener in plan.listeners)
    class_name = derive_class_name(header.name, taken)
    java_source, line_map = generate_java(program, src, class_name, plan)
    return GeneratedJava(
        class_name=class_name,
        package=None,
        java_source=java_source,
        line_map=line_map,
        params=list(program.params),
        title=header.name,
        source_kind=header.source,
        header_line=header.pos.line,
        header_column=header.pos.column,
        warnings=sorted(sink.warnings, key=lambda d: (d.line, d.column)),
    )


def translate_java_diagnostic(
    gen: GeneratedJava, java_line: int, java_column: int, message: str
) -> str:
    """``Line N, Column M: message`` against the QTScript text for a javac diagnostic.

    ``java_column`` is javac's column (``Diagnostic.getColumnNumber()``; tabs expanded to 8).
    A position outside the generated class (an import line, or none at all) is reported at the
    ``strategy`` header, the construct that produced the whole class.
    """
    mapped = gen.line_map.to_qts(java_line, java_column)
    line, column = mapped if mapped is not None else (gen.header_line, gen.header_column)
    return str(QtsDiagnostic(line, column, message))


def runtime_line(gen: GeneratedJava, java_line: int) -> int | None:
    """The QTScript line for a stack-trace line number of the generated class (``QTS line N``)."""
    return gen.line_map.qts_line(java_line)
