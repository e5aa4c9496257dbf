"""QTScript front end: parse a ``.qtscript`` source and generate the one Java class it denotes.

Pure Python; compiling the generated Java is the JVM side's job. See ``docs/qtscript.md`` for the
grammar as implemented, the Java mapping and every decision taken where the spec is silent.
"""

from .compiler import GeneratedJava, compile_qtscript, runtime_line, translate_java_diagnostic
from .errors import QtsCompileError, QtsDiagnostic
from .linemap import LineMap, LineOrigin
from .nodes import QtsParam
from .source import normalize_qtscript_for_id

__all__ = [
    "GeneratedJava",
    "LineMap",
    "LineOrigin",
    "QtsCompileError",
    "QtsDiagnostic",
    "QtsParam",
    "compile_qtscript",
    "normalize_qtscript_for_id",
    "runtime_line",
    "translate_java_diagnostic",
]
