"""Sweep axes: ``{from, to, step}`` lattices without float drift, and values coerced to types.

A range is expanded in decimal arithmetic on the numbers' shortest text, so ``0.1..0.3 step
0.1`` gives exactly ``[0.1, 0.2, 0.3]``. Each value is then coerced to the Java type the
strategy declares for the property; a value that cannot be represented (2.5 for an ``int``, a
boolean for a ``double``) is refused before anything runs.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from backtestd.domain.strategies import PropertySpec
from backtestd.errors import InvalidInput

MAX_AXIS_POINTS = 100_000

INTEGRAL = {
    "int",
    "long",
    "short",
    "byte",
    "java.lang.Integer",
    "java.lang.Long",
    "java.lang.Short",
}
REAL = {"double", "float", "java.lang.Double", "java.lang.Float", "java.math.BigDecimal"}
BOOLEAN = {"boolean", "java.lang.Boolean"}


def _decimal(value: float | int) -> Decimal:
    return Decimal(repr(value)) if isinstance(value, float) else Decimal(value)


def range_values(name: str, start: float | int, stop: float | int, step: float | int) -> list[Any]:
    """The inclusive lattice ``start, start+step, ... <= stop``.

    >>> range_values("x", 0.1, 0.3, 0.1)
    [0.1, 0.2, 0.3]
    >>> range_values("n", 5, 50, 15)
    [5, 20, 35, 50]
    """
    if isinstance(start, bool) or isinstance(stop, bool) or isinstance(step, bool):
        raise InvalidInput(f"sweep axis {name!r}: from, to and step must be numbers")
    lo, hi, inc = _decimal(start), _decimal(stop), _decimal(step)
    if inc <= 0:
        raise InvalidInput(f"sweep axis {name!r}: step must be positive, got {step}")
    if hi < lo:
        raise InvalidInput(f"sweep axis {name!r}: 'to' ({stop}) is below 'from' ({start})")
    count = int((hi - lo) / inc) + 1
    if count > MAX_AXIS_POINTS:
        raise InvalidInput(f"sweep axis {name!r} has {count} points; at most {MAX_AXIS_POINTS}")
    integral = all(isinstance(v, int) for v in (start, stop, step))
    points = [lo + inc * i for i in range(count)]
    return [int(p) if integral else float(p) for p in points]


def coerce(prop: PropertySpec, value: Any) -> Any:
    """``value`` as the property's declared type, or a 400 naming the property."""
    kind = prop.type
    if kind in INTEGRAL:
        if isinstance(value, bool) or not float(value).is_integer():
            raise InvalidInput(
                f"sweep axis {prop.name!r}: {value!r} is not a whole number, but the property "
                f"is declared as {kind}"
            )
        return int(value)
    if kind in REAL:
        if isinstance(value, bool):
            raise InvalidInput(
                f"sweep axis {prop.name!r}: {value!r} is a boolean, but the property is "
                f"declared as {kind}"
            )
        return float(value)
    if kind in BOOLEAN:
        if not isinstance(value, bool):
            raise InvalidInput(
                f"sweep axis {prop.name!r}: {value!r} is not true/false, but the property is "
                f"declared as {kind}"
            )
        return value
    if kind is not None and kind != "java.lang.String":
        raise InvalidInput(f"sweep axis {prop.name!r}: properties of type {kind} cannot be swept")
    return value


def resolve_axes(
    axes: dict[str, dict[str, Any]], declared: tuple[PropertySpec, ...]
) -> list[dict[str, Any]]:
    """``[{name, values}]`` in request order, every value coerced; 400 on any problem."""
    by_name = {p.name: p for p in declared}
    if not axes:
        raise InvalidInput(
            'sweep.params is empty: give at least one axis, e.g. {"fast": '
            '{"from": 5, "to": 50, "step": 5}}'
        )
    out = []
    for name, axis in axes.items():
        prop = by_name.get(name)
        if prop is None:
            names = ", ".join(sorted(by_name)) or "none"
            raise InvalidInput(
                f"sweep axis {name!r} is not a declared property of the strategy; declared: {names}"
            )
        if "values" in axis:
            raw = list(axis["values"])
            if not raw:
                raise InvalidInput(f"sweep axis {name!r}: values is empty")
        else:
            raw = range_values(name, axis["from"], axis["to"], axis["step"])
        values: list[Any] = []
        for v in raw:
            c = coerce(prop, v)
            if c not in values:
                values.append(c)
        out.append({"name": name, "values": values})
    return out
