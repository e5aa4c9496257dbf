"""Typed results and failures of the engine host's ``compile`` and ``run`` requests."""

from __future__ import annotations

import enum
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from backtestd.domain.strategies import PropertySpec


class RunFailureKind(enum.StrEnum):
    """Why a request failed. The host sends all but ``host_crashed``, which the client infers."""

    USER_EXCEPTION = "user_exception"
    LIMIT_EXCEEDED = "limit_exceeded"
    OUT_OF_MEMORY = "out_of_memory"
    STACK_OVERFLOW = "stack_overflow"
    PROPERTY_ERROR = "property_error"
    SANDBOX_VIOLATION = "sandbox_violation"
    OUTPUT_LIMIT = "output_limit"  # too many signals or too much info-signal data in one run
    HOST_CRASHED = "host_crashed"
    BAD_REQUEST = "bad_request"
    INTERNAL_ERROR = "internal_error"
    CANCELLED = "cancelled"  # the caller stopped the request (inferred by the client)


@dataclass(frozen=True)
class StackFrame:
    """One frame of the user's own code in a failure (the line maps back to QTScript)."""

    class_name: str
    method: str
    file: str | None
    line: int | None


class EngineHostError(Exception):
    """The engine host cannot be used at all: it did not start, or speaks another protocol."""


