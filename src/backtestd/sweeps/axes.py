"""Sweep axes: ``{from, to, step}`` lattices without float drift, and values coerced to types.

A range is expanded in decimal arithmetic on the numbers' shortest text, so ``0.1..0.3 step
0.1`` gives exactly ``[0.1, 0.2, 0.3]``. Each value is then coerced to the Java type the
strategy declares for the property; a value that cannot be represented (2.5 for an ``int``, a
boolean for a ``double``) is refused before anything runs.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from decimal import Decimal

from backtestd.domain.strategies import PropertySpec
from backtestd.domain.sweeps import AxisRequest, AxisValues, ParamScalar, SweepAxis
from backtestd.errors import InvalidInput

MAX_AXIS_POINTS = 100_000

# Java ranges of the integral types (names as `Class.getName()` gives them); BigInteger: none.
INTEGRAL_RANGES: dict[str, tuple[int, int] | None] = {
    "int": (-(2**31), 2**31 - 1),
    "java.lang.Integer": (-(2**31), 2**31 - 1),
    "long": (-(2**63), 2**63 - 1),
    "java.lang.Long": (-(2**63), 2**63 - 1),
    "short": (-(2**15), 2**15 - 1),
    "java.lang.Short": (-(2**15), 2**15 - 1),
    "byte": (-(2**7), 2**7 - 1),
    "java.lang.Byte": (-(2**7), 2**7 - 1),
    "java.math.BigInteger": None,
}
INTEGRAL = set(INTEGRAL_RANGES)
REAL = {"double", "float", "java.lang.Double", "java.lang.Float", "java.math.BigDecimal"}
BOOLEAN = {"boolean", "java.lang.Boolean"}
FLOAT32 = {"float", "java.lang.Float"}
FLOAT32_MAX = 3.4028234663852886e38


def _finite_number(name: str, value: object, what: str) -> None:
    """400 for anything but a finite JSON number (Python's JSON reader accepts NaN/Infinity)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidInput(f"sweep axis {name!r}: {what} must be a number, got {value!r}")
    if isinstance(value, float) and not math.isfinite(value):
        raise InvalidInput(f"sweep axis {name!r}: {what} must be finite, got {value!r}")


def _decimal(value: float | int) -> Decimal:
    return Decimal(repr(value)) if isinstance(value, float) else Decimal(value)


def range_values(
    name: str, start: float | int, stop: float | int, step: float | int
) -> list[ParamScalar]:
    """The inclusive lattice ``start, start+step, ... <= stop``.

    >>> range_values("x", 0.1, 0.3, 0.1)
    [0.1, 0.2, 0.3]
    >>> range_values("n", 5, 50, 15)
    [5, 20, 35, 50]
    """
    for what, v in (("from", start), ("to", stop), ("step", step)):
        _finite_number(name, v, what)
    lo, hi, inc = _decimal(start), _decimal(stop), _decimal(step)
    if inc <= 0:
        raise InvalidInput(f"sweep axis {name!r}: step must be positive, got {step}")
    if hi < lo:
        raise InvalidInput(f"sweep axis {name!r}: 'to' ({stop}) is below 'from' ({start})")
    ratio = (hi - lo) / inc  # rounded to 28 digits: compared first so int() stays cheap and exact
    if ratio >= MAX_AXIS_POINTS:
        raise InvalidInput(
            f"sweep axis {name!r} has {ratio + 1:.6g} points; at most {MAX_AXIS_POINTS}"
        )
    count = int(ratio) + 1
    integral = all(isinstance(v, int) for v in (start, stop, step))
    points = [lo + inc * i for i in range(count)]
    return [int(p) if integral else float(p) for p in points]


def coerce(prop: PropertySpec, value: ParamScalar) -> ParamScalar:
    """``value`` as the property's declared type, or a 400 naming the property.

    Integral types take whole numbers within the Java range of the type (so the engine never
    meets a value it cannot inject), real types any finite number (``float`` within its range),
    boolean only ``true``/``false``.

    >>> coerce(PropertySpec("n", "", None, True, type="byte"), 127.0)
    127
    """
    kind = prop.type
    if isinstance(value, str):
        value = _from_text(prop, value)
    if not isinstance(value, bool):
        _finite_number(prop.name, value, "every value")
    if kind in INTEGRAL:
        return _integral(prop, kind, value)
    if kind in REAL:
        if isinstance(value, bool | str):  # a string was refused above
            raise InvalidInput(
                f"sweep axis {prop.name!r}: {value!r} is a boolean, but the property is "
                f"declared as {kind}"
            )
        if kind in FLOAT32 and abs(value) > FLOAT32_MAX:
            raise InvalidInput(
                f"sweep axis {prop.name!r}: {value!r} is beyond the range of a Java float"
            )
        try:
            return float(value)
        except OverflowError:  # an integer beyond any double (10**400)
            raise InvalidInput(
                f"sweep axis {prop.name!r}: {value} is beyond the range of {kind}"
            ) from None
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


def _from_text(prop: PropertySpec, text: str) -> ParamScalar:
    """A string for a numeric or boolean property read as the number or boolean it spells
    (``"20"`` is 20, as in an execute's ``params``), so both spellings make the same sweep;
    other strings stay strings (and are refused below unless the property takes text).

    >>> _from_text(PropertySpec("n", "", None, True, type="int"), "20")
    20
    """
    kind = prop.type
    if kind in BOOLEAN and text.strip().lower() in ("true", "false"):
        return text.strip().lower() == "true"
    if kind in INTEGRAL or kind in REAL:
        for parse in (int, float):
            try:
                return parse(text.strip())
            except ValueError:
                continue
    return text


def _integral(prop: PropertySpec, kind: str, value: ParamScalar) -> int:
    whole = isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    if isinstance(value, bool) or not whole:
        raise InvalidInput(
            f"sweep axis {prop.name!r}: {value!r} is not a whole number, but the property "
            f"is declared as {kind}"
        )
    out = int(value)
    bounds = INTEGRAL_RANGES[kind]
    if bounds is not None and not bounds[0] <= out <= bounds[1]:
        raise InvalidInput(
            f"sweep axis {prop.name!r}: {out} is outside the range of {kind} "
            f"[{bounds[0]}, {bounds[1]}]"
        )
    return out


def resolve_axes(
    axes: Mapping[str, AxisRequest], declared: tuple[PropertySpec, ...]
) -> tuple[SweepAxis, ...]:
    """Every axis in request order, its values coerced and deduplicated; 400 on any problem."""
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
        if isinstance(axis, AxisValues):
            raw = list(axis.values)
            if not raw:
                raise InvalidInput(f"sweep axis {name!r}: values is empty")
        else:
            raw = range_values(name, axis.start, axis.stop, axis.step)
        values: list[ParamScalar] = []
        seen: set[tuple[bool, ParamScalar]] = set()
        for v in raw:
            c = coerce(prop, v)
            if (isinstance(c, bool), c) not in seen:  # True == 1 in Python; not here
                seen.add((isinstance(c, bool), c))
                values.append(c)
        out.append(SweepAxis(name, tuple(values)))
    return tuple(out)
