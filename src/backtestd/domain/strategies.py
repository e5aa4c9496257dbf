"""Registered strategies and their validation verdicts."""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field
from datetime import datetime

# A QTScript header: ``strategy "A title"`` or ``strategy Name`` on the first code line.
_QTS_HEADER = re.compile(r'^\s*strategy\s+(?:"((?:[^"\\\n]|\\.)*)"|([A-Za-z_]\w*))', re.MULTILINE)


class Validation(enum.StrEnum):
    """``validation`` wire values; ``not_validated`` is the description's "(no verdict)"."""

    NOT_VALIDATED = "not_validated"
    PENDING = "pending"
    PASSED = "passed"
    FAILED = "failed"


@dataclass(frozen=True)
class Notice:
    level: str
    code: str
    message: str
    provenance: str | None = None


@dataclass(frozen=True)
class PropertySpec:
    name: str
    description: str
    default_value: str | None
    reflected: bool
    min: float | None = None
    max: float | None = None
    step: float | None = None
    # The Java type the engine injects the value as (int, double, boolean, java.lang.String, ...);
    # None for strategies registered before types were recorded.
    type: str | None = None


@dataclass(frozen=True)
class StrategyRecord:
    """One registration of one user; ``strategy_id`` is derived from the source's meaning."""

    strategy_id: str
    user_id: str
    language: str
    content_digest: str
    generation: int
    source: str
    main_class: str
    class_files: dict[str, bytes] = field(repr=False)
    declared_properties: tuple[PropertySpec, ...]
    required_sources: tuple[str, ...]
    compiled_at: datetime
    validation: Validation = Validation.NOT_VALIDATED
    validated_at: datetime | None = None
    notices: tuple[Notice, ...] = ()
    detail: str | None = None
    deleted_at: datetime | None = None
    line_map: str | None = None  # QTScript: JSON of the generated-Java -> QTScript line map

    @property
    def name(self) -> str:
        """What a person calls the strategy: the QTScript header's title (``"EMA cross"``) or
        the Java class's simple name (``EmaCross``), so lists need not show bare ids."""
        if self.language == "qtscript":
            found = _QTS_HEADER.search(self.source)
            if found:
                title = found.group(1) if found.group(1) is not None else found.group(2)
                return title.replace('\\"', '"').replace("\\\\", "\\")
        return self.main_class.rsplit(".", 1)[-1]

    @property
    def stored_bytes(self) -> int:
        """What counts against the storage pool: source plus the latest bytecode."""
        return len(self.source.encode("utf-8")) + sum(len(b) for b in self.class_files.values())
