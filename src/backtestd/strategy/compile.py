"""From submitted text to compiled classes: language detection, QTScript generation, javac.

Diagnostics always refer to the user's own text: Java diagnostics as ``Line N, Column M:``
from javac, QTScript ones through the generated code's line map.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace

from backtestd.domain.strategies import PropertySpec
from backtestd.strategy.failures import encode_line_map
from backtestd.strategy.ids import qtscript_digest
from backtestd.strategy.jvm import CompileResult, EnginePool
from backtestd.strategy.language import Language, detect_language
from backtestd.strategy.qtscript import (
    QtsCompileError,
    compile_qtscript,
    translate_java_diagnostic,
)


@dataclass(frozen=True)
class CompiledStrategy:
    language: Language
    content_digest: str
    main_class: str
    class_files: dict[str, bytes]
    declared_properties: tuple[PropertySpec, ...]
    required_sources: tuple[str, ...]
    warnings: tuple[str, ...] = ()
    line_map: str | None = None
    """QTScript: generated-Java line -> QTScript line, as stored (``strategy.failures``)."""


class CompileFailed(Exception):
    """The source did not parse or compile; ``diagnostics`` are ready for the user."""

    def __init__(self, language: Language, diagnostics: list[str]) -> None:
        super().__init__("\n".join(diagnostics))
        self.language = language
        self.diagnostics = diagnostics


def compile_strategy(pool: EnginePool, source: str) -> CompiledStrategy:
    language = detect_language(source)
    if language is Language.QTSCRIPT:
        return _compile_qtscript(pool, source)
    result = pool.compile(source)
    if not result.ok or result.main_class is None:
        raise CompileFailed(language, _java_diagnostics(result))
    digest = result.canonical_digest or hashlib.sha256(source.encode()).hexdigest()
    compiled = _compiled(language, digest, result)
    return replace(compiled, warnings=tuple(d.render() for d in result.sandbox_warnings))


def _compile_qtscript(pool: EnginePool, source: str) -> CompiledStrategy:
    try:
        generated = compile_qtscript(source)
    except QtsCompileError as exc:
        raise CompileFailed(Language.QTSCRIPT, [str(d) for d in exc.diagnostics]) from exc
    result = pool.compile(generated.java_source, generated.class_name)
    if not result.ok or result.main_class is None:
        diagnostics = [
            translate_java_diagnostic(generated, d.line, d.column or 1, d.message)
            if d.line is not None
            else d.message
            for d in result.errors
        ] or ["the generated Java did not compile"]
        raise CompileFailed(Language.QTSCRIPT, diagnostics)
    compiled = _compiled(Language.QTSCRIPT, qtscript_digest(source), result)
    sandbox = [
        translate_java_diagnostic(generated, d.line, d.column or 1, d.message)
        if d.line is not None
        else d.message
        for d in result.sandbox_warnings
    ]
    return replace(
        compiled,
        warnings=(*(str(w) for w in generated.warnings), *sandbox),
        line_map=encode_line_map(generated),
    )


def _java_diagnostics(result: CompileResult) -> list[str]:
    rendered = [d.render() for d in result.errors]
    if not rendered and result.main_class is None:
        rendered = [
            "no strategy class found: declare one public class extending a strategy base "
            "class such as AbstractTickerStrategy"
        ]
    return rendered


def _compiled(language: Language, digest: str, result: CompileResult) -> CompiledStrategy:
    assert result.main_class is not None
    return CompiledStrategy(
        language=language,
        content_digest=digest,
        main_class=result.main_class,
        class_files=dict(result.class_files),
        declared_properties=tuple(result.declared_properties),
        required_sources=tuple(result.required_sources),
    )
