"""Sweep axes: a declared property and the lattice of values a sweep may give it.

A wire axis is ``{from, to, step}`` (an inclusive arithmetic lattice) or ``{values: [...]}``.
Ranges are computed in decimal arithmetic on the shortest decimal text of each number, so
``0 .. 0.3 step 0.1`` yields exactly ``0.0, 0.1, 0.2, 0.3`` (the floats a user would type), never
``0.30000000000000004``, and the last point is never lost to drift. A range axis is never
materialised: point ``i`` is ``from + i * step``, so a sampler can draw from a lattice of 10^12
points. Values are coerced to the property's declared type, with errors naming the property.

Axes are ordered by property name (code-point order), because the sweep id is the digest of a
canonical JSON whose keys are sorted: two submissions with the same digest must expand to the
same ``runIx`` order.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal, localcontext
from functools import cached_property
from typing import Any

import numpy as np
import numpy.typing as npt

from backtestd.errors import InvalidSweepAxis

ParamValue = int | float | bool | str

INT_RANGES = {
    "int": (-(2**31), 2**31 - 1),
    "long": (-(2**63), 2**63 - 1),
    "short": (-(2**15), 2**15 - 1),
    "byte": (-(2**7), 2**7 - 1),
}
FLOAT32_MAX = 3.4028234663852886e38
MAX_AXIS_POINTS = 2**53  # lattice indices stay exact in int64 and float64


class PropertyType(enum.StrEnum):
    """The Java type of a ``@StrategyProperty`` (the engine's ``ValueParser`` set)."""

    INT = "int"
    LONG = "long"
    SHORT = "short"
    BYTE = "byte"
    DOUBLE = "double"
    FLOAT = "float"
    BOOLEAN = "boolean"
    CHAR = "char"
    STRING = "String"
    BIG_DECIMAL = "BigDecimal"
    BIG_INTEGER = "BigInteger"
    ENUM = "enum"

    @classmethod
    def from_java(cls, name: str | None) -> PropertyType | None:
        """Map a Java type name (``int``, ``java.lang.Integer``, ``Double`` ...) to a type.

        None (unknown) when the name is absent; anything unrecognised is taken as an enum.

        >>> PropertyType.from_java("java.lang.Integer"), PropertyType.from_java("double")
        (<PropertyType.INT: 'int'>, <PropertyType.DOUBLE: 'double'>)
        """
        if not name:
            return None
        simple = name.rsplit(".", 1)[-1]
        boxed = {"Integer": "int", "Character": "char"}.get(simple, simple)
        for member in cls:
            if member.value.lower() == boxed.lower():
                return member
        return cls.ENUM

    @property
    def is_integral(self) -> bool:
        return self in _INTEGRAL

    @property
    def is_real(self) -> bool:
        return self in (PropertyType.DOUBLE, PropertyType.FLOAT, PropertyType.BIG_DECIMAL)


_INTEGRAL = frozenset(
    {PropertyType.INT, PropertyType.LONG, PropertyType.SHORT, PropertyType.BYTE}
    | {PropertyType.BIG_INTEGER}
)


def decimal_of(value: Any, name: str, field: str) -> Decimal:
    """The decimal a JSON number denotes: its shortest round-trip text, not its binary value.

    >>> decimal_of(0.1, "x", "step")
    Decimal('0.1')
    """
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidSweepAxis(
            f"sweep axis '{name}': '{field}' must be a number, got {value!r}", param=name
        )
    if isinstance(value, float) and not math.isfinite(value):
        raise InvalidSweepAxis(f"sweep axis '{name}': '{field}' must be finite", param=name)
    return Decimal(repr(value)) if isinstance(value, float) else Decimal(value)


def coerce_value(name: str, ptype: PropertyType | None, value: Any) -> ParamValue:
    """``value`` as the property's declared type, or :class:`InvalidSweepAxis` naming ``name``.

    Integral types take integral numbers (``9.0`` becomes ``9``) within the Java range; real types
    take any finite number; boolean takes only ``true``/``false``; ``String`` takes the text of a
    number or boolean. ``char`` and enum properties cannot be swept: the wire's axes carry only
    numbers and booleans. An unknown type (None) keeps numbers and booleans as they are.

    >>> coerce_value("fast", PropertyType.INT, 9.0), coerce_value("k", PropertyType.DOUBLE, 2)
    (9, 2.0)
    """
    is_bool = isinstance(value, bool)
    if not is_bool and not isinstance(value, int | float):
        raise InvalidSweepAxis(
            f"sweep axis '{name}': {value!r} is not a number or a boolean", param=name
        )
    if isinstance(value, float) and not math.isfinite(value):
        raise InvalidSweepAxis(f"sweep axis '{name}': values must be finite", param=name)
    if ptype is None:  # as the canonical form sees it: 9.0 is 9
        return int(value) if isinstance(value, float) and value.is_integer() else value
    if ptype is PropertyType.BOOLEAN:
        if not is_bool:
            raise InvalidSweepAxis(
                f"sweep axis '{name}': {value!r} is not a boolean; property '{name}' is "
                'boolean, so sweep it with {"values": [false, true]}',
                param=name,
            )
        return bool(value)
    if ptype is PropertyType.STRING:
        return ("true" if value else "false") if is_bool else _number_text(value)
    if ptype in (PropertyType.CHAR, PropertyType.ENUM):
        raise InvalidSweepAxis(
            f"sweep axis '{name}': property '{name}' is of type {ptype.value}, which a sweep "
            "cannot vary (sweep axes carry numbers and booleans only)",
            param=name,
        )
    if is_bool:
        raise InvalidSweepAxis(
            f"sweep axis '{name}': {value!r} is a boolean, but property '{name}' is "
            f"{ptype.value}; give numbers",
            param=name,
        )
    if ptype.is_integral:
        return _integral(name, ptype, value)
    out = float(value)
    if ptype is PropertyType.FLOAT and abs(out) > FLOAT32_MAX:
        raise InvalidSweepAxis(
            f"sweep axis '{name}': {value!r} is out of range for a float property", param=name
        )
    return out


def _number_text(value: int | float) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return repr(value) if isinstance(value, float) else str(value)


def _integral(name: str, ptype: PropertyType, value: int | float) -> int:
    if isinstance(value, float) and not value.is_integer():
        raise InvalidSweepAxis(
            f"sweep axis '{name}': {value!r} is not a whole number, but property '{name}' is "
            f"{ptype.value}; use whole numbers (and a whole step)",
            param=name,
        )
    out = int(value)
    bounds = INT_RANGES.get(ptype.value)
    if bounds is not None and not bounds[0] <= out <= bounds[1]:
        raise InvalidSweepAxis(
            f"sweep axis '{name}': {out} is outside the {ptype.value} range "
            f"[{bounds[0]}, {bounds[1]}]",
            param=name,
        )
    return out


@dataclass(frozen=True)
class Axis:
    """One swept property. ``size`` lattice points; :meth:`value` gives point ``i``.

    A range axis keeps ``start``/``step`` (decimals); a list axis keeps its coerced ``listed``
    values in the order given. Plateau neighbours and sensitivity tables use *value order*
    (:meth:`ranks_of`, :meth:`value_at_rank`), ``runIx`` expansion uses the lattice order; for a
    range the two coincide.
    """

    name: str
    ptype: PropertyType | None
    size: int
    start: Decimal | None = None
    step: Decimal | None = None
    listed: tuple[ParamValue, ...] = ()

    def value(self, i: int) -> ParamValue:
        """Lattice point ``i`` (0-based).

        >>> Axis.from_wire("x", {"from": 0, "to": 0.3, "step": 0.1}, PropertyType.DOUBLE).value(3)
        0.3
        """
        if not 0 <= i < self.size:
            raise IndexError(f"axis '{self.name}' has {self.size} points, no point {i}")
        if self.start is None or self.step is None:
            return self.listed[i]
        return coerce_value(self.name, self.ptype, self._plain(i))

    def values(self) -> list[ParamValue]:
        """Every lattice point, in lattice order (only for axes small enough to list)."""
        return [self.value(i) for i in range(self.size)]

    @cached_property
    def _by_value(self) -> tuple[int, ...]:
        """Lattice indices of a list axis sorted by value."""
        return tuple(sorted(range(self.size), key=lambda i: _sort_key(self.listed[i])))

    @cached_property
    def _rank_table(self) -> npt.NDArray[np.int64]:
        table = np.empty(self.size, dtype=np.int64)
        table[list(self._by_value)] = np.arange(self.size, dtype=np.int64)
        return table

    def order_ranks(self) -> list[int]:
        """``ranks[i]`` = position of point ``i`` when the points are sorted by value.

        >>> Axis.from_wire("x", {"values": [20, 10, 30]}, PropertyType.INT).order_ranks()
        [1, 0, 2]
        """
        return self.ranks_of(np.arange(self.size, dtype=np.int64)).tolist()

    def ranks_of(self, indices: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        """Value-order positions of lattice ``indices`` (a range is its own order).

        >>> Axis.from_wire("b", {"values": [True, False]}, None).ranks_of(np.array([0, 1])).tolist()
        [1, 0]
        """
        idx = np.asarray(indices, dtype=np.int64)
        return idx.copy() if self.start is not None else self._rank_table[idx]

    def value_at_rank(self, rank: int) -> ParamValue:
        """The point of value-order position ``rank`` (a range's lattice is already sorted).

        >>> Axis.from_wire("x", {"values": [20, 10, 30]}, PropertyType.INT).value_at_rank(0)
        10
        """
        if self.start is not None:
            return self.value(rank)
        return self.listed[self._by_value[rank]]

    @classmethod
    def from_wire(
        cls,
        name: str,
        raw: Mapping[str, Any],
        ptype: PropertyType | None,
        *,
        max_listed: int = 100_000,
    ) -> Axis:
        """Parse one wire ``SweepAxis`` and coerce it to ``ptype``.

        >>> Axis.from_wire("fast", {"from": 5, "to": 50, "step": 5}, PropertyType.INT).size
        10
        """
        keys = set(raw)
        if keys == {"values"}:
            return cls._from_values(name, raw["values"], ptype, max_listed)
        if keys == {"from", "to", "step"}:
            return cls._from_range(name, raw, ptype)
        raise InvalidSweepAxis(
            f'sweep axis \'{name}\' must be {{"from", "to", "step"}} or {{"values": [...]}}, '
            f"got keys {sorted(keys)}",
            param=name,
        )

    @classmethod
    def _from_values(cls, name: str, raw: Any, ptype: PropertyType | None, max_listed: int) -> Axis:
        if not isinstance(raw, list | tuple) or not raw:
            raise InvalidSweepAxis(
                f"sweep axis '{name}': 'values' must be a non-empty list", param=name
            )
        if len(raw) > max_listed:
            raise InvalidSweepAxis(f"sweep axis '{name}': at most {max_listed} values", param=name)
        listed = tuple(coerce_value(name, ptype, v) for v in raw)
        seen: set[tuple[bool, ParamValue]] = set()
        for v in listed:
            key = (isinstance(v, bool), v)
            if key in seen:
                raise InvalidSweepAxis(
                    f"sweep axis '{name}': value {v!r} is listed twice; list each value once",
                    param=name,
                )
            seen.add(key)
        return cls(name=name, ptype=ptype, size=len(listed), listed=listed)

    @classmethod
    def _from_range(cls, name: str, raw: Mapping[str, Any], ptype: PropertyType | None) -> Axis:
        if ptype is PropertyType.BOOLEAN:
            raise InvalidSweepAxis(
                f"sweep axis '{name}': property '{name}' is boolean; a range cannot sweep it, "
                'use {"values": [false, true]}',
                param=name,
            )
        start = decimal_of(raw["from"], name, "from")
        stop = decimal_of(raw["to"], name, "to")
        step = decimal_of(raw["step"], name, "step")
        if step <= 0:
            raise InvalidSweepAxis(f"sweep axis '{name}': 'step' must be > 0", param=name)
        if start > stop:
            raise InvalidSweepAxis(
                f"sweep axis '{name}': 'from' ({raw['from']}) must not exceed 'to' ({raw['to']})",
                param=name,
            )
        with localcontext() as ctx:
            ctx.prec = 60
            ratio = (stop - start) / step  # rounded; only compared against the cap
            size = int((stop - start) // step) + 1 if ratio < MAX_AXIS_POINTS else None
        if size is None or size > MAX_AXIS_POINTS:
            raise InvalidSweepAxis(
                f"sweep axis '{name}' has {ratio:.6g} points or more; at most {MAX_AXIS_POINTS} "
                "(raise 'step' or narrow 'from'..'to')",
                param=name,
            )
        axis = cls(name=name, ptype=ptype, size=size, start=start, step=step)
        if (
            ptype is not None
            and ptype.is_integral
            and (start != start.to_integral_value() or step != step.to_integral_value())
        ):
            raise InvalidSweepAxis(
                f"sweep axis '{name}': property '{name}' is {ptype.value}, so 'from' and 'step' "
                f"must be whole numbers (got from={raw['from']}, step={raw['step']})",
                param=name,
            )
        for i in (0, size - 1):  # type and range checks on the extreme points
            coerce_value(name, ptype, axis._plain(i))
        return axis

    def _plain(self, i: int) -> int | float:
        """Point ``i`` as the JSON number it denotes (an int when integral)."""
        assert self.start is not None
        assert self.step is not None
        with localcontext() as ctx:
            ctx.prec = 60
            point = self.start + self.step * i
        return int(point) if point == point.to_integral_value() else float(point)


def _sort_key(v: ParamValue) -> tuple[int, float, str]:
    if isinstance(v, str):
        return (2, 0.0, v)
    return (0 if isinstance(v, bool) else 1, float(v), "")


def build_axes(
    params: Mapping[str, Mapping[str, Any]],
    declared: Mapping[str, PropertyType | None],
) -> tuple[Axis, ...]:
    """The axes of ``sweep.params``, sorted by name, each coerced to its declared type.

    ``declared`` maps every declared property name to its type (None when the engine did not
    report one). An undeclared key raises :class:`InvalidSweepAxis` listing the declared names.

    >>> [a.name for a in build_axes({"slow": {"values": [1]}, "fast": {"values": [2]}},
    ...                             {"fast": PropertyType.INT, "slow": PropertyType.INT})]
    ['fast', 'slow']
    """
    names = tuple(sorted(declared))
    if not params:
        raise InvalidSweepAxis(
            "sweep.params must name at least one declared property "
            f"(declared: {', '.join(names) or 'none'})",
            declared=names,
        )
    unknown = sorted(k for k in params if k not in declared)
    if unknown:
        raise InvalidSweepAxis(
            f"sweep.params names undeclared properties {', '.join(map(repr, unknown))}; "
            f"the strategy declares: {', '.join(names) or 'no properties'}",
            param=unknown[0],
            declared=names,
        )
    return tuple(Axis.from_wire(k, params[k], declared[k]) for k in sorted(params))


def vector(axes: Sequence[Axis], indices: Sequence[int]) -> dict[str, ParamValue]:
    """The parameter vector of one lattice index tuple.

    >>> ax = build_axes({"k": {"from": 0, "to": 0.3, "step": 0.1}}, {"k": PropertyType.DOUBLE})
    >>> vector(ax, [3])
    {'k': 0.3}
    """
    return {a.name: a.value(int(i)) for a, i in zip(axes, indices, strict=True)}
