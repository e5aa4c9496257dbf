"""What a run needs: compiled classes, parameters, instrument and the mapped column files."""

from __future__ import annotations

import base64
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from backtestd.domain.backtests import ParamValue
from backtestd.domain.marketdata import RUN_COLUMNS, DataType, Instrument
from backtestd.domain.strategies import StrategyRecord
from backtestd.strategy.jvm.protocol import Header


def param_text(value: ParamValue) -> str:
    """The string form the engine injects. Integral floats drop ``.0`` so int fields accept them;
    booleans use Java's spelling."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


@dataclass(frozen=True)
class RunRequest:
    """One strategy run over ``rows`` (half-open, all rows when None) of the column files."""

    class_files: Mapping[str, bytes]
    main_class: str
    kind: DataType
    columns: Mapping[str, Path]
    instrument: Instrument
    params: Mapping[str, ParamValue] = field(default_factory=dict)
    rows: tuple[int, int] | None = None
    cpu_limit_s: float | None = None
    wall_limit_s: float | None = None

    @classmethod
    def of_strategy(
        cls,
        strategy: StrategyRecord,
        kind: DataType,
        columns: Mapping[str, Path],
        instrument: Instrument,
        *,
        cpu_limit_s: float,
        wall_limit_s: float | None = None,
        params: Mapping[str, ParamValue] | None = None,
        rows: tuple[int, int] | None = None,
    ) -> RunRequest:
        """A registered strategy's run: the one place validation dry runs, executes and sweep
        batches turn a stored strategy into engine work (its failures are worded by
        :func:`backtestd.strategy.failures.describe_run_failure` against the same record)."""
        return cls(
            class_files=strategy.class_files,
            main_class=strategy.main_class,
            kind=kind,
            columns=columns,
            instrument=instrument,
            params=dict(params or {}),
            rows=rows,
            cpu_limit_s=cpu_limit_s,
            wall_limit_s=wall_limit_s,
        )

    def to_header(self, cpu_limit_s: float, wall_limit_s: float, stack_kb: int) -> Header:
        """The ``run`` request header (without ``id``)."""
        kind = DataType(self.kind)
        missing = [c for c in RUN_COLUMNS[kind] if c not in self.columns]
        if missing:
            raise ValueError(f"{kind.value} run is missing column files {missing}")
        instrument: Header = {"base": self.instrument.base, "quote": self.instrument.quote}
        if self.instrument.settle:
            instrument["settle"] = self.instrument.settle
        header: Header = {
            "op": "run",
            "class_files": {
                name: base64.b64encode(data).decode("ascii")
                for name, data in self.class_files.items()
            },
            "main_class": self.main_class,
            "kind": kind.value,
            "columns": {name: str(Path(path).resolve()) for name, path in self.columns.items()},
            "instrument": instrument,
            "params": {k: param_text(v) for k, v in self.params.items()},
            "cpu_limit_ms": int(cpu_limit_s * 1000),
            "wall_limit_ms": int(wall_limit_s * 1000),
            "stack_kb": stack_kb,
        }
        if self.rows is not None:
            header["rows"] = [int(self.rows[0]), int(self.rows[1])]
        return header