class RunFailure(Exception):
    """A compile or run request failed in a way the user (or the supervisor) must hear about.

    ``message`` is written for the strategy's author; ``kind`` drives what the caller does
    (a ``limit_exceeded`` run ends ``Failed`` with a notice, a ``host_crashed`` one may be retried).
    """

    def __init__(
        self,
        kind: RunFailureKind,
        message: str,
        *,
        frames: tuple[StackFrame, ...] = (),
        details: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.frames = frames
        self.details: dict[str, Any] = dict(details or {})

    @property
    def declared_properties(self) -> tuple[str, ...]:
        """For ``property_error``: the property names the strategy declares."""
        return tuple(str(n) for n in self.details.get("declared", ()))

    @property
    def exception_class(self) -> str | None:
        """For ``user_exception``: the Java exception class name."""
        value = self.details.get("exception")
        return str(value) if value is not None else None

    @classmethod
    def from_error(cls, error: Mapping[str, Any]) -> RunFailure:
        """Build from the host's ``error`` object."""
        raw_kind = str(error.get("kind", "internal_error"))
        try:
            kind = RunFailureKind(raw_kind)
        except ValueError:
            kind = RunFailureKind.INTERNAL_ERROR
        frames = tuple(
            StackFrame(
                class_name=str(f.get("class", "")),
                method=str(f.get("method", "")),
                file=f.get("file"),
                line=f.get("line") if isinstance(f.get("line"), int) else None,
            )
            for f in error.get("frames", ())
            if isinstance(f, dict)
        )
        details = {k: v for k, v in error.items() if k not in ("kind", "message", "frames")}
        return cls(kind, str(error.get("message", raw_kind)), frames=frames, details=details)

    def __repr__(self) -> str:
        return f"RunFailure({self.kind.value!r}, {self.message!r})"


@dataclass(frozen=True)
class Diagnostic:
    """A compiler (or sandbox) message; ``line`` and ``column`` are 1-based, None if unknown."""

    line: int | None
    column: int | None
    message: str
    kind: str
    code: str | None = None

    @property
    def is_error(self) -> bool:
        return self.kind == "ERROR"

    def render(self) -> str:
        """``Line N, Column M: message`` (the form the API returns for compile errors)."""
        where = []
        if self.line is not None:
            where.append(f"Line {self.line}")
        if self.column is not None:
            where.append(f"Column {self.column}")
        return f"{', '.join(where)}: {self.message}" if where else self.message


SANDBOX_FORBIDDEN = "sandbox.forbidden"
"""Diagnostic code of a sandbox finding (a warning at registration, fatal to every run)."""

DeclaredProperty = PropertySpec
"""A ``@StrategyProperty`` as the API's ``DeclaredProperty`` describes it (the domain record)."""


@dataclass(frozen=True)
class CompileResult:
    """The outcome of compiling one Java source.

    ``class_files`` maps binary class names (``pkg.Outer$Inner``) to bytes and holds every class
    the source produced. ``canonical_form`` is present whenever the source parsed, even if it
    did not compile; hash it (:attr:`canonical_digest`) for the Java strategy id.
    """

    ok: bool
    diagnostics: tuple[Diagnostic, ...]
    class_files: Mapping[str, bytes] = field(default_factory=dict)
    main_class: str | None = None
    declared_properties: tuple[DeclaredProperty, ...] = ()
    required_sources: tuple[str, ...] = ()
    canonical_form: str | None = None
    elapsed_ns: int = 0
    runnable: bool = True
    """False when the classes use what the sandbox forbids: they registered (the violations are
    :attr:`sandbox_warnings`), but every run refuses them before loading."""

    @property
    def errors(self) -> tuple[Diagnostic, ...]:
        return tuple(d for d in self.diagnostics if d.is_error)

    @property
    def sandbox_warnings(self) -> tuple[Diagnostic, ...]:
        return tuple(d for d in self.diagnostics if not d.is_error and d.code == SANDBOX_FORBIDDEN)

    @property
    def canonical_digest(self) -> str | None:
        """SHA-256 (hex) of the canonical form, or None when the source did not parse."""
        if self.canonical_form is None:
            return None
        return hashlib.sha256(self.canonical_form.encode("utf-8")).hexdigest()

    @classmethod
    def from_answer(cls, answer: Mapping[str, Any], class_files: dict[str, bytes]) -> CompileResult:
        diagnostics = tuple(
            Diagnostic(
                line=d.get("line"),
                column=d.get("column"),
                message=str(d.get("message", "")),
                kind=str(d.get("kind", "ERROR")),
                code=d.get("code"),
            )
            for d in answer.get("diagnostics", ())
        )
        properties = tuple(
            DeclaredProperty(
                name=str(p["name"]),
                description=str(p.get("description") or ""),
                default_value=p.get("default_value"),
                reflected=bool(p.get("reflected", False)),
                min=p.get("min"),
                max=p.get("max"),
                step=p.get("step"),
                type=p.get("type"),
            )
            for p in answer.get("declared_properties", ())
        )
        return cls(
            ok=bool(answer.get("success")),
            diagnostics=diagnostics,
            class_files=class_files,
            main_class=answer.get("main_class"),
            declared_properties=properties,
            required_sources=tuple(answer.get("required_sources", ())),
            canonical_form=answer.get("canonical_form"),
            elapsed_ns=int(answer.get("elapsed_ns", 0)),
            runnable=bool(answer.get("runnable", True)),
        )


@dataclass(frozen=True)
class RunResult:
    """The signals and bookkeeping of one strategy run.

    ``signal_ts`` (int64 event time, epoch ms; a bar's close time for klines), ``signal_side``
    (int8: +1 buy, -1 sell, 0 info) and ``signal_price`` (float64, NaN for info signals) are
    parallel, read-only arrays in emission order. ``info`` runs parallel to them too: the fields
    set on each signal as JSON values (for plain buys and sells an empty dict, one shared
    read-only instance, :data:`NO_FIELDS`). ``percent_gain`` is
    NaN when the strategy never called ``setPercentGain``.
    """

    signal_ts: npt.NDArray[np.int64]
    signal_side: npt.NDArray[np.int8]
    signal_price: npt.NDArray[np.float64]
    info: tuple[Any, ...]
    notices: tuple[str, ...]
    events: int
    elapsed_ns: int
    cpu_ns: int
    execution_mode: str
    percent_gain: float
    multi_entry: bool
    precomputed_indicators: int = 0
    """How many of the run's indicators took their values from a series the host computed ahead
    of the events (docs/engine-host.md, "Series computed ahead") instead of stepping."""
    stepless_events: int = 0
    """How many events the run took without stepping any indicator: while every indicator of its
    group replays a series or is a pure operation of two such (docs/engine-host.md, "No step at
    all"). Less than ``events`` when something ended that early."""

    @property
    def signal_count(self) -> int:
        return int(self.signal_ts.shape[0])

    @property
    def events_per_second(self) -> float:
        return self.events / (self.elapsed_ns / 1e9) if self.elapsed_ns > 0 else 0.0

    @classmethod
    def from_answer(cls, answer: Mapping[str, Any], payloads: tuple[bytes, ...]) -> RunResult:
        if len(payloads) != 3:
            raise ValueError(f"a run answer carries 3 payloads, got {len(payloads)}")
        ts = np.frombuffer(payloads[0], dtype="<i8").astype(np.int64, copy=False)
        side = np.frombuffer(payloads[1], dtype=np.int8)
        price = np.frombuffer(payloads[2], dtype="<f8").astype(np.float64, copy=False)
        return cls(
            signal_ts=ts,
            signal_side=side,
            signal_price=price,
            info=_dense_info(answer, int(ts.shape[0])),
            notices=tuple(str(n) for n in answer.get("notices", ())),
            events=int(answer.get("events", 0)),
            elapsed_ns=int(answer.get("elapsed_ns", 0)),
            cpu_ns=int(answer.get("cpu_ns", 0)),
            execution_mode=str(answer.get("execution_mode", "")),
            percent_gain=float(answer.get("percent_gain", 0.0)),
            multi_entry=bool(answer.get("multi_entry", False)),
            precomputed_indicators=int(answer.get("precomputed_indicators", 0)),
            stepless_events=int(answer.get("stepless_events", 0)),
        )


class _NoFields(dict[str, Any]):
    """The fields of a plain buy or sell: an empty dict that refuses changes.

    One instance stands for every plain signal of every result: building a fresh ``{}`` for each
    of a vector's ~15,000 signals costs as much as parsing the dense list did, which is what the
    sparse answer saves. It compares, serialises and tests false like ``{}``.
    """

    __slots__ = ()

    def _refuse(self, *args: object, **kwargs: object) -> None:
        raise TypeError("the info of a run result is read-only")

    __setitem__ = __delitem__ = _refuse
    update = setdefault = pop = popitem = clear = __ior__ = _refuse  # type: ignore[assignment]


NO_FIELDS: dict[str, Any] = _NoFields()
"""``RunResult.info``'s entry for a signal without fields."""


def _dense_info(answer: Mapping[str, Any], signals: int) -> tuple[Any, ...]:
    """The info fields of every signal, :data:`NO_FIELDS` for a plain one, from the answer's
    sparse form.

    The host sends only the signals that carry fields (``info_at``: their indices, ``info``: the
    fields, in the same order); an answer without ``info_at`` (a host before that change) has one
    ``info`` entry per signal already.
    """
    info = answer.get("info", ())
    at = answer.get("info_at")
    if not isinstance(info, list | tuple):
        raise EngineHostError(f"engine host answered info {type(info).__name__}, not a list")
    if at is None:
        return tuple(info)
    if not isinstance(at, list) or len(at) != len(info):
        raise EngineHostError(
            f"engine host answered info_at {at!r:.80} for {len(info)} info entries"
        )
    dense: list[Any] = [NO_FIELDS] * signals
    previous = -1
    for index, fields in zip(at, info, strict=True):
        # plain increasing ints inside the run: a bool, a float, a repeat or a step back is a
        # broken answer, never a fields entry to drop or to move
        if type(index) is not int or not previous < index < signals:
            raise EngineHostError(
                f"engine host answered info index {index!r} after {previous} for a run of "
                f"{signals} signals"
            )
        dense[index] = fields
        previous = index
    return tuple(dense)
